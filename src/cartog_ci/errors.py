"""Exceptions. Library code raises these; only the CLI prints them."""

from __future__ import annotations


class CartogError(Exception):
    """An expected problem the user can fix; the message says how (exit 2)."""


class NotAGitRepository(CartogError):
    pass


class GitError(CartogError):
    pass


class UnknownRef(CartogError):
    pass


class IndexMissing(CartogError):
    pass


class IndexBusy(CartogError):
    pass


class IndexFromTheFuture(CartogError):
    """The index was written by a newer cartog-ci; we refuse rather than destroy it."""


class DamagedIndex(CartogError):
    """A reader met a damaged index (the message says how to rebuild it);
    the command line moves it aside, rebuilds it and answers."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class CorruptIndex(Exception):
    """Raised inside the store when a file is unreadable; callers rebuild."""


class ParseTimeout(Exception):
    """A file over a per-file parsing limit (time, nesting): it is skipped,
    with the message as its reason."""


class SymbolNotFound(CartogError):
    pass


class ModelUnavailable(CartogError):
    pass
