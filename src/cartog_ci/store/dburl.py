"""Database URLs without the driver: what every command may ask (is the
storage a PostgreSQL URL?) and the form every message shows (no password)."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def masked(url: str) -> str:
    """The URL with its password (if any) replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))
