"""What every test shares: a test leaves the process's logging set up as it
found it.

A command run in process (``keel-manage``'s main, ``parse_args``) sets up
logging as the real process does: oslo.log replaces the root logger's
handlers with one writing to the ``sys.stdout`` of that moment, which in a
test is a capture (capsys/capfd, or pytest's own) that is closed after the
test. Every later record of the worker process -- the next tests' code,
threads of services still stopping -- then fails with "I/O operation on
closed file" and a "--- Logging error ---" report. Undo it at teardown.
"""
import contextlib
import logging

import pytest


def _own(handlers):
    """The root's handlers but pytest's (its logging plugin adds and
    removes its own around each phase of a test)."""
    return [h for h in handlers
            if not type(h).__module__.startswith("_pytest.")]


@contextlib.contextmanager
def restored_root_logging():
    """The root logger's handlers and level as they were before the
    block; handlers added in it are closed."""
    root = logging.getLogger()
    handlers, level = _own(root.handlers), root.level
    try:
        yield
    finally:
        _restore(root, handlers, level)


def _restore(root, handlers, level):
    for handler in _own(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    for handler in handlers:
        if handler not in root.handlers:
            root.addHandler(handler)
    root.setLevel(level)


@pytest.fixture(autouse=True)
def _restore_root_logging():
    with restored_root_logging():
        yield
