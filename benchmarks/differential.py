"""Seeded random steps on a git work tree, and an index compared with a cold
build of the same tree after each one (docs/incremental.md: the incremental
index must equal a cold ``--force`` build).

Shared by ``benchmarks/incremental_differential.py`` (real release histories)
and ``tests/index/test_differential.py`` (small projects from
``tests/resources/``), so that both replay the same kinds of steps:

* history: ``checkout`` another release or commit (``git checkout -f``,
  forward or backward), ``commit`` the work tree;
* edits: ``edit_body`` (a call inserted in a function body), ``append`` (a
  new function calling an existing name), ``reorder`` (two top-level
  definitions, or a Java class's members, swapped), ``rename_def`` (a
  definition renamed, its callers not);
* files: ``delete`` and later ``restore`` (the bytes it had), ``move`` (to
  another directory, with ``git mv`` or a plain rename), ``to_package``
  (``pkg/mod.py`` -> ``pkg/mod/__init__.py``, ``x.ts`` -> ``x/index.ts``,
  ``foo.rs`` -> ``foo/mod.rs``, ``b.go`` -> ``b/b.go``, ``B.java`` ->
  ``B/B.java``; and back), ``path_to_dir`` (``a/b.py`` becomes a directory
  ``a/b.py/`` holding the file; and back), ``delete_index`` (an
  ``__init__.py``, ``index.ts``, ``mod.rs`` / ``lib.rs``, a Go file whose
  package has others), ``symlink`` (a link to a source file created, or its
  target swapped);
* runs: ``kill9`` (an edit, then ``cartog-ci index`` started and killed with
  SIGKILL after a random delay: the next run must recover), ``edit_mid_run``
  (an edit, an index run started, and another edit or a deletion while it
  runs).

Edits know a language only as far as they must: regular expressions find a
function's first line, a top-level definition and its closing line, and a
template writes a statement or a function in the language's syntax.

After every step the caller runs the incremental index, then a cold one, and
``compare`` groups what differs by cause ("edge target differs [call]",
"symbol missing", "file sha256 differs", ...).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

# -- languages ---------------------------------------------------------------


@dataclass(frozen=True)
class Syntax:
    """What the steps need to know of a language's source text."""

    language: str
    extensions: tuple[str, ...]
    # a line that opens a function body (the statement goes after it)
    opens_body: re.Pattern[str]
    # the definitions a call may name (group 1)
    defines: re.Pattern[str]
    # a definition at the level ``reorder`` swaps (its first line)
    top: re.Pattern[str]
    # the line that closes such a definition ("" for Python: the next one starts)
    closing: str
    # lines that belong to the next definition (decorators, attributes)
    prefix: re.Pattern[str]
    statement: str  # {indent}, {name}
    function: str  # {n}, {name}
    index_names: tuple[str, ...]  # package / index files

    def package_path(self, path: str) -> str:
        """Where ``to_package`` moves a module: the index file of a directory
        named after it (Go, Java: a file of its own name in it)."""
        stem, ext = os.path.splitext(path)
        if self.language == "python":
            return f"{stem}/__init__.py"
        if self.language in ("typescript", "javascript"):
            return f"{stem}/index{ext}"
        if self.language == "rust":
            return f"{stem}/mod.rs"
        return f"{stem}/{os.path.basename(path)}"


_DECORATOR = re.compile(r"^\s*@")
_KEYWORDS = r"(?!(?:if|for|while|switch|catch|return|else|do|try|function|new|await|typeof)\b)"

