"""[notifications] options: Nova's names, choices and defaults.

oslo.messaging's own [oslo_messaging_notifications] options (driver,
topics, transport_url, retry) are registered here too, with the library's
option objects, so that ``keel.notifications`` can read them before any
notifier exists; they stay in the library's namespace for the sample config.
"""
from oslo_config import cfg
from oslo_messaging.notify import notifier as _om_notifier

GROUP = "notifications"

notifications_group = cfg.OptGroup(
    name=GROUP, title="Notifications options",
    help="State changes of instances and other resources are published on "
         "the message bus (legacy and versioned notifications).")

ALL = [
    cfg.StrOpt(
        "notify_on_state_change",
        choices=[
            (None, "no compute.instance.update notifications"),
            ("vm_state", "on vm_state transitions"),
            ("vm_and_task_state", "on vm_state and task_state transitions"),
        ],
        deprecated_group="DEFAULT",
        help="If set, send instance.update notifications on instance state "
             "changes."),
    cfg.StrOpt(
        "default_level", default="INFO",
        choices=("DEBUG", "INFO", "WARN", "ERROR", "CRITICAL"),
        deprecated_group="DEFAULT",
        deprecated_name="default_notification_level",
        help="Default notification level for outgoing notifications."),
    cfg.StrOpt(
        "notification_format", default="unversioned",
        choices=[
            ("both", "legacy unversioned and versioned notifications"),
            ("versioned", "only versioned notifications"),
            ("unversioned", "only legacy unversioned notifications"),
        ],
        deprecated_group="DEFAULT",
        help="Which notification format to emit. Notifications are off "
             "altogether when [oslo_messaging_notifications]/driver is "
             "empty or noop."),
    cfg.ListOpt(
        "versioned_notifications_topics",
        default=["versioned_notifications"],
        help="Topics the versioned notifications are sent to."),
    cfg.BoolOpt(
        "bdms_in_notifications", default=False,
        help="Include block device information in versioned notification "
             "payloads (may cost a database query)."),
    cfg.BoolOpt(
        "include_share_mapping", default=False,
        help="Include share mapping information in versioned notification "
             "payloads (may cost a database query)."),
]


# [DEFAULT] option used by notifications' audit periods (Nova's name).
DEFAULT_OPTS = [
    cfg.StrOpt(
        "instance_usage_audit_period", default="month",
        regex=r"^(hour|month|day|year)(@([0-9]+))?$",
        help="Time period to generate instance usages for: hour, day, "
             "month or year, optionally with an offset (month@15)."),
]


def register_opts(conf):
    conf.register_group(notifications_group)
    conf.register_opts(ALL, group=notifications_group)
    conf.register_opts(DEFAULT_OPTS)
    # The library's options, registered early (idempotent: same objects).
    conf.register_opts(_om_notifier._notifier_opts,
                       group="oslo_messaging_notifications")


def list_opts():
    return {GROUP: ALL, "DEFAULT": DEFAULT_OPTS}
