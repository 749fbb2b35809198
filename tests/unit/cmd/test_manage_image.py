"""``keel manage image``: register, list, show, delete on the local
catalogue named by [image_catalogue]/path, with nova-manage's exit codes."""
import pytest

from keel.cmd import manage
from keel.image import local

IMG = "1f6c2a8e-0c1b-4d4e-9a55-2f0a9c3b7d11"


@pytest.fixture
def env(tmp_path):
    catalogue = tmp_path / "images"
    conf = tmp_path / "nova.conf"
    conf.write_text(f"[image_catalogue]\npath = {catalogue}\n")

    class Env:
        path = str(catalogue)

        def run(self, *argv):
            return manage.main(["--config-file", str(conf), *argv])

        def images(self):
            return local.LocalImageAPI(self.path).get_all(None)
    return Env()


def test_register_from_file_then_list_show_delete(env, tmp_path, capsys):
    data = tmp_path / "disk.qcow2"
    data.write_bytes(b"q" * 2048)
    assert env.run("image", "register", "cirros", "--file", str(data),
                   "--min-ram", "64", "--min-disk", "1", "--id", IMG,
                   "--property", "hw_disk_bus=virtio",
                   "--property", "kubevirt_container_disk=quay.io/x:1") == 0
    out = capsys.readouterr().out
    assert IMG in out and "properties.hw_disk_bus" in out
    [image] = env.images()
    assert image["id"] == IMG and image["size"] == 2048
    assert image["status"] == "active" and image["min_ram"] == 64
    assert image["properties"] == {"hw_disk_bus": "virtio",
                                   "kubevirt_container_disk": "quay.io/x:1"}

    assert env.run("image", "list") == 0
    out = capsys.readouterr().out
    assert "cirros" in out and "2048" in out and "Disk Format" in out
    assert env.run("image", "show", "cirros") == 0  # by name
    assert "kubevirt_container_disk" in capsys.readouterr().out
    assert env.run("image", "delete", IMG) == 0
    assert env.images() == []
    assert env.run("image", "show", IMG) == 1
    assert "could not be found" in capsys.readouterr().out
    assert env.run("image", "delete", IMG) == 1


def test_register_a_location(env):
    assert env.run("image", "register", "remote", "--location",
                   "http://example.com/disk.raw", "--disk-format", "raw",
                   "--size", "1024", "--visibility", "private") == 0
    [image] = env.images()
    assert (image["disk_format"], image["size"], image["visibility"]) == \
        ("raw", 1024, "private")
    full = local.LocalImageAPI(env.path).get(None, image["id"],
                                             include_locations=True)
    assert full["locations"][0]["url"] == "http://example.com/disk.raw"


@pytest.mark.parametrize("args", [
    ("x",),                                             # no source
    ("x", "--file", "/f", "--location", "http://h/i"),  # both
    ("x", "--location", "http://h/i", "--property", "novalue"),
    ("x", "--location", "http://h/i", "--min-ram", "-1"),
    ("x", "--location", "http://h/i", "--disk-format", "floppy"),
    ("x", "--location", "http://h/i", "--id", "not-a-uuid"),
    ("x", "--file", "/no/such/file"),
    ("x", "--location", "http://h/i", "--visibility", "everyone"),
])
def test_bad_arguments_exit_2(env, args):
    assert env.run("image", "register", *args) == 2
    assert env.images() == []


def test_duplicate_names_need_the_id(env, capsys):
    for _ in range(2):
        assert env.run("image", "register", "twin", "--location",
                       "http://h/i") == 0
    capsys.readouterr()
    assert env.run("image", "delete", "twin") == 1
    assert "use the ID" in capsys.readouterr().out
    assert len(env.images()) == 2


def test_without_a_catalogue_or_glance_exit_1(tmp_path, capsys):
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    assert manage.main(["--config-file", str(conf), "image", "list"]) == 1
    assert "[image_catalogue]/path" in capsys.readouterr().out
