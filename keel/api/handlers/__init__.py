"""One module per API resource; schemas/ and policies/ pair with them by name."""
