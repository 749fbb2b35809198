"""nova-compute: the per-host service (ComputeManager 6.5) and its client."""
