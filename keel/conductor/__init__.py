"""nova-conductor: object proxy for computes (base API 3.0) and the
``compute_task`` namespace (1.26) for multi-host workflows."""
