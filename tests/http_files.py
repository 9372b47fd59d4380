"""A local http server of a folder's files, for the tests of remote sounds (no internet):
``with serve(folder) as site`` gives ``site.url`` and ``site.served`` (the paths asked)."""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Site:
    url: str
    served: list[str] = field(default_factory=list)


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[Site]:
    """Serve ``folder``'s files by name on 127.0.0.1 (a free port); anything else is a
    404. Stopped and joined on exit."""
    site = Site("")

    class Files(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            name = self.path.lstrip("/")
            target = folder / name
            if "/" in name or not target.is_file():
                self.send_error(404)
                return
            body = target.read_bytes()
            site.served.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Files)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    site.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield site
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
