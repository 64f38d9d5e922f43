"""cartog-ci: what a code change touches and what it can break."""

from __future__ import annotations

__version__ = "0.1.0"
