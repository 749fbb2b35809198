"""The all-in-one: every keel service in one process, no outside services.

Same code as production, wired differently: SQLite databases in a state
directory, oslo.messaging's in-process transport, the real Placement served
in-process, development authentication, simulated compute hosts.
"""
