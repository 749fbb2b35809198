"""``keel api`` / ``keel metadata`` entry points."""
import socket

import webob

from keel.api import server
from keel.cmd import metadata


def test_metadata_version_listing():
    resp = webob.Request.blank("/").get_response(metadata.version_listing_app)
    assert resp.status_int == 200
    lines = resp.text.splitlines()
    assert lines[0] == "1.0" and lines[-1] == "latest"
    assert "2009-04-04" in lines
    assert webob.Request.blank("/openstack").get_response(
        metadata.version_listing_app).status_int == 404


def test_busy_port_is_a_clean_error(caplog):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert server.serve(lambda e, s: [], "127.0.0.1", port) == 1
    assert any("cannot listen" in r.getMessage() for r in caplog.records)


def test_shared_socket_server_serves_on_prebound_socket():
    import threading
    import urllib.request

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]
    sock = server.listen("127.0.0.1", 0)
    srv = server.make_server(sock, app, threads=2, shutdown_timeout=1)
    t = threading.Thread(target=srv.safe_start, daemon=True)
    t.start()
    while not srv.ready:
        t.join(0.01)
    try:
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
        assert urllib.request.urlopen(url, timeout=5).read() == b"ok"
    finally:
        srv.stop()
        t.join(5)
        sock.close()
