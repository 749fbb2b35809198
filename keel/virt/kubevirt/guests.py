"""Our guests as the watches see them: power state and lifecycle events.

Two informers (VirtualMachines and VirtualMachineInstances, both selected
by our labels) share one condition, so an operation can wait for a
predicate over a VM and its VMI together, without any polling.  Each change
recomputes the guest's power state; a change between settled states
(NOSTATE is "in between") becomes a Nova lifecycle event.
"""
import logging
import threading
import time

from keel.virt import event as virtevent
from keel.virt import power_state
from keel.virt.kubevirt import kube
from keel.virt.kubevirt import status
from keel.virt.kubevirt import watch
from keel.virt.kubevirt.spec import labels

LOG = logging.getLogger(__name__)


class Guests(object):
    def __init__(self, kube_client, host, emit_event, retry_interval=1.0):
        self.cond = threading.Condition()
        selector = labels.selector(host)
        self.vms = watch.Informer(kube_client, kube.VM, selector,
                                  handler=self._on_change,
                                  retry_interval=retry_interval,
                                  cond=self.cond)
        self.vmis = watch.Informer(kube_client, kube.VMI, selector,
                                   handler=self._on_change,
                                   retry_interval=retry_interval,
                                   cond=self.cond)
        # Golden image DataVolumes (image cache namespace), for builds that
        # wait on an import.
        self.images = watch.Informer(
            kube_client, kube.DATAVOLUME, labels.IMAGE_SELECTOR,
            retry_interval=retry_interval, cond=self.cond,
            namespace=kube_client.image_namespace)
        self._emit_event = emit_event
        self._settled = {}
        self._lock = threading.Lock()
        self._started = False

    def start(self):
        # The initial lists fill the cache silently: the compute manager
        # syncs power states itself at start-up.
        self.images.start()
        self.vms.start()
        self.vmis.start()
        with self._lock:
            for name in set(self.vms.names()) | set(self.vmis.names()):
                state = self.state(name)
                if state not in (None, power_state.NOSTATE):
                    self._settled[name] = state
            self._started = True

    def stop(self):
        self.vms.stop()
        self.vmis.stop()
        self.images.stop()

    # -- reading --------------------------------------------------------------
    def vm(self, uuid):
        return self.vms.get(uuid)

    def vmi(self, uuid):
        return self.vmis.get(uuid)

    def state(self, uuid):
        """The guest's power state, or None when there is no such guest."""
        vm, vmi = self.vms.get(uuid), self.vmis.get(uuid)
        if vm is None and vmi is None:
            return None
        return status.power_state_of(vm, vmi)

    def uuids(self):
        return self.vms.names()

    def wait(self, predicate, timeout):
        """Block until ``predicate()`` (re-evaluated on every watched
        change) is truthy; its value, or None on timeout."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 1.0))

    # -- events ---------------------------------------------------------------
    def _on_change(self, etype, old, new):
        uuid = (new or old)["metadata"]["name"]
        state = self.state(uuid)
        with self._lock:
            if not self._started:
                return
            last = self._settled.get(uuid)
            if state is None:
                # Gone (deleted by us or behind our back): a running guest
                # stopped; Nova's power sync then notices it is missing.
                self._settled.pop(uuid, None)
                transition = status.transition(last, power_state.SHUTDOWN)
            elif state == power_state.NOSTATE:
                return
            else:
                self._settled[uuid] = state
                transition = status.transition(last, state)
            # Emitted under the lock: the VM and VMI watch threads must not
            # reorder one guest's events.
            if transition is not None:
                LOG.debug("Guest %s: %s", uuid,
                          virtevent.NAMES.get(transition))
                self._emit_event(virtevent.LifecycleEvent(uuid, transition))
