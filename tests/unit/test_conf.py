"""Configuration: a nova.conf runs unchanged; bad files and values stop cleanly."""
import subprocess
import sys
import textwrap

import pytest
from oslo_config import cfg

from keel import conf as keel_conf
from keel.cmd import common


def _fresh_conf():
    conf = cfg.ConfigOpts()
    keel_conf.register_all(conf)
    return conf


def _write(tmp_path, text, name="nova.conf"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


UPSTREAM_NOVA_CONF = """
[DEFAULT]
host = compute-7
transport_url = rabbit://nova:secret@rabbit.example:5672/
my_ip = 10.0.0.7
report_interval = 5
service_down_time = 30
long_rpc_timeout = 900
cpu_allocation_ratio = 8.0
reserved_host_memory_mb = 2048
compute_driver = libvirt.LibvirtDriver
instances_path = /var/lib/nova/instances
use_neutron = True

[api_database]
connection = mysql+pymysql://nova:pw@db/nova_api

[database]
connection = mysql+pymysql://nova:pw@db/nova
max_pool_size = 20

[upgrade_levels]
compute = auto

[placement]
auth_type = password
auth_url = http://keystone:5000/v3
username = placement
password = pw
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = RegionOne

[libvirt]
virt_type = kvm
"""


def test_upstream_nova_conf_is_read_unchanged(tmp_path):
    conf = _fresh_conf()
    path = _write(tmp_path, UPSTREAM_NOVA_CONF)
    common.parse_args(["--config-file", path], "keel-test", conf=conf,
                      default_config_files=[], setup_logging=False)
    assert conf.host == "compute-7"
    assert conf.report_interval == 5
    assert conf.service_down_time == 30
    assert conf.long_rpc_timeout == 900
    assert conf.cpu_allocation_ratio == 8.0
    assert conf.reserved_host_memory_mb == 2048
    assert conf.api_database.connection.endswith("/nova_api")
    assert conf.database.max_pool_size == 20
    assert conf.upgrade_levels.compute == "auto"
    assert conf.placement.auth_type == "password"
    assert conf.placement.region_name == "RegionOne"


def test_defaults_are_novas():
    conf = _fresh_conf()
    conf([], project="nova", default_config_files=[])
    assert conf.report_interval == 10
    assert conf.service_down_time == 60
    assert conf.long_rpc_timeout == 1800
    assert conf.osapi_compute_listen_port == 8774
    assert conf.metadata_listen_port == 8775
    assert conf.reserved_host_memory_mb == 512
    assert conf.initial_cpu_allocation_ratio == 4.0
    assert conf.placement.service_type == "placement"


def test_config_dir_is_read(tmp_path):
    conf = _fresh_conf()
    d = tmp_path / "nova.conf.d"
    d.mkdir()
    (d / "10-host.conf").write_text("[DEFAULT]\nhost = from-dir\n")
    common.parse_args(["--config-dir", str(d)], "keel-test", conf=conf,
                      default_config_files=[], setup_logging=False)
    assert conf.host == "from-dir"


def test_malformed_file_exits_2_naming_the_file(tmp_path, capsys):
    conf = _fresh_conf()
    path = _write(tmp_path, "[DEFAULT\nhost = x\n", name="broken.conf")
    with pytest.raises(SystemExit) as exc:
        common.parse_args(["--config-file", path], "keel-test", conf=conf,
                          default_config_files=[], setup_logging=False)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "broken.conf" in err


def test_bad_value_exits_2_naming_the_option(tmp_path, capsys):
    conf = _fresh_conf()
    path = _write(tmp_path, "[DEFAULT]\nreport_interval = often\n",
                  name="badvalue.conf")
    with pytest.raises(SystemExit) as exc:
        common.parse_args(["--config-file", path], "keel-test", conf=conf,
                          default_config_files=[], setup_logging=False)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "report_interval" in err


def test_missing_config_file_exits_2(tmp_path, capsys):
    conf = _fresh_conf()
    with pytest.raises(SystemExit) as exc:
        common.parse_args(["--config-file", str(tmp_path / "nope.conf")],
                          "keel-test", conf=conf, default_config_files=[],
                          setup_logging=False)
    assert exc.value.code == 2
    assert "nope.conf" in capsys.readouterr().err


def test_keel_command_rejects_bad_config_without_traceback(tmp_path):
    path = _write(tmp_path, "[DEFAULT]\nservice_down_time = -1\n",
                  name="neg.conf")
    proc = subprocess.run(
        [sys.executable, "-m", "keel.cmd.main", "conductor",
         "--config-file", path],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "service_down_time" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_sample_config_generated_from_entry_points(tmp_path):
    out = tmp_path / "nova.conf.sample"
    proc = subprocess.run(
        [sys.executable, "-m", "oslo_config.generator",
         "--namespace", "keel", "--namespace", "oslo.messaging",
         "--output-file", str(out)],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    for needle in ("[api_database]", "[placement]", "[upgrade_levels]",
                   "#report_interval = 10", "#service_down_time = 60",
                   "#long_rpc_timeout = 1800", "#transport_url",
                   "#control_exchange = nova"):
        assert needle in text, needle


def test_two_configurations_do_not_share_overrides():
    # oslo.config copies a registered OptGroup shallowly; a module-level
    # group object would make every ConfigOpts share one option table.
    first, second = _fresh_conf(), _fresh_conf()
    first([], project="nova", default_config_files=[])
    second([], project="nova", default_config_files=[])
    for group, name, value in (("placement", "auth_type", "none"),
                               ("api_database", "connection", "sqlite://"),
                               ("upgrade_levels", "compute", "auto"),
                               ("database", "connection", "sqlite://")):
        first.set_override(name, value, group=group)
        assert getattr(getattr(second, group), name) != value, group
