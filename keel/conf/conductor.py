"""[conductor]: the conductor service (Nova's names and defaults)."""
from oslo_config import cfg

group = cfg.OptGroup("conductor", title="Conductor options")

opts = [
    cfg.IntOpt("workers", min=0,
               help="Conductor worker processes (default: the CPU count)."),
    # Not a Nova option: Nova runs each cast on the RPC executor itself.
    cfg.IntOpt("build_threads", default=8, min=0,
               help="Threads per conductor worker process that run "
                    "schedule_and_build_instances. The RPC executor only "
                    "queues these casts for them, so the computes' calls "
                    "(which finish builds under way) never wait behind new "
                    "builds, and at most this many builds run at once per "
                    "process. Casts waiting for a thread are in memory "
                    "only, as they already are in the RPC executor: if the "
                    "process stops or dies, the safety net re-drives their "
                    "build requests. Most of a build waits for the "
                    "scheduler and the databases, so a few threads per core "
                    "keep builds flowing. 0 runs them on the RPC executor "
                    "threads (Nova's behaviour)."),
]


def register_opts(conf):
    conf.register_group(cfg.OptGroup(group.name, title=group.title))
    conf.register_opts(opts, group=group.name)


def list_opts():
    return {group: opts}
