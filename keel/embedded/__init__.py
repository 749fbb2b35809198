"""Real OpenStack services that keel runs inside its own processes.

Only the all-in-one and the tests use this package; production deployments
point ``[placement]`` at an independently run Placement service.
"""
