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
    def __init__(self, fail=False):
        self.removed, self.fail = [], fail

    def remove_volume_connection(self, context, instance, volume_id, host,
                                 delete_attachment=False):
        self.removed.append((volume_id, host, delete_attachment))
        if self.fail:
            raise RuntimeError("destination unreachable")


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
    rpc = ComputeRPC()
    mgr = types.SimpleNamespace(host="src")
    lm_volumes.rollback_volumes(mgr, rpc, None,
                                types.SimpleNamespace(uuid="i"), dest,
                                source, pre_live_migration=pre)
    assert rpc.removed == ([("v1", "dst", False), ("v2", "dst", False)]
                           if asked else [])
    assert [b.attachment_id for b in current] == ["old-v1", "old-v2"]
    assert cinder.attachments == {}


def test_rollback_restores_the_source_when_the_destination_fails(
        monkeypatch, cinder):
    source, current = _switched(monkeypatch, cinder)
    rpc = ComputeRPC(fail=True)
    lm_volumes.rollback_volumes(types.SimpleNamespace(host="src"), rpc,
                                None, types.SimpleNamespace(uuid="i"),
                                "dst", source)
    assert len(rpc.removed) == 2
    assert [(b.attachment_id, b.connection_info) for b in current] == [
        ("old-v1", '{"old": true}'), ("old-v2", '{"old": true}')]
