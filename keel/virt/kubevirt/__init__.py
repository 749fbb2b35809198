"""The KubeVirt virt driver (``[DEFAULT]/compute_driver =
kubevirt.KubeVirtDriver``): guests as KubeVirt VirtualMachines."""
