"""openstacksdk's compute image proxy calls against the API over the local
image catalogue: list (following next links), find, show, metadata."""
import warnings

import pytest

from keel import context as keel_context
from keel.image import api as image_api
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_api_url  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import sdk  # noqa: F401
from tests.functional.api.fixtures_cells import serve  # noqa: F401


@pytest.fixture
def catalogue(conf, tmp_path):
    conf.config(path=str(tmp_path / "images"), group="image_catalogue")
    image_api.reset()
    yield image_api.get_api()
    image_api.reset()


def _create(cat, name, **props):
    ctx = keel_context.RequestContext(user_id="u", project_id="p",
                                      is_admin=True)
    return cat.create(ctx, {"name": name, "disk_format": "qcow2",
                            "container_format": "bare", "min_ram": 128,
                            "visibility": "public", "properties": props},
                      data=b"0123456789")


def test_sdk_lists_finds_and_shows_images(sdk, catalogue):
    made = [_create(catalogue, f"img-{i}", os_distro="cirros")["id"]
            for i in range(5)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # limit=2: the SDK follows images_links to the end
        listed = list(sdk.compute.images(limit=2))
        basic = list(sdk.compute.images(details=False))
    assert sorted(i.id for i in listed) == sorted(made)
    assert sorted(i.id for i in basic) == sorted(made)
    image = sdk.compute.get_image(made[0])
    assert image.name == "img-0" and image.status == "ACTIVE"
    assert image.min_ram == 128 and image.size == 10
    assert image.progress == 100
    assert image.metadata == {"os_distro": "cirros"}
    assert sdk.compute.find_image("img-3").id == made[3]


def test_sdk_image_metadata(sdk, catalogue):
    img = _create(catalogue, "meta", os_distro="cirros")["id"]
    image = sdk.compute.get_image(img)
    sdk.compute.set_image_metadata(image, hw_disk_bus="virtio")
    got = sdk.compute.get_image_metadata(image)
    assert got.metadata == {"os_distro": "cirros", "hw_disk_bus": "virtio"}
    stored = catalogue.get(None, img)["properties"]
    assert stored == {"os_distro": "cirros", "hw_disk_bus": "virtio"}
