"""Hypervisor drivers: the contract (``driver.ComputeDriver``), the fake
driver that simulates hosts, and (later) the KubeVirt driver.

``virt`` talks to hypervisors only: it imports neither keel's database nor
its API, and reaches Placement only through the provider tree it is handed.
"""
