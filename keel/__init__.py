"""OpenKeel Compute: a Nova 34 compatible compute service with KubeVirt as hypervisor."""
import warnings

# eventlet is installed (oslo.service requires it) and futurist imports it
# to probe for green threads; keel does not run on it, so its deprecation
# warning at every start tells an operator nothing.
warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")

from oslo_service import backend as _service_backend  # noqa: E402
from oslo_service.backend import exceptions as _backend_errors  # noqa: E402

# keel runs on native threads, as Nova 34 does. oslo.service picks its
# backend the first time anything asks for one -- oslo.messaging does, at
# import -- and would pick eventlet; choose the threading one before that.
# (A program that chose eventlet before importing keel keeps it: keel uses
# only oslo.service's periodic tasks, which run on either.)
try:
    _service_backend.init_backend(_service_backend.BackendType.THREADING)
except _backend_errors.BackendAlreadySelected:
    pass
