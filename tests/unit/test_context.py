"""RequestContext: the RPC frame's _context_* keys and cell targeting."""
from keel import context


def test_round_trip_keeps_nova_keys():
    ctx = context.RequestContext(user_id="u1", project_id="p1",
                                 roles=["member", "reader"],
                                 request_id="req-abc", read_deleted="yes")
    data = ctx.to_dict()
    for key in ("user_id", "project_id", "roles", "request_id",
                "global_request_id", "is_admin", "read_deleted",
                "timestamp", "service_catalog", "auth_token"):
        assert key in data, key
    back = context.RequestContext.from_dict(data)
    assert back.user_id == "u1"
    assert back.project_id == "p1"
    assert back.roles == ["member", "reader"]
    assert back.request_id == "req-abc"
    assert back.read_deleted == "yes"
    assert back.timestamp == ctx.timestamp


def test_read_deleted_is_validated():
    ctx = context.get_context()
    try:
        ctx.read_deleted = "maybe"
    except ValueError as exc:
        assert "maybe" in str(exc)
    else:
        raise AssertionError("invalid read_deleted accepted")


def test_elevated_is_admin_copy():
    ctx = context.RequestContext(user_id="u", project_id="p",
                                 roles=["reader"])
    adm = ctx.elevated()
    assert adm.is_admin and "admin" in adm.roles
    assert not ctx.is_admin and ctx.roles == ["reader"]


class _Cell:
    def __init__(self, uuid, db, mq=None):
        self.uuid = uuid
        self.database_connection = db
        self.transport_url = mq


def test_target_cell_targets_a_copy(tmp_path):
    ctx = context.get_admin_context()
    cell = _Cell("c1", f"sqlite:///{tmp_path}/c1.db", mq="none:///")
    with context.target_cell(ctx, cell) as cctx:
        assert cctx.cell_uuid == "c1"
        assert cctx.db_connection is not None
        assert cctx.mq_connection is None
    assert ctx.db_connection is None and ctx.cell_uuid is None


def test_timestamp_text_forms_parse_as_before():
    import datetime

    from oslo_utils import timeutils

    from keel.context import _parse_timestamp
    for text in ("2026-11-29T18:49:24.848008", "2026-11-29T18:49:24",
                 "2026-11-29T18:49:24Z", "2026-11-29T18:49:24.5+02:00",
                 "2026-11-29 18:49:24.848008", "20261129T184924Z"):
        assert _parse_timestamp(text) == timeutils.parse_isotime(
            text).replace(tzinfo=None), text
    assert _parse_timestamp("2026-11-29T18:49:24.848008") == \
        datetime.datetime(2026, 11, 29, 18, 49, 24, 848008)