SYNTAXES: dict[str, Syntax] = {
    s.language: s
    for s in (
        Syntax(
            language="python",
            extensions=(".py",),
            opens_body=re.compile(r"^\s*(?:async\s+)?def\s+\w+\(.*\).*:\s*$"),
            defines=re.compile(r"^\s*(?:async\s+)?def\s+(\w+)|^\s*class\s+(\w+)", re.M),
            top=re.compile(r"^(?:async\s+def|def|class)\s"),
            closing="",
            prefix=_DECORATOR,
            statement="{indent}{name}()\n",
            function="\n\ndef cartog_added_{n}(value):\n    return {name}(value)\n",
            index_names=("__init__.py",),
        ),
        Syntax(
            language="typescript",
            extensions=(".ts", ".tsx"),
            opens_body=re.compile(
                r"^\s*(?:export\s+)?(?:async\s+)?function\s*\*?\s*\w+.*\)\s*(?::\s*[^{]+)?\{\s*$"
                rf"|^\s+(?:(?:public|private|protected|static|async|override)\s+)*{_KEYWORDS}\w+\(.*\)"
                r"\s*(?::\s*[^{;]+)?\{\s*$"
            ),
            defines=re.compile(r"^\s*(?:export\s+)?(?:async\s+)?function\s*\*?\s*(\w+)|^\s*(?:export\s+)?class\s+(\w+)", re.M),
            top=re.compile(
                r"^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?"
                r"(?:function|class|interface|enum|namespace)\b.*\{\s*$"
            ),
            closing="}",
            prefix=_DECORATOR,
            statement="{indent}{name}();\n",
            function="\nexport function cartogAdded{n}(value: unknown): unknown {{\n  return {name}(value);\n}}\n",
            index_names=("index.ts", "index.tsx"),
        ),
        Syntax(
            language="go",
            extensions=(".go",),
            opens_body=re.compile(r"^func\s.*\{\s*$"),
            defines=re.compile(r"^func\s+(?:\([^)]*\)\s*)?(\w+)|^type\s+(\w+)", re.M),
            top=re.compile(r"^(?:func|type)\s.*\{\s*$"),
            closing="}",
            prefix=re.compile(r"^//"),
            statement="{indent}{name}()\n",
            function="\nfunc cartogAdded{n}() {{\n\t{name}()\n}}\n",
            index_names=(),
        ),
        Syntax(
            language="java",
            extensions=(".java",),
            opens_body=re.compile(
                rf"^\s+(?:(?:public|private|protected|static|final|synchronized|abstract)\s+)*{_KEYWORDS}"
                r"[\w<>\[\],.? ]+\s+\w+\s*\([^;]*\)\s*(?:throws\s+[\w., ]+)?\{\s*$"
            ),
            defines=re.compile(r"^\s+(?:(?:public|private|protected|static|final)\s+)+[\w<>\[\],.? ]+\s+(\w+)\s*\(|^(?:public\s+)?(?:final\s+)?class\s+(\w+)", re.M),
            top=re.compile(r"^    (?:(?:public|private|protected|static|final|abstract|synchronized)\s+)+.*\{\s*$"),
            closing="    }",
            prefix=re.compile(r"^    (?:@|/\*\*|\*| \*)"),
            statement="{indent}{name}();\n",
            function="\n    public static Object cartogAdded{n}() {{\n        return {name}();\n    }}\n",
            index_names=("package-info.java",),
        ),
        Syntax(
            language="rust",
            extensions=(".rs",),
            opens_body=re.compile(r"^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+\w+.*\{\s*$"),
            defines=re.compile(r"^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:const\s+)?(?:async\s+)?fn\s+(\w+)|^\s*(?:pub\s+)?struct\s+(\w+)", re.M),
            top=re.compile(r"^(?:pub(?:\([\w:]+\))?\s+)?(?:unsafe\s+)?(?:fn|struct|enum|impl|trait|mod)\b.*\{\s*$"),
            closing="}",
            prefix=re.compile(r"^(?:#\[|///)"),
            statement="{indent}{name}();\n",
            function="\nfn cartog_added_{n}() {{\n    {name}();\n}}\n",
            index_names=("mod.rs", "lib.rs"),
        ),
    )
}
# CommonJS or ES-module JavaScript: TypeScript's lines without their types
SYNTAXES["javascript"] = replace(
    SYNTAXES["typescript"],
    language="javascript",
    extensions=(".js", ".cjs", ".mjs"),
    function="\nfunction cartogAdded{n}(value) {{\n  return {name}(value);\n}}\n",
    index_names=("index.js",),
)


# -- running the index ---------------------------------------------------------

# What the ``cartog-ci`` executable runs, from whichever checkout PYTHONPATH
# puts first (cartog_ci.launch where it exists, else cartog_ci.cli).
_BOOT = (
    "import sys\n"
    "try:\n    from cartog_ci.launch import main\n"
    "except ImportError:\n    from cartog_ci.cli import main\n"
    "sys.argv[0] = 'cartog-ci'\nsys.exit(main())\n"
)


