"""Host filters: each decides whether one host may take the request.

``[filter_scheduler]/enabled_filters`` names them (Nova's class names, in
order); ``available_filters`` lists the classes that may be enabled, where
``nova.scheduler.filters.all_filters`` means every built-in one.
"""
import logging

from keel import exception

LOG = logging.getLogger(__name__)

ALL_FILTERS_ALIAS = "nova.scheduler.filters.all_filters"


class BaseHostFilter:
    # Filters whose answer cannot change between the instances of one
    # multi-create request are run once (Nova's flag of the same name).
    run_filter_once_per_request = False

    @property
    def name(self):
        return type(self).__name__

    def host_passes(self, host_state, spec):
        raise NotImplementedError

    def applies(self, spec):
        """False when the request asks nothing of this filter: every host
        passes without being looked at."""
        return True

    def filter_all(self, host_states, spec):
        if not self.applies(spec):
            return list(host_states)
        return [h for h in host_states if self.host_passes(h, spec)]


def all_filters():
    from keel.scheduler.filters import affinity
    from keel.scheduler.filters import capabilities
    from keel.scheduler.filters import compute
    from keel.scheduler.filters import image_props

    classes = {}
    for mod in (affinity, capabilities, compute, image_props):
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, BaseHostFilter) \
                    and obj is not BaseHostFilter:
                classes[obj.__name__] = obj
    return classes


def load_filters(enabled, available=(ALL_FILTERS_ALIAS,)):
    """Instances of the enabled filters, in order."""
    known = all_filters()
    allowed = set()
    for entry in available or ():
        if entry == ALL_FILTERS_ALIAS:
            allowed |= set(known)
        else:
            allowed.add(entry.rsplit(".", 1)[-1])
    result = []
    for name in enabled:
        name = name.strip()
        if name not in known or name not in allowed:
            raise exception.SchedulerHostFilterNotFound(filter_name=name)
        result.append(known[name]())
    return result


def run_filters(filters, host_states, spec, index=0):
    """The hosts that pass every filter; logs which filter emptied the
    list (Nova's "Filter X returned 0 hosts")."""
    hosts = list(host_states)
    for flt in filters:
        if flt.run_filter_once_per_request and index > 0:
            continue
        before = len(hosts)
        hosts = flt.filter_all(hosts, spec)
        LOG.debug("Filter %s returned %d host(s) of %d", flt.name,
                  len(hosts), before)
        if not hosts:
            LOG.info("Filter %s returned 0 hosts", flt.name)
            break
    return hosts
