"""A Kubernetes + KubeVirt API simulator served over loopback HTTP, for tests and demos."""
from .sim import KubeSim

__all__ = ["KubeSim"]
