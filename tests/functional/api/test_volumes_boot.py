"""/os-volumes_boot: the servers API under its old name, 2.1 - 2.102.

The same handlers as /servers (so the same bodies and errors), Nova's
servers-controller actions only, and 404 for everything from 2.103."""
import pytest

from keel.api import microversion
from keel.api import routes
from keel.api import wsgi
from keel.api.handlers import server_actions
from keel.api.handlers import volumes_boot
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.test_servers_list import PROJECT
from tests.functional.api.test_servers_list import world  # noqa: F401
from tests.unit.api.conftest import call
from tests.unit.api.conftest import conf  # noqa: F401

V = "OpenStack-API-Version"
TOKEN = f"fake:{PROJECT}"


def _call(app, path, version, method="GET", body=None):
    return call(app, "/v2.1" + path, method=method, body=body,
                headers={V: f"compute {version}", "X-Auth-Token": TOKEN})


def _same(app, servers_path, boot_path, version, method="GET", body=None):
    a = _call(app, servers_path, version, method, body)
    b = _call(app, boot_path, version, method, body)
    assert (b.status_int, b.json_body if b.body else None) == \
        (a.status_int, a.json_body if a.body else None)
    return b


@pytest.mark.parametrize("version", ["2.1", "2.47", "2.102"])
def test_list_detail_show_answer_as_servers(api_env, world, version):  # noqa
    body = _same(api_env, "/servers", "/os-volumes_boot", version).json
    assert len(body["servers"]) > 5
    _same(api_env, "/servers/detail?limit=3", "/os-volumes_boot/detail"
          "?limit=3", version)
    vm = world.by_name["vm3"]
    show = _same(api_env, f"/servers/{vm}", f"/os-volumes_boot/{vm}",
                 version).json
    assert show["server"]["id"] == vm
    _same(api_env, "/servers/nope", "/os-volumes_boot/nope", version)
    # bad query as Nova's servers query schema answers it
    _same(api_env, "/servers?limit=x", "/os-volumes_boot?limit=x", version)


def test_update_and_action_errors_answer_as_servers(api_env, world):  # noqa
    vm = world.by_name["vm5"]
    resp = _call(api_env, f"/os-volumes_boot/{vm}", "2.1", "PUT",
                 {"server": {"name": "renamed"}})
    assert resp.status_int == 200, resp.text
    assert resp.json["server"]["name"] == "renamed"
    _same(api_env, f"/servers/{vm}", f"/os-volumes_boot/{vm}", "2.1", "PUT",
          {"server": {"bogus": 1}})
    for action in ({"revertResize": None}, {"confirmResize": None},
                   {"resize": {"flavorRef": ""}}):
        resp = _same(api_env, f"/servers/{vm}/action",
                     f"/os-volumes_boot/{vm}/action", "2.1", "POST", action)
        assert resp.status_int in (400, 409), resp.text


def test_only_the_servers_controller_actions(api_env, world):  # noqa
    vm = world.by_name["vm1"]
    for action in ("lock", "pause", "os-migrateLive", "bogus"):
        resp = _call(api_env, f"/os-volumes_boot/{vm}/action", "2.1",
                     "POST", {action: None})
        assert resp.status_int == 400
        assert resp.json == {"badRequest": {
            "code": 400, "message": f"There is no such action: {action}"}}
    # trigger_crash_dump exists from 2.17, as on /servers
    resp = _call(api_env, f"/os-volumes_boot/{vm}/action", "2.16", "POST",
                 {"trigger_crash_dump": None})
    assert resp.status_int == 404


@pytest.mark.parametrize("method,path,body", [
    ("GET", "/os-volumes_boot", None),
    ("GET", "/os-volumes_boot/detail", None),
    ("GET", "/os-volumes_boot/{id}", None),
    ("PUT", "/os-volumes_boot/{id}", {"server": {"name": "x"}}),
    ("DELETE", "/os-volumes_boot/{id}", None),
    ("POST", "/os-volumes_boot", {"server": {"name": "x"}}),
    ("POST", "/os-volumes_boot/{id}/action", {"os-stop": None}),
    ("POST", "/os-volumes_boot/{id}/action", {"reboot": {"type": "HARD"}}),
])
def test_gone_from_2_103(api_env, world, method, path, body):  # noqa: F811
    path = path.replace("{id}", world.by_name["vm1"])
    for version in ("2.103", "latest"):
        resp = _call(api_env, path, version, method, body)
        assert resp.status_int == 404, resp.text
        assert resp.json == {"itemNotFound": {
            "code": 404, "message": "The resource could not be found."}}


def test_handlers_are_the_servers_ones():
    for servers_path, boot_path in volumes_boot._PATHS.items():
        assert set(routes.ROUTES[boot_path]) == \
            set(routes.ROUTES[servers_path])
        for method, handler in routes.ROUTES[boot_path].items():
            original = routes.ROUTES[servers_path][method]
            assert [f.__wrapped__ for _l, _h, f, _s in handler.impls] == \
                [f for lo, _h, f, _s in original.impls
                 if lo <= microversion.as_version("2.102")]
            assert str(handler.max_version) == "2.102"
    dispatcher = routes.ROUTES["/os-volumes_boot/{id}/action"]["POST"]
    live = server_actions.registered()
    assert set(dispatcher.actions) == \
        set(volumes_boot.ACTIONS) & set(live)
    assert {"reboot", "os-stop", "createImage", "resize"} <= \
        set(dispatcher.actions)


def test_an_action_registered_later_is_served():
    name = "rebuild"
    live = server_actions.registered()
    dispatcher = routes.ROUTES["/os-volumes_boot/{id}/action"]["POST"]
    if name in live:
        assert name in dispatcher.actions
        return

    @wsgi.expose(name="tests.volumes_boot.rebuild")
    def rebuild(req, id):
        return {"id": id}
    server_actions.register(name, rebuild)
    try:
        assert dispatcher.actions[name].impls[0][2].__wrapped__ is \
            rebuild.impls[0][2]
    finally:
        server_actions._ACTIONS.pop(name)
