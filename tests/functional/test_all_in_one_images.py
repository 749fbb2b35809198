"""The all-in-one's image catalogue as a user meets it: one seeded image
(and the m1.* flavors) right after the first start, ``keel manage image``
on the running process's catalogue, a server booted on them."""
import re
import subprocess
import sys
import time

import requests

from keel.allinone import images
from tests.functional.test_all_in_one import AllInOne
from tests.functional.test_all_in_one import config  # noqa: F401


def _images(aio):
    resp = requests.get(aio.api + "/v2.1/images/detail", timeout=10)
    assert resp.status_code == 200, resp.text
    return {i["name"]: i for i in resp.json()["images"]}


def _manage(state, *argv):
    return subprocess.run(
        [sys.executable, "-m", "keel.cmd.main", "manage", "--config-file",
         str(state / "all-in-one.conf"), "image", *argv],
        capture_output=True, text=True, timeout=60)


def test_seeded_image_and_manage_on_the_running_catalogue(
        tmp_path, config):  # noqa: F811
    # (Seeding only once across restarts: tests/unit/image/test_seed.py.)
    config.write_text(config.read_text() +
                      "[image_catalogue]\nport = 0\n")
    state = tmp_path / "state"
    disk = tmp_path / "extra.qcow2"
    disk.write_bytes(images.empty_qcow2())
    aio = AllInOne(state, hosts=1, config=config)
    try:
        aio.wait_ready()
        seeded = _images(aio)
        assert list(seeded) == [images.SEED_NAME]
        seed = seeded[images.SEED_NAME]
        assert seed["status"] == "ACTIVE"
        assert seed["metadata"]["kubevirt_container_disk"]
        # the same catalogue as a Glance v2 endpoint, as the banner says
        glance = re.search(r"served at (http://\S+)", aio.output()).group(1)
        assert seed["links"][2]["href"] == f"{glance}/images/{seed['id']}"
        listed = requests.get(glance + "/v2/images", timeout=10).json()
        assert [i["id"] for i in listed["images"]] == [seed["id"]]
        # keel manage, in another process, on the running catalogue
        done = _manage(state, "register", "extra", "--file", str(disk),
                       "--property", "os_distro=cirros")
        assert done.returncode == 0, done.stdout + done.stderr
        assert set(_images(aio)) == {images.SEED_NAME, "extra"}
        gone = _manage(state, "delete", "extra")
        assert gone.returncode == 0, gone.stdout
        assert list(_images(aio)) == [images.SEED_NAME]
        # a server boots on the seeded image and flavor, nothing else made
        assert _boot(aio, seed["id"]) == "ACTIVE"
    finally:
        aio.kill()


def _boot(aio, image_id, timeout=60):
    headers = {"OpenStack-API-Version": "compute 2.37"}
    made = requests.post(aio.api + "/v2.1/servers", headers=headers,
                         json={"server": {"name": "first", "flavorRef": "1",
                                          "imageRef": image_id,
                                          "networks": "none"}}, timeout=10)
    assert made.status_code == 202, made.text
    url = aio.api + "/v2.1/servers/" + made.json()["server"]["id"]
    deadline = time.monotonic() + timeout
    status = None
    while time.monotonic() < deadline:
        status = requests.get(url, headers=headers,
                              timeout=10).json()["server"]["status"]
        if status in ("ACTIVE", "ERROR"):
            break
        time.sleep(0.3)
    return status
