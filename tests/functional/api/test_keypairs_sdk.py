"""openstacksdk imports, generates, lists and deletes key pairs."""
from openstack import exceptions as sdk_exc
import pytest

from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_api_url  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import sdk  # noqa: F401
from tests.functional.api.fixtures_cells import serve  # noqa: F401
from tests.unit.api import samples

PUBLIC_KEY = samples.load("os-keypairs/keypairs-import-post-req.json")[
    "keypair"]["public_key"]


def test_sdk_keypairs(sdk):
    kp = sdk.compute.create_keypair(name="imported", public_key=PUBLIC_KEY)
    assert kp.fingerprint == samples.load(
        "os-keypairs/keypairs-import-post-resp.json")["keypair"][
            "fingerprint"]
    generated = sdk.compute.create_keypair(name="gen")
    assert generated.private_key.startswith("-----BEGIN RSA PRIVATE KEY")
    assert sorted(k.name for k in sdk.compute.keypairs()) == \
        ["gen", "imported"]
    assert sdk.compute.get_keypair("gen").public_key == \
        generated.public_key
    sdk.compute.delete_keypair("gen")
    with pytest.raises(sdk_exc.NotFoundException):
        sdk.compute.get_keypair("gen")
