"""JSON Schemas of request bodies and query strings, one module per resource.

Each module may declare ``UPSTREAM = {our_variable: "<module>.<variable>"}``
naming the upstream Nova schema it must accept and reject exactly like;
tests/unit/api/test_schema_parity.py checks those pairs, and every schema
wired to a route through keel.api.validation, against routes.json.
"""
