"""Which of the files git lists the index holds, and what the repository
says they are (docs/incremental.md, "Which files").

- The configuration's ``include`` globs (when any: only the files they
  match) and ``exclude`` globs (never those): ``config.glob_pattern``.
- The repository's own ``.gitattributes``, as GitHub's linguist reads them:
  a ``linguist-vendored`` file is not indexed; ``linguist-documentation`` and
  ``linguist-generated`` files are indexed (a reference from them counts),
  marked so that they are never embedded and search ranks them as
  documentation or generated code (``domain/marks.py``); ``-linguist-…`` or
  ``linguist-…=false`` takes back what a path says (a ``docs/`` directory
  that is the product). The attributes of every file come from one
  ``git check-attr --stdin``, asked only when one of the repository's
  ``.gitattributes`` files or its ``info/attributes`` names a linguist
  attribute (most that have one set line endings: rollup's 12,307 files
  were 30-37 ms of git's and this process's CPU a run for nothing).

Every indexing run chooses again from what git lists, so a change of the
configuration or of the attributes reaches the index in the next run, as a
cold build would see it: a file no longer chosen leaves it, one newly chosen
is parsed, and the marks are written anew.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import git
from cartog_ci.config import glob_pattern
from cartog_ci.domain import marks as marks_mod
from cartog_ci.errors import GitError

if TYPE_CHECKING:
    from cartog_ci.config import Config
    from cartog_ci.store.base import Store

ATTRIBUTES = ("linguist-vendored", "linguist-generated", "linguist-documentation")
_TRUE, _FALSE = frozenset({"set", "true"}), frozenset({"unset", "false"})


def _any_of(globs: tuple[str, ...]) -> re.Pattern[str] | None:
    if not globs:
        return None
    return re.compile("|".join(f"(?:{glob_pattern(g).pattern})" for g in globs), re.S)


class Selector:
    """``keep`` chooses the files to index from a listing, and remembers
    the marks of the files it keeps (``marks``) for ``write_marks``."""

    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self.include = _any_of(config.include)
        self.exclude = _any_of(config.exclude)
        self.marks: dict[str, frozenset[str]] = {}
        # whether the attribute files ``keep`` met name a linguist attribute (None: not asked yet)
        self.linguist: bool | None = None

    def chosen(self, path: str) -> bool:
        """By the configuration's globs alone."""
        if self.include is not None and not self.include.fullmatch(path):
            return False
        return self.exclude is None or not self.exclude.fullmatch(path)

    def keep(self, listed: list[str]) -> list[str]:
        """Of every file git lists: git is asked for attributes only when
        one of the attribute files it lists (or info/attributes) says
        ``linguist-`` (a macro that sets one does too), or cannot be read
        (git then reads the staged one)."""
        files = [p for p in listed if p == ".gitattributes" or p.endswith("/.gitattributes")]
        self.linguist = self._linguist(files)
        return self._kept(listed, asked=self.linguist)

    def keep_some(self, paths: list[str]) -> list[str]:
        """Of a few files (a change): git is asked for their attributes,
        unless ``keep`` found that no attribute file names one (the index
        run's selector, commands/report.py: Django's report spared one git
        process)."""
        return self._kept(paths, asked=self.linguist is not False)

    def _linguist(self, files: list[str]) -> bool:
        try:
            own = git.attributes_file(self.root)
        except GitError:  # not a git work tree: no attributes
            return False
        for path in [*(self.root / f for f in files), *([own] if own is not None else [])]:
            try:
                if b"linguist-" in path.read_bytes():
                    return True
            except OSError:
                return True
        return False

    def _kept(self, listed: list[str], *, asked: bool) -> list[str]:
        paths = [p for p in listed if self.chosen(p)] if self.include or self.exclude else listed
        attributes = self._attributes(paths) if asked else {}
        self.marks = {}
        if not attributes:  # most repositories: no attributes, every file kept unmarked (Django: 2,900 files, 3 ms)
            return list(paths)
        kept: list[str] = []
        for path in paths:
            given = attributes.get(path, {})
            if given.get("linguist-vendored") in _TRUE:
                continue
            words = _words(given)
            if words:
                self.marks[path] = words
            kept.append(path)
        return kept

    def _attributes(self, paths: list[str]) -> dict[str, dict[str, str]]:
        try:
            return git.check_attr(self.root, ATTRIBUTES, paths)
        except GitError:  # not a git work tree (a walk of the directory): no attributes
            return {}

    def write_marks(self, store: Store) -> None:
        """The marks of the files kept, for embeddings and search to read."""
        value = marks_mod.encode(self.marks)
        if store.get_meta(marks_mod.META_KEY) != value:
            with store.transaction():
                store.set_meta(marks_mod.META_KEY, value)


def _words(given: dict[str, str]) -> frozenset[str]:
    words = set()
    if given.get("linguist-documentation") in _TRUE:
        words.add(marks_mod.DOCUMENTATION)
    elif given.get("linguist-documentation") in _FALSE:
        words.add(marks_mod.NOT_DOCUMENTATION)
    if given.get("linguist-generated") in _TRUE:
        words.add(marks_mod.GENERATED)
    if given.get("linguist-vendored") in _FALSE:
        words.add(marks_mod.NOT_VENDORED)
    return frozenset(words)


def stored_marks(store: Store) -> dict[str, frozenset[str]]:
    return marks_mod.decode(store.get_meta(marks_mod.META_KEY))