@dataclass
class Indexer:
    """``cartog-ci index`` of ``repo`` as a subprocess, as a user runs it,
    into index files outside the repository."""

    repo: Path
    env: dict[str, str]
    flags: tuple[str, ...] = ("--no-embed",)
    last_wall: float = 1.0  # seconds of the last incremental run: how long to wait before a kill

    def command(self, index: Path, *, force: bool = False) -> list[str]:
        extra = ["--force"] if force else []
        return [sys.executable, "-c", _BOOT, "index", str(self.repo), "--index", str(index), *self.flags, *extra]

    def run(self, index: Path, *, force: bool = False) -> subprocess.CompletedProcess[str]:
        start = time.perf_counter()
        done = subprocess.run(
            self.command(index, force=force), env=self.env, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        if not force:
            self.last_wall = time.perf_counter() - start
        return done

    def start(self, index: Path) -> subprocess.Popen[bytes]:
        """A run in a session of its own: a kill reaches its parse pool and
        forked resolver too."""
        return subprocess.Popen(
            self.command(index),
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )


class InProcessIndexer(Indexer):
    """The runs the steps check, in this process (``index_repository`` on
    the SQLite file, as the tests' ``index`` fixture does): a test pays no
    interpreter start for them. The runs a step kills or edits under are
    still the CLI's (``start``)."""

    def run(self, index: Path, *, force: bool = False) -> subprocess.CompletedProcess[str]:
        from cartog_ci import workspace
        from cartog_ci.index.cascade import index_repository

        start = time.perf_counter()
        code, error = 0, ""
        try:
            ws = workspace.locate(str(self.repo), str(index))
            with workspace.open_store(ws, create=True) as store:
                index_repository(self.repo, store, force=force)
        except Exception as exc:  # a failed run is a difference, reported with the rest
            code, error = 1, f"{type(exc).__name__}: {exc}"
        if not force:
            self.last_wall = max(time.perf_counter() - start, 0.3)  # a CLI run also starts Python
        return subprocess.CompletedProcess([], code, "", error)


def remove_index(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def copy_index(source: Path, dest: Path) -> None:
    remove_index(dest)
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{source}{suffix}").exists():
            shutil.copyfile(f"{source}{suffix}", f"{dest}{suffix}")


# -- the steps ---------------------------------------------------------------------

EDITS = ("edit_body", "append", "reorder", "rename_def")
# kind -> weight
WEIGHTS: dict[str, int] = {
    "checkout": 6,
    "commit": 4,
    "edit_body": 12,
    "append": 8,
    "reorder": 6,
    "rename_def": 4,
    "delete": 6,
    "restore": 6,
    "move": 5,
    "to_package": 4,
    "path_to_dir": 2,
    "delete_index": 3,
    "symlink": 3,
    "kill9": 6,
    "edit_mid_run": 6,
}


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=check)


@dataclass
class Walker:
    """One seeded walk: ``step()`` changes the work tree (and for the run
    kinds runs the index into ``index``) and says what it did."""

    repo: Path
    syntax: Syntax
    seed: int | str
    indexer: Indexer
    index: Path
    refs: Sequence[str] = ()  # releases to check out (tags); commits made are added
    rng: random.Random = field(init=False)
    deleted: dict[str, bytes] = field(default_factory=dict)  # path -> its bytes when deleted
    swapped: dict[str, str] = field(default_factory=dict)  # file -> where to_package / path_to_dir put it
    links: list[str] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    n: int = 0
    names: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(str(self.seed))
        self.names = self._collect_names()

    # -- what is there

    def sources(self) -> list[str]:
        found = []
        for top, dirs, files in os.walk(self.repo):
            dirs[:] = sorted(d for d in dirs if d != ".git")
            for name in files:
                full = os.path.join(top, name)
                if name.endswith(self.syntax.extensions) and not os.path.islink(full):
                    found.append(os.path.relpath(full, self.repo))
        return sorted(found)

    def _collect_names(self) -> list[str]:
        names: set[str] = set()
        for path in self.sources()[:400]:
            for match in self.syntax.defines.finditer(self._read(path)):
                names.update(g for g in match.groups() if g)
        return sorted(names) or ["main"]

    def _read(self, path: str) -> str:
        try:
            return (self.repo / path).read_text(encoding="utf-8", errors="surrogateescape")
        except (OSError, UnicodeError):
            return ""

    def _write(self, path: str, text: str) -> None:
        target = self.repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", errors="surrogateescape")

    def _pick(self, items: Sequence[str]) -> str | None:
        return self.rng.choice(list(items)) if items else None

    def _name(self) -> str:
        return self.rng.choice(self.names)

    # -- one step

    def step(self) -> tuple[str, str]:
        """(kind, what it did); kinds that cannot apply now give way to
        another draw."""
        return self.step_of(list(WEIGHTS))

    def step_of(self, kinds: Sequence[str]) -> tuple[str, str]:
        """A step of one of ``kinds``, drawn by their weights."""
        weights = [WEIGHTS[k] for k in kinds]
        for _ in range(50):
            kind = self.rng.choices(kinds, weights)[0]
            done = self._try(kind)
            if done is not None:
                return kind, done
        kind = "edit_body"
        return kind, self.edit_body() or "nothing"

    def _try(self, kind: str) -> str | None:
        try:
            done: str | None = getattr(self, kind)()
        except OSError as exc:  # a path the tree no longer allows: draw again
            print(f"step {kind} gave way: {exc}", file=sys.stderr)
            return None
        return done

    def _edit(self) -> str | None:
        """One of the edits, drawn at random (for the run kinds)."""
        for _ in range(10):
            kind = self.rng.choice((*EDITS, "delete", "move"))
            done = self._try(kind)
            if done is not None:
                return f"{kind} {done}"
        return None

    # history

    def checkout(self) -> str | None:
        targets = [r for r in (*self.refs, *self.commits)]
        target = self._pick(targets)
        if target is None:
            return None
        if git(self.repo, "checkout", "-q", "-f", target, check=False).returncode != 0:
            # an untracked file or directory stands where the target has one
            git(self.repo, "clean", "-q", "-f", "-d")
            git(self.repo, "checkout", "-q", "-f", target)
        self.swapped = {k: v for k, v in self.swapped.items() if (self.repo / v).exists()}
        self.links = [p for p in self.links if os.path.lexists(self.repo / p)]
        return target

    def commit(self) -> str | None:
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "--allow-empty", "--no-verify", "-m", f"step {self.n}")
        self.n += 1
        sha = git(self.repo, "rev-parse", "HEAD").stdout.strip()
        self.commits.append(sha)
        return sha[:10]

    # edits

    def edit_body(self) -> str | None:
        for _ in range(8):
            path = self._pick(self.sources())
            if path is None:
                return None
            lines = self._read(path).splitlines(keepends=True)
            opening = [i for i, line in enumerate(lines) if self.syntax.opens_body.match(line)]
            if not opening:
                continue
            i = self.rng.choice(opening)
            indent = self._body_indent(lines, i)
            lines.insert(i + 1, self.syntax.statement.format(indent=indent, name=self._name()))
            self._write(path, "".join(lines))
            return f"{path}:{i + 2}"
        return None

    def _body_indent(self, lines: list[str], i: int) -> str:
        for line in lines[i + 1 : i + 4]:
            if line.strip() and line.strip() != "}":
                return line[: len(line) - len(line.lstrip())]
        own = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        return own + ("\t" if self.syntax.language == "go" else "    ")

    def append(self) -> str | None:
        path = self._pick(self.sources())
        if path is None:
            return None
        text = self._read(path)
        self.n += 1
        added = self.syntax.function.format(n=self.n, name=self._name())
        if self.syntax.language == "java":
            end = text.rfind("}")
            if end < 0:
                return None
            text = text[:end] + added.lstrip("\n") + text[end:]
        else:
            text = text + ("" if text.endswith("\n") or not text else "\n") + added
        self._write(path, text)
        return path

    def reorder(self) -> str | None:
        for _ in range(8):
            path = self._pick(self.sources())
            if path is None:
                return None
            lines = self._read(path).splitlines(keepends=True)
            blocks = self._blocks(lines)
            if len(blocks) < 2:
                continue
            (a0, a1), (b0, b1) = sorted(self.rng.sample(blocks, 2))
            swapped = lines[:a0] + lines[b0:b1] + lines[a1:b0] + lines[a0:a1] + lines[b1:]
            self._write(path, "".join(swapped))
            return f"{path}:{a0 + 1}<->{b0 + 1}"
        return None

    def _blocks(self, lines: list[str]) -> list[tuple[int, int]]:
        """Line ranges [start, end) of the definitions ``reorder`` may swap,
        each with the decorators, attributes or doc comments above it."""
        starts = []
        for i, line in enumerate(lines):
            if self.syntax.top.match(line) and not (i and self.syntax.prefix.match(lines[i - 1])):
                starts.append(i)
            elif self.syntax.prefix.match(line) and not (i and self.syntax.prefix.match(lines[i - 1])):
                # a prefix run starts a block only when a definition follows it
                j = i
                while j < len(lines) and self.syntax.prefix.match(lines[j]):
                    j += 1
                if j < len(lines) and self.syntax.top.match(lines[j]):
                    starts.append(i)
        blocks = []
        for k, start in enumerate(starts):
            limit = starts[k + 1] if k + 1 < len(starts) else len(lines)
            if not self.syntax.closing:
                blocks.append((start, limit))
                continue
            end = next((j for j in range(start, limit) if lines[j].rstrip("\r\n") == self.syntax.closing), None)
            if end is not None:
                blocks.append((start, end + 1))
        return blocks

    def rename_def(self) -> str | None:
        for _ in range(8):
            path = self._pick(self.sources())
            if path is None:
                return None
            text = self._read(path)
            found = [m for m in self.syntax.defines.finditer(text)]
            if not found:
                continue
            match = self.rng.choice(found)
            group = 1 if match.group(1) else 2
            self.n += 1
            new = f"{match.group(group)}_r{self.n}"
            text = text[: match.start(group)] + new + text[match.end(group) :]
            self._write(path, text)
            return f"{path}: {match.group(group)} -> {new}"
        return None

    # files

    def delete(self) -> str | None:
        path = self._pick(self.sources())
        if path is None:
            return None
        self.deleted[path] = (self.repo / path).read_bytes()
        (self.repo / path).unlink()
        return path

    def restore(self) -> str | None:
        missing = sorted(p for p in self.deleted if not os.path.lexists(self.repo / p))
        path = self._pick(missing)
        if path is None:
            return None
        target = self.repo / path
        if _blocked(self.repo, path):
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(self.deleted.pop(path))
        return path

    def move(self) -> str | None:
        sources = self.sources()
        path = self._pick(sources)
        if path is None:
            return None
        dirs = sorted({os.path.dirname(p) for p in sources})
        where = self.rng.choice(dirs)
        stem, ext = os.path.splitext(os.path.basename(path))
        self.n += 1
        new = os.path.join(where, f"{stem}_m{self.n}{ext}") if self.rng.random() < 0.5 else os.path.join(where, f"{stem}{ext}")
        if os.path.lexists(self.repo / new) or _blocked(self.repo, new):
            new = os.path.join(where, f"{stem}_m{self.n}{ext}")
        tracked = git(self.repo, "ls-files", "--error-unmatch", path, check=False).returncode == 0
        if tracked and self.rng.random() < 0.5:
            (self.repo / new).parent.mkdir(parents=True, exist_ok=True)
            git(self.repo, "mv", "-k", path, new)
            if (self.repo / path).exists():
                os.replace(self.repo / path, self.repo / new)
        else:
            (self.repo / new).parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.repo / path, self.repo / new)
        return f"{path} -> {new}"

    def to_package(self) -> str | None:
        return self._swap(self.syntax.package_path, "to_package")

    def path_to_dir(self) -> str | None:
        return self._swap(lambda p: f"{p}/{os.path.basename(p)}", "path_to_dir")

    def _swap(self, where: Callable[[str], str], kind: str) -> str | None:
        """Turn a file into a directory (its content in the file ``where``
        names) or, half the time when one was turned, back."""
        back = [p for p, q in self.swapped.items() if q.startswith(f"{kind}:")]
        if back and self.rng.random() < 0.5:
            original = self.rng.choice(sorted(back))
            moved = self.swapped.pop(original).split(":", 1)[1]
            if not (self.repo / moved).is_file() or _blocked(self.repo, original):
                return None
            if os.path.lexists(self.repo / original) and not (self.repo / original).is_dir():
                return None
            data = (self.repo / moved).read_bytes()
            (self.repo / moved).unlink()
            _prune(self.repo, os.path.dirname(moved))
            if os.path.lexists(self.repo / original):  # the directory holds other files
                (self.repo / moved).parent.mkdir(parents=True, exist_ok=True)
                (self.repo / moved).write_bytes(data)
                return None
            (self.repo / original).parent.mkdir(parents=True, exist_ok=True)
            (self.repo / original).write_bytes(data)
            return f"{moved} -> {original}"
        path = self._pick([p for p in self.sources() if os.path.basename(p) not in self.syntax.index_names])
        if path is None:
            return None
        dest = where(path)
        if os.path.lexists(self.repo / dest) or _blocked(self.repo, dest, allow=path):
            return None
        data = (self.repo / path).read_bytes()
        (self.repo / path).unlink()
        (self.repo / dest).parent.mkdir(parents=True, exist_ok=True)
        (self.repo / dest).write_bytes(data)
        self.swapped[path] = f"{kind}:{dest}"
        return f"{path} -> {dest}"

    def delete_index(self) -> str | None:
        sources = self.sources()
        if self.syntax.index_names:
            candidates = [p for p in sources if os.path.basename(p) in self.syntax.index_names]
        else:  # Go: a file of a package that has others
            per_dir = Counter(os.path.dirname(p) for p in sources)
            candidates = [p for p in sources if per_dir[os.path.dirname(p)] > 1]
        path = self._pick(candidates)
        if path is None:
            return None
        self.deleted[path] = (self.repo / path).read_bytes()
        (self.repo / path).unlink()
        return path

    def symlink(self) -> str | None:
        sources = self.sources()
        if not sources:
            return None
        live = [p for p in self.links if os.path.islink(self.repo / p)]
        if live and self.rng.random() < 0.7:
            link = self.rng.choice(live)
            choice = self.rng.random()
            if choice < 0.15:
                target = "missing" + self.syntax.extensions[0]  # dangling
            elif choice < 0.25:
                target = "."  # a directory
            else:
                target = os.path.relpath(self.repo / self.rng.choice(sources), (self.repo / link).parent)
            (self.repo / link).unlink()
            os.symlink(target, self.repo / link)
            return f"{link} -> {target}"
        where = os.path.dirname(self.rng.choice(sources))
        self.n += 1
        link = os.path.join(where, f"cartog_link_{self.n}{self.syntax.extensions[0]}")
        target = os.path.relpath(self.repo / self.rng.choice(sources), self.repo / where)
        os.symlink(target, self.repo / link)
        self.links.append(link)
        return f"{link} -> {target} (new)"

    # runs

    def kill9(self) -> str | None:
        edit = self._edit()
        proc = self.indexer.start(self.index)
        delay = self.rng.uniform(0.0, 1.3 * self.indexer.last_wall)
        time.sleep(delay)
        exited = proc.poll() is not None
        if not exited:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return f"{edit}; killed after {delay:.2f}s" + (" (had exited)" if exited else "")

    def edit_mid_run(self) -> str | None:
        first = self._edit()
        proc = self.indexer.start(self.index)
        delay = self.rng.uniform(0.0, 1.3 * self.indexer.last_wall)
        time.sleep(delay)
        running = proc.poll() is None
        second = self._edit()
        proc.wait()
        when = "while running" if running else "after it exited"
        return f"{first}; {second} at {delay:.2f}s {when}"


