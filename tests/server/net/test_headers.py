"""Every response carries the security headers: pages, files, API, errors, refusals."""

from __future__ import annotations

from pathlib import Path

import httpx
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from ...serve import running_server

PATHS = ["/", "/static/js/app.js", "/static/css/app.css", "/api/tables", "/api/games",
         "/api/games/nope", "/healthz", "/readyz", "/metrics", "/no/such/page",
         "/static/../etc/passwd"]


def test_every_response_of_a_real_server_has_csp_and_nosniff(tmp_path: Path) -> None:
    with running_server(tmp_path / "server.log") as base:
        for path in PATHS:
            response = httpx.get(base + path, timeout=10)
            assert response.headers["x-content-type-options"] == "nosniff", path
            csp = response.headers["content-security-policy"]
            assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        # a handshake refused (foreign origin) is an HTTP response too
        port = base.rsplit(":", 1)[1]
        try:
            connect(f"ws://127.0.0.1:{port}/ws", origin="http://evil.example",  # type: ignore[arg-type]
                    open_timeout=10)
        except InvalidStatus as refused:
            assert refused.response.status_code == 403
            assert refused.response.headers["X-Content-Type-Options"] == "nosniff"
        else:
            raise AssertionError("a foreign origin was let in")
