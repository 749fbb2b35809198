"""ProviderTree: the cache that decides whether Placement needs a write."""
import pytest

from keel.compute.resources import provider_tree as pt


def test_inventory_change_detection_ignores_placement_defaults():
    tree = pt.ProviderTree()
    tree.new_root("node1", "u1", generation=3)
    assert tree.update_inventory("u1", {"VCPU": {"total": 4}}) is True
    assert not tree.has_inventory_changed(
        "u1", {"VCPU": {"total": 4, "reserved": 0, "min_unit": 1,
                        "max_unit": 4, "step_size": 1,
                        "allocation_ratio": 1}})
    assert tree.has_inventory_changed("u1", {"VCPU": {"total": 5}})
    assert tree.has_inventory_changed("u1", {})
    assert tree.data("u1").generation == 3


def test_children_order_copy_and_remove():
    tree = pt.ProviderTree()
    tree.new_root("node1", "root")
    child = tree.new_child("node1_gpu", "node1", uuid="c1")
    tree.new_child("node1_gpu_vf", child, uuid="c2")
    assert tree.get_provider_uuids() == ["root", "c1", "c2"]
    assert tree.data("c2").root_uuid == "root"
    dup = tree.copy()
    dup.add_traits("c1", "CUSTOM_X")
    assert not tree.has_traits("c1", ["CUSTOM_X"])   # copies are deep
    with pytest.raises(ValueError):
        tree.new_root("node1", "other")              # names are unique
    tree.remove("c1")
    assert tree.get_provider_uuids() == ["root"]


def test_traits_and_aggregates_tracking():
    tree = pt.ProviderTree()
    tree.new_root("n", "u")
    assert tree.update_traits("u", {"A", "B"}, generation=7)
    assert not tree.have_traits_changed("u", ["B", "A"])
    tree.remove_traits("u", "A")
    assert tree.data("u").traits == {"B"}
    assert tree.update_aggregates("u", ["agg1"])
    assert not tree.have_aggregates_changed("u", {"agg1"})
    assert tree.data("u").generation == 7