def _blocked(repo: Path, path: str, allow: str | None = None) -> bool:
    """Whether a parent of ``path`` is a file (or a link) in the work tree."""
    parts = Path(path).parts
    for k in range(1, len(parts)):
        parent = os.path.join(*parts[:k])
        full = repo / parent
        if os.path.lexists(full) and not full.is_dir() and parent != allow:
            return True
        if os.path.islink(full):
            return True
    return False


def _prune(repo: Path, directory: str) -> None:
    while directory:
        try:
            (repo / directory).rmdir()
        except OSError:
            return
        directory = os.path.dirname(directory)


# -- comparing with a cold build ---------------------------------------------------


def snapshot(db: Path) -> dict[str, list[dict[str, object]]]:
    """What an index holds: ``export(store, hashes=True)`` (symbols with
    their hashes and in-degree, edges with targets), the files table and
    the search rows, from whichever checkout of cartog_ci is imported."""
    from cartog_ci.commands.export import export
    from cartog_ci.store.sqlite import SqliteStore

    with SqliteStore(db) as store:
        data = export(store, hashes=True)
        files = [
            {k: getattr(s, k) for k in ("path", "language", "sha256", "size", "lines", "merkle_hash", "status", "reason")}
            for _, s in sorted(store.file_states().items())
        ]
    return {
        "symbols": data["symbols"],
        "edges": data["edges"],
        "files": files,
        "search": _search_rows(db),
    }


