"""[DEFAULT] options, with Nova's names and defaults."""
import socket

from oslo_config import cfg

service_opts = [
    cfg.HostAddressOpt("host", default=socket.gethostname(),
                       sample_default="<current_hostname>",
                       help="Name of this node: the compute host name, the "
                            "RPC server name and the services table key."),
    cfg.StrOpt("state_path", default="/var/lib/nova",
               help="Top-level directory for maintaining state."),
    cfg.StrOpt("my_ip", default="127.0.0.1",
               help="IP address of this host."),
    cfg.IntOpt("report_interval", default=10, min=1,
               help="Seconds between service heartbeats to the database."),
    cfg.IntOpt("service_down_time", default=60, min=1,
               help="Maximum seconds since the last heartbeat for a "
                    "service to be considered up."),
    cfg.BoolOpt("periodic_enable", default=True,
                help="Enable periodic tasks."),
    cfg.IntOpt("periodic_fuzzy_delay", default=60, min=0,
               help="Random delay (seconds) before the first periodic task."),
    cfg.IntOpt("long_rpc_timeout", default=1800,
               help="Timeout for long-running RPC calls "
                    "(select_destinations, migrate_server, ...)."),
    cfg.ListOpt("enabled_apis", item_type=cfg.types.String(
                    choices=["osapi_compute", "metadata"]),
                default=["osapi_compute", "metadata"],
                help="APIs to enable by default."),
    cfg.StrOpt("osapi_compute_listen", default="0.0.0.0",
               help="IP address the compute API listens on."),
    cfg.PortOpt("osapi_compute_listen_port", default=8774,
                help="Port the compute API listens on."),
    cfg.IntOpt("osapi_compute_workers", min=1,
               help="Number of API worker processes (default: CPU count)."),
    cfg.StrOpt("metadata_listen", default="0.0.0.0",
               help="IP address the metadata API listens on."),
    cfg.PortOpt("metadata_listen_port", default=8775,
                help="Port the metadata API listens on."),
    cfg.IntOpt("metadata_workers", min=1,
               help="Number of metadata API worker processes."),
    cfg.IntOpt("graceful_shutdown_timeout", default=180, min=0,
               help="Seconds to wait for in-flight work on SIGTERM "
                    "(0 waits forever)."),
    cfg.StrOpt("compute_driver", default="fake.FakeDriver",
               help="Virt driver: fake.FakeDriver or kubevirt.KubeVirtDriver."),
    cfg.IntOpt("reclaim_instance_interval", default=0,
               help="Interval in seconds for reclaiming soft-deleted "
                    "instances; 0 disables soft delete."),
    cfg.StrOpt("default_availability_zone", default="nova",
               help="Availability zone of compute hosts not in an "
                    "aggregate with an availability zone."),
    cfg.StrOpt("default_schedule_zone",
               help="Default availability zone for servers that ask none."),
    cfg.StrOpt("internal_service_availability_zone", default="internal",
               help="Availability zone of non-compute services."),
    cfg.IntOpt("max_concurrent_builds", default=10, min=0,
               help="Maximum parallel builds on one compute (0 = unlimited)."),
    cfg.StrOpt("instance_name_template", default="instance-%08x",
               help="Template for instance names."),
    cfg.IntOpt("max_local_block_devices", default=3,
               help="Maximum number of local disks (image, ephemeral, "
                    "swap) a server may be created with; negative means "
                    "unlimited, 0 allows only volume-backed servers."),
]

allocation_opts = [
    cfg.FloatOpt("cpu_allocation_ratio", min=0.0,
                 help="Virtual CPU to physical CPU allocation ratio."),
    cfg.FloatOpt("ram_allocation_ratio", min=0.0,
                 help="Virtual RAM to physical RAM allocation ratio."),
    cfg.FloatOpt("disk_allocation_ratio", min=0.0,
                 help="Virtual disk to physical disk allocation ratio."),
    cfg.FloatOpt("initial_cpu_allocation_ratio", default=4.0, min=0.0,
                 help="CPU allocation ratio of a new compute node when "
                      "cpu_allocation_ratio is unset."),
    cfg.FloatOpt("initial_ram_allocation_ratio", default=1.0, min=0.0,
                 help="RAM allocation ratio of a new compute node when "
                      "ram_allocation_ratio is unset."),
    cfg.FloatOpt("initial_disk_allocation_ratio", default=1.0, min=0.0,
                 help="Disk allocation ratio of a new compute node when "
                      "disk_allocation_ratio is unset."),
    cfg.IntOpt("reserved_host_disk_mb", default=0, min=0,
               help="Disk (MB) kept back for the host (DISK_GB reserved)."),
    cfg.IntOpt("reserved_host_memory_mb", default=512, min=0,
               help="Memory (MB) kept back for the host (MEMORY_MB reserved)."),
    cfg.IntOpt("reserved_host_cpus", default=0, min=0,
               help="Host CPUs kept back for the host (VCPU reserved)."),
]

ALL = service_opts + allocation_opts


def register_opts(conf):
    conf.register_opts(ALL)


def list_opts():
    return {"DEFAULT": ALL}
