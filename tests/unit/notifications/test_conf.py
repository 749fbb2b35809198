"""[notifications] options: Nova's names, defaults and choices, read from a
nova.conf-style file."""
from oslo_config import cfg
import pytest

from keel.conf import notifications as conf_mod


def _conf(tmp_path, text=""):
    path = tmp_path / "nova.conf"
    path.write_text(text)
    conf = cfg.ConfigOpts()
    conf_mod.register_opts(conf)
    conf(["--config-file", str(path)], project="nova")
    return conf


def test_defaults(tmp_path):
    conf = _conf(tmp_path)
    n = conf.notifications
    assert n.notification_format == "unversioned"
    assert n.notify_on_state_change is None
    assert n.default_level == "INFO"
    assert n.versioned_notifications_topics == ["versioned_notifications"]
    assert n.bdms_in_notifications is False
    assert n.include_share_mapping is False
    assert conf.oslo_messaging_notifications.driver == []
    assert conf.oslo_messaging_notifications.topics == ["notifications"]
    assert conf.instance_usage_audit_period == "month"


def test_nova_conf_file(tmp_path):
    conf = _conf(tmp_path, """
[DEFAULT]
instance_usage_audit_period = day@3
[notifications]
notification_format = both
notify_on_state_change = vm_and_task_state
versioned_notifications_topics = versioned_notifications,billing
[oslo_messaging_notifications]
driver = messagingv2
""")
    assert conf.notifications.notification_format == "both"
    assert conf.notifications.notify_on_state_change == "vm_and_task_state"
    assert conf.notifications.versioned_notifications_topics == [
        "versioned_notifications", "billing"]
    assert conf.oslo_messaging_notifications.driver == ["messagingv2"]
    assert conf.instance_usage_audit_period == "day@3"


def test_old_default_group_names(tmp_path):
    conf = _conf(tmp_path, """
[DEFAULT]
notification_format = versioned
default_notification_level = ERROR
""")
    assert conf.notifications.notification_format == "versioned"
    assert conf.notifications.default_level == "ERROR"


def test_bad_choice_is_refused(tmp_path):
    conf = _conf(tmp_path, "[notifications]\nnotification_format = json\n")
    with pytest.raises(ValueError):
        conf.notifications.notification_format
