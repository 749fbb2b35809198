"""One module per API resource; schemas/ and policies/ pair by name."""
