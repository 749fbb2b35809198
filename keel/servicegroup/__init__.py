"""Service liveness: heartbeats into the services table and the ``is_up``
test every reader (API service list, scheduler host filter) applies."""
from keel.servicegroup.api import API  # noqa: F401
