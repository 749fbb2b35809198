"""The Compute API v2.1 service: middleware stack, routing, microversions.

Layout (Placement's model): ``deploy`` builds the WSGI stack, ``routes``
holds the one flat route table, ``handlers/`` one module per resource with
``schemas/`` and ``keel/policies/`` paired by name, ``views/`` response
builders. ``GET /openapi.json`` (no token) serves the OpenAPI 3.1 document
generated from the route table and the validation schemas (``openapi``).
"""
