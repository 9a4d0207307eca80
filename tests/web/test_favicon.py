"""Browsers ask every site for /favicon.ico: it is a small icon, not a 404."""

from __future__ import annotations

import struct


def test_the_site_has_an_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.mimetype == "image/x-icon"
    reserved, kind, count = struct.unpack("<HHH", response.data[:6])
    assert (reserved, kind, count) == (0, 1, 1)  # an ICO file holding one image
    assert response.data[22:30] == b"\x89PNG\r\n\x1a\n"
    assert len(response.data) < 4096
    assert "max-age" in response.headers.get("Cache-Control", "")
