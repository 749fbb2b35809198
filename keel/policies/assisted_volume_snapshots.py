"""os-assisted-volume-snapshots: called by Cinder (service role)."""
from keel.policies import base

SNAPSHOTS = "os_compute_api:os-assisted-volume-snapshots:%s"

rules = [
    base.rule(SNAPSHOTS % "create", base.SERVICE_ROLE,
              "Create an assisted volume snapshot",
              [("POST", "/os-assisted-volume-snapshots")]),
    base.rule(SNAPSHOTS % "delete", base.SERVICE_ROLE,
              "Delete an assisted volume snapshot",
              [("DELETE", "/os-assisted-volume-snapshots/{snapshot_id}")]),
]


def list_rules():
    return rules
