"""GET /extensions: anyone may read the fixed extension list."""
from keel.policies import base

EXTENSIONS = "os_compute_api:extensions"

rules = [
    base.rule(EXTENSIONS, base.RULE_ANY, "List available extensions and "
              "show information for an extension.",
              [("GET", "/extensions"), ("GET", "/extensions/{extension_id}")]),
]


def list_rules():
    return rules
