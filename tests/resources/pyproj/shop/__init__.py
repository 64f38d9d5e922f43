"""Shop package: re-exports the public API."""
from .models import Order
from .util.text import slugify as make_slug

__all__ = ["Order", "make_slug"]
