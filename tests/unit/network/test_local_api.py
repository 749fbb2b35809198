"""LocalNetworkAPI: no network service, no interfaces, clear errors."""
import pytest

from keel import exception
from keel.network import local
from keel import objects
from tests.unit.network.conftest import requests

NET = "0d9e8a61-0000-4000-8000-000000000001"
PORT = "0d9e8a61-0000-4000-8000-000000000002"


@pytest.mark.parametrize("req", [None, requests(("none", None, None)),
                                 requests(("auto", None, None))])
def test_nothing_to_attach_boots_without_interfaces(req, ctx, make_instance):
    api = local.LocalNetworkAPI()
    assert api.validate_networks(ctx, req, 4) == 4
    inst = make_instance()
    info = api.allocate_for_instance(ctx, inst, req,
                                     security_groups=["default"])
    assert info == []
    got = objects.Instance.get_by_uuid(ctx, inst.uuid,
                                       expected_attrs=["info_cache"])
    assert got.info_cache.network_info == []


def test_named_network_or_port_is_not_found(ctx, make_instance):
    api = local.LocalNetworkAPI()
    with pytest.raises(exception.NetworkNotFound):
        api.validate_networks(ctx, requests((NET, None, None)), 1)
    with pytest.raises(exception.PortNotFound):
        api.validate_networks(ctx, requests((None, None, PORT)), 1)
    with pytest.raises(exception.PortNotFound):
        api.allocate_for_instance(ctx, make_instance(),
                                  requests((None, None, PORT)))


def test_only_the_default_security_group(ctx, make_instance):
    api = local.LocalNetworkAPI()
    assert api.validate_security_group_name(ctx, "default") == "default"
    with pytest.raises(exception.SecurityGroupNotFound):
        api.validate_security_group_name(ctx, "web")
    with pytest.raises(exception.SecurityGroupNotFound):
        api.allocate_for_instance(ctx, make_instance(), None,
                                  security_groups=["web"])
