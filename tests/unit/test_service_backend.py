"""A keel process runs oslo.service's threading backend (oslo.messaging's
import would otherwise choose eventlet) and starts without eventlet's
deprecation warning."""
import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["keel.cmd.main", "keel.cmd.all_in_one"])
def test_threading_backend_chosen_and_no_eventlet_warning(module):
    code = ("import %s\n"
            "from oslo_service import backend\n"
            "print(backend.get_backend_type().value)\n" % module)
    done = subprocess.run([sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "threading"
    assert "Eventlet is deprecated" not in done.stderr


def test_a_backend_chosen_before_keel_is_kept():
    code = ("from oslo_service import backend\n"
            "backend.init_backend(backend.BackendType.EVENTLET)\n"
            "import keel.cmd.main\n"
            "print(backend.get_backend_type().value)\n")
    done = subprocess.run([sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "eventlet"
