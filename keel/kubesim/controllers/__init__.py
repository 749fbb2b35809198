"""Simulated cluster controllers, each advancing its objects by at most one phase per step.

Order matters only for latency, never for correctness: each controller reads the store afresh.
"""
from .datavolume import DataVolumeController
from .gc import GarbageCollector, NamespaceController
from .migration import MigrationController
from .snapshot import ExportController, SnapshotController
from .vm import VMController, VMStatusController
from .vmi import VMIController
from .volumes import VolumeController


def build(sim):
    return [GarbageCollector(sim), NamespaceController(sim), VMController(sim),
            DataVolumeController(sim), VolumeController(sim), VMIController(sim),
            MigrationController(sim),
            SnapshotController(sim), ExportController(sim),
            # VM status again, so printableStatus reflects this step's VMI changes.
            VMStatusController(sim)]
