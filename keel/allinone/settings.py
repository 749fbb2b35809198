"""Configuration overrides that turn a production CONF into the all-in-one's."""
import os

# keel's in-process oslo.messaging driver (keel.rpc.inproc): every service
# of the process shares one bus and its listeners sleep until a message
# comes (oslo.messaging's fake:/ polls every 50 ms per listener).
IN_PROCESS_TRANSPORT = "keel-inproc:/"


def sqlite_url(state_dir, name):
    return f"sqlite:///{os.path.join(os.path.abspath(state_dir), name)}"


class Layout:
    """Where the all-in-one keeps its state and listens."""

    def __init__(self, state_dir, listen="127.0.0.1", api_port=8774,
                 placement_port=8778, hosts=1, host_base=None):
        self.state_dir = os.path.abspath(state_dir)
        self.listen = listen
        self.api_port = api_port
        self.placement_port = placement_port
        self.hosts = hosts
        self.host_base = host_base
        self.kubevirt = False

    @property
    def api_db(self):
        return sqlite_url(self.state_dir, "nova_api.sqlite")

    @property
    def cell0_db(self):
        return sqlite_url(self.state_dir, "nova_cell0.sqlite")

    @property
    def cell1_db(self):
        return sqlite_url(self.state_dir, "nova_cell1.sqlite")

    @property
    def placement_db(self):
        return sqlite_url(self.state_dir, "placement.sqlite")

    @property
    def image_catalogue(self):
        return os.path.join(self.state_dir, "images")

    @property
    def config_file(self):
        """Written on every start (see write_config) so that ``keel manage
        --config-file <state-dir>/all-in-one.conf ...`` reaches the same
        databases and image catalogue."""
        return os.path.join(self.state_dir, "all-in-one.conf")

    def url(self, port, path=""):
        host = self.listen if self.listen not in ("0.0.0.0", "::") \
            else "127.0.0.1"
        return f"http://{host}:{port}{path}"


def apply(conf, layout, placement_endpoint):
    """Point ``conf`` at the all-in-one's databases, bus and endpoints.

    Values an operator set in a config file for the all-in-one are kept
    where they do not conflict with the wiring (ratios, reserved amounts,
    [fake_driver] resources, quotas ...).
    """
    conf.set_override("connection", layout.api_db, group="api_database")
    conf.set_override("connection", layout.cell1_db, group="database")
    conf.set_override("transport_url", IN_PROCESS_TRANSPORT)
    conf.set_override("state_path", layout.state_dir)
    if layout.host_base:
        conf.set_override("host", layout.host_base)
    conf.set_override("auth_strategy", "keel-development", group="api")
    conf.set_override("osapi_compute_listen", layout.listen)
    conf.set_override("osapi_compute_listen_port", layout.api_port)
    conf.set_override("auth_type", "none", group="placement")
    conf.set_override("endpoint_override", placement_endpoint,
                      group="placement")
    # periodic_fuzzy_delay keeps Nova's default (60 s, or the operator's
    # value): with 0 the simulated hosts ran their periodic tasks in step,
    # a burst of resource audits every minute in the one process. Compute
    # start-up does not wait for it (init_host audits at once).
    # No Glance: images come from the local catalogue, unless the operator
    # configured [glance] (keel.image.api decides).
    if not conf.image_catalogue.path:
        conf.set_override("path", layout.image_catalogue,
                          group="image_catalogue")


def use_image_endpoint(conf, endpoint):
    """Point links and KubeVirt's image imports at the all-in-one's image
    endpoint, unless the operator chose other URLs."""
    if not conf.api.glance_link_prefix:
        conf.set_override("glance_link_prefix", endpoint, group="api")
    from keel.conf import kubevirt as kubevirt_conf
    opt_default = next(o.default for o in kubevirt_conf.opts
                       if o.name == "glance_image_url")
    if conf.kubevirt.glance_image_url == opt_default:
        conf.set_override("glance_image_url",
                          endpoint + "/v2/images/{image_id}/file",
                          group="kubevirt")


def write_config(conf, layout):
    """The wiring of this state directory as a config file for ``keel
    manage`` (rewritten on each start; edits to it are not read back)."""
    lines = [
        "# Written by keel all-in-one on each start; for keel manage:",
        "#   keel manage --config-file %s image list" % layout.config_file,
        "[api_database]", "connection = %s" % layout.api_db,
        "[database]", "connection = %s" % layout.cell1_db,
    ]
    if conf.image_catalogue.path:
        lines += ["[image_catalogue]",
                  "path = %s" % conf.image_catalogue.path]
    tmp = layout.config_file + ".tmp"
    with open(tmp, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    os.replace(tmp, layout.config_file)


def use_kubevirt(conf, layout, kubeconfig):
    """Guests on KubeVirt: one compute service for the whole cluster; its
    driver exposes one compute node per schedulable Kubernetes node."""
    conf.set_override("compute_driver", "kubevirt.KubeVirtDriver")
    conf.set_override("kubeconfig", os.path.abspath(kubeconfig),
                      group="kubevirt")
    layout.hosts = 1
    layout.kubevirt = True
