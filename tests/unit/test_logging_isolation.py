"""tests/conftest.py: logging that a command run inside a test sets up
(oslo.log, as keel-manage's main does) is undone after the test, so later
records do not go to the test's closed capture ("--- Logging error ---")."""
import io
import logging
import sys
from unittest import mock

from oslo_config import cfg

from keel.cmd import common
from keel import conf as keel_conf
from tests import conftest


def test_logging_set_up_by_a_command_in_a_test_is_undone():
    conf = cfg.ConfigOpts()
    keel_conf.register_all(conf)
    capture = io.StringIO()
    with conftest.restored_root_logging():
        with mock.patch.object(sys, "stdout", capture), \
                mock.patch.object(sys, "stderr", capture):
            common.parse_args([], "keel-test", conf=conf,
                              default_config_files=[])
        logging.getLogger("keel.test").warning("during the test")
        assert "during the test" in capture.getvalue()
    capture.close()             # as pytest closes a test's capture
    errors = io.StringIO()
    with mock.patch.object(sys, "stderr", errors):
        logging.getLogger("keel.test").warning("after the test")
    assert "Logging error" not in errors.getvalue()
