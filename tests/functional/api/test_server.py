"""``keel api`` as a process: pre-forked workers on one socket, clean stop;
and the WSGI entry point external servers load."""
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
import requests


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children(pid):
    out = subprocess.run(["ps", "--ppid", str(pid), "-o", "pid="],
                         capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_keel_api_workers_and_clean_stop(tmp_path, signum):
    port = _free_port()
    cfg = tmp_path / "nova.conf"
    cfg.write_text(f"""
[DEFAULT]
osapi_compute_listen = 127.0.0.1
osapi_compute_listen_port = {port}
osapi_compute_workers = 2
graceful_shutdown_timeout = 1
[api]
auth_strategy = keel-development
[wsgi]
threads = 2
""")
    proc = subprocess.Popen(
        [sys.executable, "-m", "keel.cmd.main", "api", "--config-file",
         str(cfg)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                resp = requests.get(f"http://127.0.0.1:{port}/v2.1/",
                                    timeout=2)
                break
            except requests.ConnectionError:
                assert proc.poll() is None, proc.stdout.read()
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert resp.status_code == 200
        assert resp.json()["version"]["version"] == "2.104"
        workers = _children(proc.pid)
        assert len(workers) == 2
        # an idle client holding a connection must not block the stop
        idle = socket.create_connection(("127.0.0.1", port))
        idle.sendall(b"GET /v2.1/ HTTP/1.1\r\nHost: x\r\n")
        proc.send_signal(signum)
        assert proc.wait(timeout=20) == 0
        idle.close()
        for pid in workers:
            assert not os.path.exists(f"/proc/{pid}") or \
                "zombie" in open(f"/proc/{pid}/status").read().lower()
        out = proc.stdout.read()
        assert "tokens are NOT validated" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_wsgi_entry_point_reads_nova_config_dir(tmp_path):
    (tmp_path / "nova.conf").write_text(
        "[api]\nauth_strategy = keel-development\n"
        "compute_link_prefix = https://public.example/compute\n")
    code = (
        "import webob\n"
        "from keel.api import wsgi_app\n"
        "app = wsgi_app.application\n"
        "r = webob.Request.blank('/v2.1/').get_response(app)\n"
        "print(r.status_int, r.json['version']['links'][0]['href'])\n")
    env = dict(os.environ, OS_NOVA_CONFIG_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout
    assert out.strip().splitlines()[-1] == \
        "200 https://public.example/compute/v2.1/"
