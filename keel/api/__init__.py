"""The Compute API v2.1 service: middleware stack, routing, microversions."""
