"""What a compute host has and reports: the resource tracker and the cached
view of its Placement resource-provider tree."""
