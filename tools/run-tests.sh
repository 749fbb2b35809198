#!/usr/bin/env bash
# The test command of the README: unit, functional and integration tests.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || bash tools/setup-venv.sh
.venv/bin/python -m pytest -q -p no:cacheprovider -n 2 --dist loadfile \
    --timeout 300 tests "$@"