def _search_rows(db: Path) -> list[dict[str, object]]:
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        columns = [r[1] for r in connection.execute("PRAGMA table_info(chunks)")]
        wanted = [c for c in ("symbol_id", "file", "text_hash", "content", "embed_chars", "embed_text") if c in columns]
        if "symbol_id" not in wanted:
            return []
        rows = connection.execute(f"SELECT {', '.join(wanted)} FROM chunks ORDER BY symbol_id")
        return [dict(zip(wanted, r)) for r in rows]
    except sqlite3.Error:
        return []
    finally:
        connection.close()


@dataclass
class Differences:
    """What differs, by cause: how many items, and one example each."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)

    def add(self, cause: str, example: str) -> None:
        self.counts[cause] += 1
        self.examples.setdefault(cause, example)

    def __bool__(self) -> bool:
        return bool(self.counts)


def compare(stored: dict[str, list[dict[str, object]]], cold: dict[str, list[dict[str, object]]]) -> Differences:
    found = Differences()
    _compare_keyed(found, "symbol", stored["symbols"], cold["symbols"], "id")
    _compare_keyed(found, "file", stored["files"], cold["files"], "path")
    _compare_keyed(found, "search row", stored["search"], cold["search"], "symbol_id")
    _compare_edges(found, stored["edges"], cold["edges"])
    return found


def _compare_keyed(
    found: Differences, what: str, stored: list[dict[str, object]], cold: list[dict[str, object]], key: str
) -> None:
    before = sum(found.counts.values())
    mine = {str(r[key]): r for r in stored}
    theirs = {str(r[key]): r for r in cold}
    for k in sorted(theirs.keys() - mine.keys()):
        found.add(f"{what} missing", k)
    for k in sorted(mine.keys() - theirs.keys()):
        found.add(f"{what} extra", k)
    for k in sorted(mine.keys() & theirs.keys()):
        a, b = mine[k], theirs[k]
        for column in b:
            if a.get(column) != b[column]:
                found.add(f"{what} {column} differs", f"{k}: stored {_short(a.get(column))}, cold {_short(b[column])}")
    if sum(found.counts.values()) == before and [str(r[key]) for r in stored] != [str(r[key]) for r in cold]:
        found.add(f"{what} order differs", "")


def _edge_key(e: dict[str, object]) -> tuple[object, ...]:
    return (e["source_id"], e["kind"], e["target_name"], e["file"], e["line"])


def _compare_edges(found: Differences, stored: list[dict[str, object]], cold: list[dict[str, object]]) -> None:
    mine: dict[tuple[object, ...], list[dict[str, object]]] = defaultdict(list)
    theirs: dict[tuple[object, ...], list[dict[str, object]]] = defaultdict(list)
    for e in stored:
        mine[_edge_key(e)].append(e)
    for e in cold:
        theirs[_edge_key(e)].append(e)
    unmatched_mine: list[dict[str, object]] = []
    unmatched_theirs: list[dict[str, object]] = []
    before = sum(found.counts.values())
    for key in sorted(mine.keys() | theirs.keys(), key=repr):
        a = sorted(mine.get(key, []), key=_target_order)
        b = sorted(theirs.get(key, []), key=_target_order)
        same = Counter(map(_target_order, a)) & Counter(map(_target_order, b))
        a = _without(a, same)
        b = _without(b, same)
        for x, y in zip(a, b):
            found.add(
                _target_cause(x, y),
                f"{_where(y)}: stored {x['target_id']} ({x['resolution']}), cold {y['target_id']} ({y['resolution']})",
            )
        unmatched_mine += a[len(b) :]
        unmatched_theirs += b[len(a) :]
    # an edge at another line: the same edge, its line not updated
    by_line: dict[tuple[object, ...], list[dict[str, object]]] = defaultdict(list)
    for e in unmatched_theirs:
        by_line[_edge_key(e)[:4] + (e["target_id"],)].append(e)
    for e in unmatched_mine:
        twins = by_line.get(_edge_key(e)[:4] + (e["target_id"],))
        if twins:
            twin = twins.pop()
            unmatched_theirs.remove(twin)
            found.add(f"edge line differs [{e['kind']}]", f"{_where(twin)}: stored line {e['line']}")
        else:
            found.add(f"edge extra [{e['kind']}]", f"{_where(e)} -> {e['target_id']}")
    for e in unmatched_theirs:
        found.add(f"edge missing [{e['kind']}]", f"{_where(e)} -> {e['target_id']}")
    if sum(found.counts.values()) == before and stored != cold:
        found.add("edge order differs", "")


def _target_order(e: dict[str, object]) -> tuple[str, str]:
    return (str(e["target_id"]), str(e["resolution"]))


def _without(edges: list[dict[str, object]], same: Counter[tuple[str, str]]) -> list[dict[str, object]]:
    left = Counter(same)
    out = []
    for e in edges:
        if left[_target_order(e)]:
            left[_target_order(e)] -= 1
        else:
            out.append(e)
    return out


def _target_cause(stored: dict[str, object], cold: dict[str, object]) -> str:
    kind = stored["kind"]
    if stored["target_id"] == cold["target_id"]:
        return f"edge resolution differs [{kind}]"
    if stored["target_id"] is None:
        return f"edge target missing [{kind}]"
    if cold["target_id"] is None:
        return f"edge target stale [{kind}]"
    return f"edge target differs [{kind}]"


def _where(e: dict[str, object]) -> str:
    return f"{e['file']}:{e['line']} {e['source_id']} {e['kind']} {e['target_name']}"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# -- one walk ------------------------------------------------------------------------


@dataclass(frozen=True)
class StepResult:
    step: int
    kind: str
    detail: str
    differences: Differences
    seconds: float


def walk(
    walker: Walker,
    steps: int,
    cold: Path,
    *,
    on_step: Callable[[StepResult], None] | None = None,
) -> list[StepResult]:
    """``steps`` steps, each followed by an incremental run into the
    walker's index, a cold run into ``cold`` and the comparison of the two.

    After a step that differs, the incremental index is replaced by the cold
    one: each step is judged on its own, from an index equal to a cold build
    (a drift would otherwise make every later step differ)."""
    indexer = walker.indexer
    results = []
    for number in range(steps):
        start = time.perf_counter()
        kind, detail = walker.step()
        found = Differences()
        incremental = indexer.run(walker.index)
        remove_index(cold)
        full = indexer.run(cold, force=True)
        if full.returncode != 0:
            raise RuntimeError(f"cold index failed after {kind} {detail}: {full.stderr.strip()[-500:]}")
        if incremental.returncode != 0:
            found.add("index run failed", _last_line(incremental.stderr))
        else:
            found = compare(snapshot(walker.index), snapshot(cold))
        if found:
            copy_index(cold, walker.index)
        result = StepResult(number, kind, detail, found, time.perf_counter() - start)
        results.append(result)
        if on_step:
            on_step(result)
    return results


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "(no output)"


def first_index(indexer: Indexer, index: Path) -> None:
    remove_index(index)
    done = indexer.run(index)
    if done.returncode != 0:
        raise RuntimeError(f"first index failed: {done.stderr.strip()[-500:]}")


def environment(home: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """The CLI's environment: the tool's home in ``home``, no shared
    database, no index path from the caller's shell."""
    env = dict(os.environ if base is None else base)
    for name in ("CARTOG_CI_DATABASE_URL", "CARTOG_CI_INDEX"):
        env.pop(name, None)
    env["CARTOG_CI_HOME"] = str(home)
    return env


def summarize(results: Iterable[StepResult]) -> Counter[str]:
    total: Counter[str] = Counter()
    for r in results:
        total.update(r.differences.counts)
    return total
