import gc

from keel import gctune


def test_settle_freezes_start_up_heap_and_raises_young_threshold():
    before = gc.get_threshold()
    try:
        gctune.reset_for_tests()
        survivor = [["made before start-up ended"]]  # lists are always tracked
        assert any(o is survivor for o in gc.get_objects())
        gctune.settle()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[0] == gctune.YOUNG_THRESHOLD
        # A frozen object is no longer walked by collections ...
        assert not any(o is survivor for o in gc.get_objects())
        # ... but cyclic garbage made afterwards is still collected.
        cycle = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1
        # Settling again (more services starting) freezes the newcomers.
        late = [["made by a later service"]]
        gctune.settle()
        assert not any(o is late for o in gc.get_objects())
    finally:
        gctune.reset_for_tests()
        gc.set_threshold(*before)
