"""nova-scheduler: SchedulerManager (4.5) and its client."""
