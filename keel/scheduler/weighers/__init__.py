"""Host weighers: each scores the hosts that passed the filters.

Per weigher the raw values are normalised to [0, 1] over the hosts (the
lowest gets 0, the highest 1; all equal gives 0), multiplied by the
weigher's multiplier and summed; the best host has the highest total.
A multiplier can be overridden per host by the same-named metadata key of
its aggregates (the smallest value wins when several aggregates set it).
"""
import logging

from keel.conf import CONF

LOG = logging.getLogger(__name__)

ALL_WEIGHERS_ALIAS = "nova.scheduler.weights.all_weighers"


def normalize(values, minval=None, maxval=None):
    values = list(values)
    if not values:
        return []
    lo = min(values) if minval is None else minval
    hi = max(values) if maxval is None else maxval
    if lo == hi:
        return [0.0] * len(values)
    span = float(hi - lo)
    return [(v - lo) / span for v in values]


def aggregate_multiplier(host_state, key, default):
    found = []
    for agg in host_state.aggregates or []:
        value = (agg.metadata or {}).get(key)
        if value is None:
            continue
        try:
            found.append(float(value))
        except ValueError:
            LOG.warning("Could not decode %s=%r of aggregate %s", key, value,
                        getattr(agg, "name", "?"))
    return min(found) if found else default


class BaseHostWeigher:
    minval = None
    maxval = None
    option = None        # [filter_scheduler] option of the multiplier

    @property
    def name(self):
        return type(self).__name__

    def weight_multiplier(self, host_state, default=None):
        if default is None:
            default = getattr(CONF.filter_scheduler, self.option)
        if not host_state.aggregates:
            return default
        return aggregate_multiplier(host_state, self.option, default)

    def is_noop(self, spec):
        """True when every host would weigh the same (skip the weigher)."""
        return False

    def weigh(self, host_state, spec):
        raise NotImplementedError

    def weigh_all(self, host_states, spec):
        """The raw values of ``host_states`` (one call per request rather
        than one per host; the resource weighers read an attribute)."""
        return [self.weigh(h, spec) for h in host_states]


class _NoAggregates:
    """A host in no aggregate: its multiplier is the configured one."""
    aggregates = ()


class WeighedHost:
    def __init__(self, host_state, weight=0.0):
        self.obj = host_state
        self.weight = weight

    def __repr__(self):
        return "WeighedHost [host: %r, weight: %s]" % (self.obj, self.weight)


def all_weighers():
    from keel.scheduler.weighers import affinity
    from keel.scheduler.weighers import resources

    classes = {}
    for mod in (resources, affinity):
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, BaseHostWeigher) \
                    and not obj.__name__.startswith("_") \
                    and obj is not BaseHostWeigher:
                classes[obj.__name__] = obj
    return classes


def load_weighers(names):
    known = all_weighers()
    result = []
    for name in names:
        if name == ALL_WEIGHERS_ALIAS:
            result.extend(cls() for _, cls in sorted(known.items()))
            continue
        short = name.rsplit(".", 1)[-1]
        if short not in known:
            raise ValueError("Unknown weigher %s" % name)
        result.append(known[short]())
    return result


def _aggregate_keys(host_states):
    """The metadata keys of the aggregates the hosts are in."""
    # Most deployments put few hosts in aggregates: one C-level pass picks
    # the hosts that have any before the per-aggregate walk.
    in_aggs = [h.aggregates for h in host_states if h.aggregates]
    keys, seen = set(), set()
    for aggs in in_aggs:
        for agg in aggs:
            if id(agg) not in seen:
                seen.add(id(agg))
                keys.update(agg.metadata or ())
    return keys


def weigh_hosts(weighers, host_states, spec):
    """WeighedHosts sorted best first (ties keep the input order)."""
    hosts = list(host_states)
    totals, best_first = _weigh(weighers, hosts, spec)
    return [WeighedHost(hosts[i], totals[i]) for i in best_first]


def order_hosts(weighers, host_states, spec):
    """The hosts best first, as ``weigh_hosts`` orders them (without a
    WeighedHost per host: a decision needs only the order)."""
    hosts = list(host_states)
    _totals, best_first = _weigh(weighers, hosts, spec)
    return [hosts[i] for i in best_first]


def _weigh(weighers, hosts, spec):
    """(total weight per host, host indexes best first)."""
    totals = [0.0] * len(hosts)
    agg_keys = None
    for weigher in weighers:
        if weigher.is_noop(spec):
            continue
        default = getattr(CONF.filter_scheduler, weigher.option)
        if agg_keys is None:
            agg_keys = _aggregate_keys(hosts)
        per_host = weigher.option in agg_keys
        if not per_host and not default:
            continue        # every host would add 0
        raw = weigher.weigh_all(hosts, spec)
        if not raw:
            continue
        lo = min(raw) if weigher.minval is None else weigher.minval
        hi = max(raw) if weigher.maxval is None else weigher.maxval
        if lo == hi:
            continue        # all equal: every host normalises to 0
        if per_host:
            for i, norm in enumerate(normalize(raw, lo, hi)):
                if norm:
                    totals[i] += weigher.weight_multiplier(
                        hosts[i], default) * norm
            continue
        multiplier = weigher.weight_multiplier(_NoAggregates, default)
        # normalize() and the sum in one pass, the same arithmetic per host
        # (adding multiplier * 0.0 leaves a total as it is).
        span = float(hi - lo)
        totals = [total + multiplier * ((value - lo) / span)
                  for total, value in zip(totals, raw)]
    # Stable: equal weights keep the input order.
    best_first = sorted(range(len(hosts)), key=totals.__getitem__,
                        reverse=True)
    return totals, best_first
