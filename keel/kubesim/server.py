"""A loopback HTTP/1.1 server that can shut down completely.

ThreadingHTTPServer alone leaves keep-alive and watch connections blocked in their handler
threads after shutdown(); we track every connection so stop() can close the sockets and join
the threads, leaving nothing running after a test.
"""
import http.server
import json
import socket
import threading
import urllib.parse

from . import errors


class Request:
    def __init__(self, handler, method):
        self.handler = handler
        self.method = method
        parsed = urllib.parse.urlsplit(handler.path)
        self.path = parsed.path
        self.query = {k: v[-1] for k, v in urllib.parse.parse_qs(
            parsed.query, keep_blank_values=True).items()}
        self.headers = handler.headers
        length = int(handler.headers.get("Content-Length") or 0)
        self.raw_body = handler.rfile.read(length) if length else b""
        self.content_type = (handler.headers.get("Content-Type") or "").split(";")[0].strip()

    def json(self, default=None):
        if not self.raw_body.strip():
            return default
        try:
            return json.loads(self.raw_body)
        except ValueError as exc:
            raise errors.bad_request(f"error decoding request body: {exc}")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kubesim"

    def setup(self):
        super().setup()
        # Headers and body go out in separate writes; without NODELAY, Nagle plus delayed
        # ACKs add ~40 ms to every keep-alive request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):  # keep test output quiet
        pass

    def _dispatch(self):
        try:
            req = Request(self, self.command)
        except (ValueError, OSError):
            self.close_connection = True
            return
        self.server.app.handle(req, self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _dispatch

    # -- response helpers used by the app ---------------------------------------------------
    def send_json(self, code, body):
        data = json.dumps(body).encode()
        self.send_bytes(code, data, "application/json")

    def send_bytes(self, code, data, content_type):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_chunked(self, content_type):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def write_chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_chunked(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, app, host="127.0.0.1", port=0):
        self.app = app
        self._conns = {}
        self._conn_lock = threading.Lock()
        self._thread = None
        super().__init__((host, port), Handler)

    def process_request(self, request, client_address):
        t = threading.Thread(target=self._serve_one, args=(request, client_address),
                             name="kubesim-conn", daemon=True)
        with self._conn_lock:
            self._conns[t] = request
        t.start()

    def _serve_one(self, request, client_address):
        try:
            self.finish_request(request, client_address)
        except Exception:  # noqa: BLE001 - a broken client connection must not kill the server
            pass
        finally:
            self.shutdown_request(request)
            with self._conn_lock:
                self._conns.pop(threading.current_thread(), None)

    def start(self):
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="kubesim-accept", daemon=True)
        self._thread.start()

    def stop(self):
        self.shutdown()
        self.server_close()
        with self._conn_lock:
            conns = dict(self._conns)
        for sock in conns.values():
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in conns:
            t.join(timeout=5)
        if self._thread:
            self._thread.join(timeout=5)

    @property
    def port(self):
        return self.server_address[1]
