"""Entry points for oslo-config-generator (namespace ``keel``)."""
import collections

from keel import conf as keel_conf


def list_opts():
    """All of keel's own options, grouped, for the sample config generator."""
    grouped = collections.OrderedDict()
    for mod in keel_conf.group_modules():
        for group, opts in mod.list_opts().items():
            grouped.setdefault(group, []).extend(opts)
    return [(group, opts) for group, opts in grouped.items()]


def set_defaults():
    """Library defaults as Nova sets them (exchange ``nova``)."""
    from keel.conf import defaults
    defaults.set_library_defaults(keel_conf.CONF)
