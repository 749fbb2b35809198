"""The destination side of a live migration's volume attachments with a
stand-in Cinder: the driver's migration connector is used when it has
one, and a create that fails half-way leaves no new attachment behind."""
import types

import pytest

from keel.compute.ops import live_migration_volumes as lm_volumes
from keel.compute.ops import volumes


class Bdm(types.SimpleNamespace):
    def save(self):
        self.saved = getattr(self, "saved", 0) + 1


class Cinder:
    def __init__(self, fail_for=None):
        self.attachments, self.fail_for = {}, fail_for

    def attachment_create(self, context, volume_id, instance_id,
                          connector=None, mountpoint=None):
        if volume_id == self.fail_for:
            raise RuntimeError("Cinder said no")
        att = {"id": "new-" + volume_id, "connector": connector,
               "mountpoint": mountpoint,
               "connection_info": {"data": {"host": connector["host"]}}}
        self.attachments[att["id"]] = att
        return att

    def attachment_delete(self, context, attachment_id):
        self.attachments.pop(attachment_id)


class Driver:
    def get_volume_connector(self, instance):
        return {"host": "source-node"}

    def get_live_migration_volume_connector(self, instance, migrate_data):
        return {"host": migrate_data["dest_node"]}


def bdms():
    return [Bdm(volume_id=v, attachment_id="old-" + v, device_name=d,
                connection_info='{"old": true}')
            for v, d in (("v1", "/dev/vdb"), ("v2", "/dev/vdc"))]


@pytest.fixture
def cinder(monkeypatch):
    api = Cinder()
    monkeypatch.setattr(volumes, "volume_api", lambda: api)
    return api


def test_bdms_switch_to_attachments_made_with_the_migration_connector(
        cinder):
    mgr = types.SimpleNamespace(driver=Driver())
    mapping = bdms()
    previous = lm_volumes.create_destination_attachments(
        mgr, None, types.SimpleNamespace(uuid="i"), mapping,
        {"dest_node": "node-2"})
    assert [b.attachment_id for b in mapping] == ["new-v1", "new-v2"]
    assert {a["connector"]["host"] for a in cinder.attachments.values()} \
        == {"node-2"}
    assert cinder.attachments["new-v2"]["mountpoint"] == "/dev/vdc"
    assert mapping[0].connection_info == '{"data": {"host": "node-2"}}'
    lm_volumes.undo_destination_attachments(None, mapping, previous)
    assert cinder.attachments == {}
    assert [(b.attachment_id, b.connection_info) for b in mapping] == [
        ("old-v1", '{"old": true}'), ("old-v2", '{"old": true}')]


def test_a_failed_create_removes_the_ones_made_before(cinder):
    cinder.fail_for = "v2"
    mgr = types.SimpleNamespace(driver=Driver())
    mapping = bdms()
    with pytest.raises(RuntimeError):
        lm_volumes.create_destination_attachments(
            mgr, None, types.SimpleNamespace(uuid="i"), mapping,
            {"dest_node": "node-2"})
    assert cinder.attachments == {}
    assert [b.attachment_id for b in mapping] == ["old-v1", "old-v2"]


class ComputeRPC:
    """The destination as the source reaches it: with ``cinder``, it
    deletes its attachment when asked (6.3) -- only once Cinder's stand-in
    would let it, a second delete of the same attachment raises."""

    def __init__(self, fail=False, cinder=None, version_cap="6.5"):
        self.removed, self.fail, self.cinder = [], fail, cinder
        self.cap = tuple(int(x) for x in version_cap.split("."))

    def can_send_version(self, context, version):
        return tuple(int(x) for x in version.split(".")) <= self.cap

    def remove_volume_connection(self, context, instance, volume_id, host,
                                 delete_attachment=False):
        if not self.can_send_version(context, "6.3"):
            delete_attachment = None  # dropped by the client: not sent
        self.removed.append((volume_id, host, delete_attachment))
        if self.fail:
            raise RuntimeError("destination unreachable")
        if delete_attachment and self.cinder is not None:
            self.cinder.attachment_delete(context, "new-" + volume_id)


def _switched(monkeypatch, cinder):
    """Source BDMs, and the instance's BDMs as the destination left them
    (switched to its attachments); restore_source_attachments' reads."""
    source = bdms()
    current = bdms()
    for b in current:
        cinder.attachments["new-" + b.volume_id] = {}
        b.attachment_id, b.connection_info = "new-" + b.volume_id, "{}"
    monkeypatch.setattr(lm_volumes, "volume_bdms", lambda c, i: current)
    return source, current


@pytest.mark.parametrize("dest,pre,asked", [
    ("dst", False, True),
    # pre_live_migration failed: the destination undid its part itself.
    ("dst", True, False),
    # One service for several nodes (KubeVirt): a detach would unplug the
    # guest that stays.
    ("src", False, False)])
def test_rollback_asks_the_destination_to_disconnect_first(
        monkeypatch, cinder, dest, pre, asked):
    source, current = _switched(monkeypatch, cinder)
    rpc = ComputeRPC(cinder=cinder)
    mgr = types.SimpleNamespace(host="src")
    lm_volumes.rollback_volumes(mgr, rpc, None,
                                types.SimpleNamespace(uuid="i"), dest,
                                source, pre_live_migration=pre)
    # The destination deletes its own attachment (Nova's 6.3 rollback).
    assert rpc.removed == ([("v1", "dst", True), ("v2", "dst", True)]
                           if asked else [])
    assert [b.attachment_id for b in current] == ["old-v1", "old-v2"]
    assert cinder.attachments == {}


def test_rollback_deletes_destination_attachments_once(monkeypatch):
    """The destination deleted its attachments: the source does not delete
    them again (Cinder would answer 404 and the deletes be logged as
    failures)."""
    deletes = []

    class CountingCinder(Cinder):
        def attachment_delete(self, context, attachment_id):
            deletes.append(attachment_id)
            super().attachment_delete(context, attachment_id)

    api = CountingCinder()
    monkeypatch.setattr(volumes, "volume_api", lambda: api)
    source, current = _switched(monkeypatch, api)
    lm_volumes.rollback_volumes(types.SimpleNamespace(host="src"),
                                ComputeRPC(cinder=api), None,
                                types.SimpleNamespace(uuid="i"), "dst",
                                source)
    assert deletes == ["new-v1", "new-v2"]
    assert api.attachments == {}


def test_rollback_with_a_destination_before_6_3_deletes_on_the_source(
        monkeypatch, cinder):
    source, current = _switched(monkeypatch, cinder)
    rpc = ComputeRPC(cinder=cinder, version_cap="6.2")
    lm_volumes.rollback_volumes(types.SimpleNamespace(host="src"), rpc,
                                None, types.SimpleNamespace(uuid="i"),
                                "dst", source)
    assert rpc.removed == [("v1", "dst", None), ("v2", "dst", None)]
    assert [b.attachment_id for b in current] == ["old-v1", "old-v2"]
    assert cinder.attachments == {}


def test_rollback_restores_the_source_when_the_destination_fails(
        monkeypatch, cinder):
    source, current = _switched(monkeypatch, cinder)
    rpc = ComputeRPC(fail=True, cinder=cinder)
    lm_volumes.rollback_volumes(types.SimpleNamespace(host="src"), rpc,
                                None, types.SimpleNamespace(uuid="i"),
                                "dst", source)
    assert len(rpc.removed) == 2
    assert [(b.attachment_id, b.connection_info) for b in current] == [
        ("old-v1", '{"old": true}'), ("old-v2", '{"old": true}')]
    # The destination never deleted them: the source does.
    assert cinder.attachments == {}
