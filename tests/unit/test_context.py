"""RequestContext: the RPC frame's _context_* keys and cell targeting."""
from oslo_context import context as oslo_context

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


def _varied_contexts():
    import datetime

    yield context.RequestContext(user_id="u1", project_id="p1",
                                 roles=["member", "reader"],
                                 request_id="req-abc", read_deleted="yes")
    yield context.get_admin_context(read_deleted="only")
    yield context.get_context()
    yield context.RequestContext(
        user_id="u2", project_id="p2", is_admin=True, roles=["admin"],
        request_id="req-1", global_request_id="req-global",
        auth_token="tok", user_name="alice", project_name="proj",
        domain_id="d", user_domain_id="ud", project_domain_id="pd",
        remote_address="10.0.0.1", quota_class="gold",
        service_catalog=[{"type": "image", "endpoints": []}],
        read_only=True, show_deleted=True, resource_uuid="r",
        system_scope="all", is_admin_project=False,
        timestamp=datetime.datetime(2026, 1, 2, 3, 4, 5, 6))


def _dicts():
    for ctx in _varied_contexts():
        yield ctx.to_dict()
    # What other senders put in a frame: legacy keys, a missing request
    # id or timestamp, another timestamp form, admin as None.
    yield {"user": "legacy", "tenant": "t", "project_id": "p",
           "is_admin": None, "timestamp": "2026-01-02T03:04:05Z",
           "roles": None, "request_id": "req-x"}
    yield {"user_id": "u", "project_id": "p", "is_admin": 1}


def _state(ctx):
    values = dict(vars(ctx))
    values.pop("timestamp")
    return values


def test_from_dict_sets_what_the_init_chain_sets():
    for data in _dicts():
        fast = context.RequestContext.from_dict(dict(data))
        slow = context.RequestContext._from_dict_via_init(dict(data))
        if "request_id" not in data:
            assert fast.request_id.startswith("req-")
            assert slow.request_id.startswith("req-")
            fast.request_id = slow.request_id
        assert _state(fast) == _state(slow), data
        if data.get("timestamp"):
            assert fast.timestamp == slow.timestamp
        else:
            assert abs((fast.timestamp - slow.timestamp).total_seconds()) < 5
        if data.get("timestamp"):
            assert fast.to_dict() == slow.to_dict()
        assert type(fast) is context.RequestContext
        # The incoming context becomes the thread's current one (oslo's
        # store, what logging reads the request id from).
        again = context.RequestContext.from_dict(dict(data))
        assert oslo_context.get_current() is again


def test_from_dict_round_trips_to_dict():
    for ctx in _varied_contexts():
        data = ctx.to_dict()
        assert context.RequestContext.from_dict(data).to_dict() == data


def test_from_dict_refuses_an_unknown_read_deleted():
    data = context.get_context().to_dict()
    data["read_deleted"] = "maybe"
    for make in (context.RequestContext.from_dict,
                 context.RequestContext._from_dict_via_init):
        try:
            make(data)
        except ValueError:
            continue
        raise AssertionError("invalid read_deleted accepted")


def test_a_refused_context_does_not_become_the_current_one():
    """oslo's __init__ stores the context as the thread's current one, which
    oslo.log's formatter reads for every record: a context refused for a bad
    value must not be left there half-built (every later record of the
    thread would fail to format and be lost)."""
    before = oslo_context.get_current()
    try:
        good = context.RequestContext(request_id="req-good")
        data = context.get_context().to_dict()
        data["read_deleted"] = "maybe"
        for make in (
                lambda: context.RequestContext(read_deleted="maybe"),
                lambda: context.RequestContext(timestamp="not a time"),
                lambda: context.RequestContext.from_dict(data),
                lambda: context.RequestContext._from_dict_via_init(data)):
            try:
                make()
            except ValueError:
                pass
            else:
                raise AssertionError("a bad value was accepted")
            assert oslo_context.get_current() is good
        good.to_dict()  # what oslo.log's formatter calls
    finally:
        if before is None:
            oslo_context.clear()
        else:
            before.update_store()
