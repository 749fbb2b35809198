"""Clients keel uses to talk to other OpenStack services.

``placement.PlacementClient`` is the thin REST layer over a keystoneauth1
Adapter; ``report.ReportClient`` adds the provider-tree cache and the
higher-level operations the resource tracker and the scheduler use.
"""
