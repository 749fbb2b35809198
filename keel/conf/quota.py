"""[quota] options: Nova's names and defaults for the count-based quotas."""
from oslo_config import cfg

GROUP = "quota"

DB_DRIVER = "nova.quota.DbQuotaDriver"
NOOP_DRIVER = "nova.quota.NoopQuotaDriver"


def _limit(name, default, text, deprecated=None):
    return cfg.IntOpt(name, default=default, min=-1,
                      deprecated_name=deprecated,
                      deprecated_group="DEFAULT" if deprecated else None,
                      help=f"{text} per project; -1 is unlimited.")


ALL = [
    _limit("instances", 10, "Instances", "quota_instances"),
    _limit("cores", 20, "Instance cores (vCPUs)", "quota_cores"),
    _limit("ram", 50 * 1024, "Megabytes of instance RAM", "quota_ram"),
    _limit("metadata_items", 128, "Metadata items of one instance",
           "quota_metadata_items"),
    _limit("injected_files", 5, "Injected files of one instance",
           "quota_injected_files"),
    _limit("injected_file_content_bytes", 10 * 1024,
           "Bytes of one injected file",
           "quota_injected_file_content_bytes"),
    _limit("injected_file_path_length", 255,
           "Characters of an injected file's path",
           "quota_injected_file_path_length"),
    _limit("key_pairs", 100, "Key pairs of one user", "quota_key_pairs"),
    _limit("server_groups", 10, "Server groups", "quota_server_groups"),
    _limit("server_group_members", 10, "Servers in one server group",
           "quota_server_group_members"),
    cfg.StrOpt("driver", default=DB_DRIVER,
               choices=[(DB_DRIVER, "Limits from the database, usage "
                                    "counted from the databases."),
                        (NOOP_DRIVER, "No quotas: everything unlimited.")],
               help="How quotas are stored and checked."),
    cfg.BoolOpt("recheck_quota", default=True,
                help="Count usage again after creating resources, to catch "
                     "races between parallel requests."),
    cfg.BoolOpt("count_usage_from_placement", default=False,
                help="Count cores and ram from Placement allocations "
                     "instead of the cell databases (not used by keel "
                     "yet: usage is counted from the databases)."),
]


def register_opts(conf):
    conf.register_opts(ALL, group=GROUP)


def list_opts():
    return {GROUP: ALL}
