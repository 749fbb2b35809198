"""Lifecycle events a driver emits when a guest changes state on its own
(or as a result of an operation); the compute manager syncs power state
from them instead of polling every instance."""
import time

EVENT_LIFECYCLE_STARTED = 0
EVENT_LIFECYCLE_STOPPED = 1
EVENT_LIFECYCLE_PAUSED = 2
EVENT_LIFECYCLE_RESUMED = 3
EVENT_LIFECYCLE_SUSPENDED = 4
EVENT_LIFECYCLE_POSTCOPY_STARTED = 5
EVENT_LIFECYCLE_MIGRATION_COMPLETED = 6

NAMES = {
    EVENT_LIFECYCLE_STARTED: "Started",
    EVENT_LIFECYCLE_STOPPED: "Stopped",
    EVENT_LIFECYCLE_PAUSED: "Paused",
    EVENT_LIFECYCLE_RESUMED: "Resumed",
    EVENT_LIFECYCLE_SUSPENDED: "Suspended",
    EVENT_LIFECYCLE_POSTCOPY_STARTED: "Postcopy started",
    EVENT_LIFECYCLE_MIGRATION_COMPLETED: "Migration completed",
}


class Event(object):
    def __init__(self, timestamp=None):
        self.timestamp = timestamp or time.time()


class InstanceEvent(Event):
    def __init__(self, uuid, timestamp=None):
        super().__init__(timestamp)
        self.uuid = uuid


class LifecycleEvent(InstanceEvent):
    """``uuid`` went through ``transition`` (one of EVENT_LIFECYCLE_*)."""

    def __init__(self, uuid, transition, timestamp=None):
        super().__init__(uuid, timestamp)
        self.transition = transition

    def get_name(self):
        return NAMES.get(self.transition, "Unknown")

    def __repr__(self):
        return "<LifecycleEvent: %s, %s => %s>" % (
            self.timestamp, self.uuid, self.get_name())
