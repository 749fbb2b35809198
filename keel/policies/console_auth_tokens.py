"""GET /os-console-auth-tokens/{token}: admins (console proxies) only."""
from keel.policies import base

CONSOLE_AUTH_TOKENS = "os_compute_api:os-console-auth-tokens"

rules = [
    base.rule(CONSOLE_AUTH_TOKENS, base.ADMIN, "Show console connection "
              "information for a given console authentication token",
              [("GET", "/os-console-auth-tokens/{console_token}")]),
]


def list_rules():
    return rules
