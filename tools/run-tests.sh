#!/usr/bin/env bash
# The test command of the README: unit, functional and integration tests.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || bash tools/setup-venv.sh
# Integration tests run whole deployments (api, conductor and scheduler
# workers, computes, Placement) on two xdist workers at once: a stock
# MariaDB's 151 connections run out. Raised on the running server only.
if command -v mysql >/dev/null; then
    mysql -uroot -h127.0.0.1 -e \
        "SET GLOBAL max_connections = GREATEST(@@max_connections, 1000)" \
        2>/dev/null || echo "note: could not raise MariaDB max_connections" >&2
fi
.venv/bin/python -m pytest -q -p no:cacheprovider -n 2 --dist loadfile \
    --timeout 300 tests "$@"
