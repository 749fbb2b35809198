"""Glance v2 documents <-> Nova's image dict (as nova.image.glance)."""
import datetime

from keel.image import convert
from keel.image import glance as image_glance

DOC = {
    "id": "i1", "name": "cirros", "status": "active", "visibility": "public",
    "protected": False, "os_hidden": False, "checksum": "abc",
    "os_hash_algo": "sha512", "os_hash_value": "def", "owner": "p1",
    "size": None, "virtual_size": 100, "container_format": "bare",
    "disk_format": "qcow2", "created_at": "2026-01-02T03:04:05Z",
    "updated_at": "2026-01-02T03:04:06Z", "tags": ["t"], "min_ram": 0,
    "min_disk": 1, "self": "/v2/images/i1", "file": "/v2/images/i1/file",
    "schema": "/v2/schemas/image", "direct_url": "rbd://pool/i1",
    "locations": [{"url": "file:///x", "metadata": {}}],
    "hw_disk_bus": "virtio", "mappings": '[{"device": "vda"}]',
}


def test_from_glance_nests_properties_and_converts():
    img = convert.from_glance(DOC)
    assert img["properties"] == {"hw_disk_bus": "virtio",
                                 "mappings": [{"device": "vda"}]}
    assert img["size"] == 0 and img["is_public"] is True
    assert img["visibility"] == "public" and img["deleted"] is False
    assert img["created_at"] == datetime.datetime(
        2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    for gone in ("self", "file", "schema", "tags", "virtual_size",
                 "protected", "locations", "direct_url"):
        assert gone not in img
    full = convert.from_glance(DOC, include_locations=True)
    assert full["locations"] == [{"url": "file:///x", "metadata": {}},
                                 {"url": "rbd://pool/i1", "metadata": {}}]


def test_to_glance_flattens_and_drops_read_only():
    img = convert.from_glance(DOC)
    img["properties"].update(kernel_id="None", ramdisk_id=None, count=3,
                             block_device_mapping=[{"boot_index": 0}])
    doc = convert.to_glance(img)
    for gone in ("id", "status", "size", "checksum", "created_at",
                 "updated_at", "deleted", "deleted_at", "is_public",
                 "kernel_id", "ramdisk_id", "properties"):
        assert gone not in doc
    assert doc["count"] == "3" and doc["hw_disk_bus"] == "virtio"
    assert doc["block_device_mapping"] == '[{"boot_index": 0}]'
    assert doc["visibility"] == "public" and doc["min_disk"] == 1
    assert convert.to_glance({"is_public": False}) == {
        "visibility": "private"}


def test_query_params_as_nova_translates_filters():
    params = image_glance.query_params({
        "filters": {"property-instance_uuid": "u1", "name": "n",
                    "changes-since": "2026-01-01T00:00:00Z",
                    "is_public": "none", "min_ram": "512"},
        "marker": "m", "page_size": 5, "limit": 3})
    assert params == {"instance_uuid": "u1", "name": "n",
                      "updated_at": "gte:2026-01-01T00:00:00Z",
                      "min_ram": "512", "marker": "m", "page_size": 5}
