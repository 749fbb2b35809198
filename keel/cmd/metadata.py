"""``keel metadata``: the metadata API (port 8775) on the embedded server.

For now it answers only the version listing at ``/`` (the EC2-style dates
and ``latest`` as Nova's metadata root does); the metadata content itself is
not served yet (404).
"""
import os

from keel.cmd import common

EC2_VERSIONS = ["1.0", "2007-01-19", "2007-03-01", "2007-08-29",
                "2007-10-10", "2007-12-15", "2008-02-01", "2008-09-01",
                "2009-04-04"]


def version_listing_app(environ, start_response):
    if environ.get("PATH_INFO", "/") in ("", "/") and \
            environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
        body = "\n".join(EC2_VERSIONS + ["latest"]).encode()
        status = "200 OK"
    else:
        body = b"404 Not Found\n\nThe resource could not be found.\n\n   "
        status = "404 Not Found"
    start_response(status, [("Content-Type", "text/plain; charset=UTF-8"),
                            ("Content-Length", str(len(body)))])
    return [body]


def main(argv=None):
    conf = common.parse_args(list(argv or []), prog="keel-metadata")
    from keel.api import server

    workers = conf.metadata_workers or os.cpu_count() or 1
    return server.serve(version_listing_app, conf.metadata_listen,
                        conf.metadata_listen_port, workers=workers,
                        name="keel-metadata", backlog=conf.wsgi.backlog,
                        **server.server_kwargs(conf))
