"""The quota engine the boot pipeline calls: check_deltas/limit_check
against counts from the cell and API databases."""
import pytest

from keel.compute_api import quota
from keel import context as keel_context
from keel import exception
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.unit.api.conftest import conf  # noqa: F401
from tests.unit.api.resources.test_quotas import add_group
from tests.unit.api.resources.test_quotas import add_instance


@pytest.fixture
def ctx(cells_db):
    return keel_context.get_admin_context()


def test_check_deltas_counts_every_cell(ctx, cells_db):
    for url in cells_db.cell_urls.values():
        add_instance(url, project_id="p", user_id="u", vcpus=4,
                     memory_mb=1000)
    quota.set_limit(ctx, "p", "instances", 3)
    quota.check_deltas(ctx, {"instances": 1, "cores": 4, "ram": 1000},
                       "p", user_id="u")
    with pytest.raises(exception.OverQuota) as err:
        quota.check_deltas(ctx, {"instances": 2, "cores": 12}, "p")
    assert err.value.kwargs["overs"] == ["instances"]
    assert err.value.kwargs["usages"] == {"instances": 2}
    assert "instances" in err.value.format_message()


def test_user_limit_applies_to_the_users_own_usage(ctx, cells_db):
    url = cells_db.cell_urls[list(cells_db.cell_urls)[1]]
    add_instance(url, project_id="p", user_id="other")
    add_instance(url, project_id="p", user_id="u")
    quota.set_limit(ctx, "p", "instances", 2, user_id="u")
    quota.check_deltas(ctx, {"instances": 1}, "p", user_id="u")
    quota.set_limit(ctx, "p", "instances", 1, user_id="u")
    with pytest.raises(exception.OverQuota):
        quota.check_deltas(ctx, {"instances": 1}, "p", user_id="u")
    # the project as a whole still has room (10 by default)
    quota.check_deltas(ctx, {"instances": 1}, "p")


def test_server_groups_and_unlimited(ctx):
    add_group(project_id="p")
    quota.set_limit(ctx, "p", "server_groups", 1)
    with pytest.raises(exception.OverQuota):
        quota.check_deltas(ctx, {"server_groups": 1}, "p")
    quota.set_limit(ctx, "p", "server_groups", -1)
    quota.check_deltas(ctx, {"server_groups": 100}, "p")


def test_limit_check_and_unknown_resource(ctx):
    quota.limit_check(ctx, "p", metadata_items=128)
    with pytest.raises(exception.OverQuota):
        quota.limit_check(ctx, "p", metadata_items=129)
    with pytest.raises(exception.QuotaResourceUnknown):
        quota.check_deltas(ctx, {"bogus": 1}, "p")


def test_noop_driver_never_refuses(ctx, conf):
    conf.config(driver="nova.quota.NoopQuotaDriver", group="quota")
    quota.set_limit(ctx, "p", "instances", 0)
    quota.check_deltas(ctx, {"instances": 5}, "p")
    assert quota.get_defaults(ctx)["instances"] == -1


def test_a_broken_cell_is_left_out_of_the_count(ctx, cells_db):
    urls = list(cells_db.cell_urls.values())
    add_instance(urls[1], project_id="p")
    add_instance(urls[0], project_id="p")
    assert quota.count_instances(ctx, "p")["project"]["instances"] == 2
    # cell0's database becomes unreachable
    cell0 = cells_db.mapping(list(cells_db.cell_urls)[0])
    cell0.database_connection = "sqlite:////nonexistent/dir/cell0.db"
    cell0.save()
    counts = quota.count_instances(ctx, "p")
    assert counts["project"]["instances"] == 1


def test_limits_levels_in_one_statement(ctx, conf):
    """Config default < the default class < the project < the user, read
    with one statement; another project's or user's rows do not count."""
    import sqlalchemy as sa

    conf.config(ram=4096, group="quota")
    quota.set_class_limit(ctx, "default", "cores", 30)
    quota.set_class_limit(ctx, "default", "instances", 20)
    quota.set_limit(ctx, "p", "instances", 7)
    quota.set_limit(ctx, "other", "ram", 1)
    quota.set_limit(ctx, "p", "cores", 5, user_id="u")
    quota.set_limit(ctx, "p", "ram", 2, user_id="someone-else")
    seen = []

    def count(_conn, _cursor, statement, *_args):
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)  # SQLite's BEGIN is not a read
    sa.event.listen(sa.engine.Engine, "before_cursor_execute", count)
    try:
        plimits, ulimits = quota.limits(ctx, "p", "u")
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", count)
    assert len(seen) == 1
    assert (plimits["ram"], plimits["cores"], plimits["instances"]) == \
        (4096, 30, 7)
    assert (ulimits["ram"], ulimits["cores"], ulimits["instances"]) == \
        (4096, 5, 7)
    assert plimits["fixed_ips"] == -1
    assert quota.limits(ctx, "p")[1] == plimits
    assert quota.user_limits(ctx, "p", "u") == ulimits
    assert quota.project_limits(ctx, "p") == plimits
