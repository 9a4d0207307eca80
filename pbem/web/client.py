"""The request's client, for the access log (behind a proxy, ProxyFix sets remote_addr)."""

from __future__ import annotations

from flask import request

from ..services.core.access import Client


def client() -> Client:
    return Client(ip=request.remote_addr, user_agent=request.headers.get("User-Agent"))
