"""os-volumes-attachments rules (Nova's names and defaults)."""
from keel.policies import base

ATTACHMENTS = "os_compute_api:os-volumes-attachments:%s"
_PATH = "/servers/{server_id}/os-volume_attachments"
R, M, A = base.PROJECT_READER_OR_ADMIN, base.PROJECT_MEMBER_OR_ADMIN, \
    base.ADMIN

rules = [
    base.rule(ATTACHMENTS % "index", R, "List volume attachments for an "
              "instance", [("GET", _PATH)]),
    base.rule(ATTACHMENTS % "create", M, "Attach a volume to an instance",
              [("POST", _PATH)]),
    base.rule(ATTACHMENTS % "show", R, "Show details of a volume attachment",
              [("GET", _PATH + "/{volume_id}")]),
    base.rule(ATTACHMENTS % "update", M, "Update a volume attachment "
              "(delete_on_termination)", [("PUT", _PATH + "/{volume_id}")]),
    base.rule(ATTACHMENTS % "swap", A, "Update a volume attachment with a "
              "different volume (swap)", [("PUT", _PATH + "/{volume_id}")]),
    base.rule(ATTACHMENTS % "delete", M, "Detach a volume from an instance",
              [("DELETE", _PATH + "/{volume_id}")]),
]


def list_rules():
    return rules
