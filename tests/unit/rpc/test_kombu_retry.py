"""keel.rpc.kombu_retry: kombu's autoretry without a class per call --
same channel handling, same retries after a connection error."""
import kombu
import kombu.connection
import kombu.exceptions
import pytest

from keel.rpc import kombu_retry
from keel.rpc import transport  # noqa: F401 - installs the patch


@pytest.fixture(params=["keel", "kombu"])
def conn(request):
    """A connection, with keel's autoretry and (to compare) kombu's own."""
    if request.param == "kombu":
        kombu_retry.uninstall()
    connection = kombu.Connection("memory://")
    yield connection
    connection.release()
    kombu_retry.install()


def test_installed_by_the_transport_module():
    assert kombu_retry._compatible()
    assert kombu.connection.Connection.autoretry is kombu_retry._autoretry


def test_given_channel_is_used_and_returned(conn):
    channel = conn.channel()
    seen = []

    def operation(x, channel=None):
        seen.append(channel)
        return x * 2

    call = conn.autoretry(operation, channel=channel, max_retries=1)
    assert call(21) == (42, channel)
    assert seen == [channel]
    assert call.__name__ == "operation(ensured)"


def test_no_channel_uses_the_default_channel(conn):
    call = conn.autoretry(lambda channel=None: channel, max_retries=1)
    result, channel = call()
    assert result is channel is conn.default_channel


def test_connection_error_revives_with_a_new_channel(conn):
    first = conn.channel()
    seen = []
    errors = []

    def operation(channel=None):
        seen.append(channel)
        if len(seen) == 1:
            raise conn.connection_errors[0]("broker went away")
        return "done"

    call = conn.autoretry(operation, channel=first, max_retries=2,
                          interval_start=0, interval_step=0,
                          errback=lambda exc, interval: errors.append(exc))
    result, channel = call()
    assert result == "done"
    assert seen[0] is first
    assert channel is seen[1] is conn.default_channel
    assert len(errors) == 1


def test_gives_up_after_max_retries(conn):
    def operation(channel=None):
        raise conn.connection_errors[0]("down")

    call = conn.autoretry(operation, channel=conn.channel(), max_retries=1,
                          interval_start=0, interval_step=0)
    with pytest.raises(kombu.exceptions.OperationalError, match="down"):
        call()


def test_uninstall_restores_kombu():
    kombu_retry.uninstall()
    try:
        assert kombu.connection.Connection.autoretry is not \
            kombu_retry._autoretry
    finally:
        kombu_retry.install()
    assert kombu.connection.Connection.autoretry is kombu_retry._autoretry
