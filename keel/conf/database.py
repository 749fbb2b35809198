"""[database] (cell database) and [api_database] options.

Both groups carry oslo.db's own option set, as Nova registers them, so
every oslo.db tunable of a nova.conf (max_pool_size, connection_recycle_time,
max_retries, ...) applies to keel unchanged.
"""
import copy

from oslo_config import cfg
from oslo_db import options as oslo_db_options

api_db_group = cfg.OptGroup("api_database", title="API Database Options")


def _api_db_opts():
    # A separate copy of each oslo.db option so the two groups do not share
    # option objects (oslo.config forbids registering one object twice with
    # different groups' defaults).
    return [copy.deepcopy(o) for o in oslo_db_options.database_opts]


_API_OPTS = _api_db_opts()


def register_opts(conf):
    oslo_db_options.set_defaults(conf)
    # A fresh OptGroup per ConfigOpts: register_group() copies the object
    # shallowly, so a shared module-level group would share its option
    # table (and every override) between configurations.
    conf.register_group(cfg.OptGroup(api_db_group.name,
                                      title=api_db_group.title))
    conf.register_opts(_API_OPTS, group=api_db_group.name)


def list_opts():
    return {"database": oslo_db_options.database_opts,
            api_db_group: _API_OPTS}
