"""OpenKeel Compute: a Nova 34 compatible compute service with KubeVirt as hypervisor."""
