"""Real corpora for the benchmarks: a PyPI sdist, unpacked, committed as a git repo.

Each corpus lives in ``benchmarks/.corpora/<package>-<version>/`` (git-ignored).
The sdist is downloaded once into ``benchmarks/.corpora/downloads/`` and the
repository is built once, so re-runs touch neither the network nor git.
Commits use a pinned identity and date, so the same sdist gives the same
commit hash on every machine. An npm tarball (``NpmCorpus``, ``ensure_npm``)
is built the same way, under ``benchmarks/.corpora/npm-<package>-<version>/``,
and so is the upstream tarball of a Debian source package (``DebianCorpus``,
``apt-get source --tar-only``: a node project's whole repository, tests and
docs included) under ``benchmarks/.corpora/deb-<package>-<version>/``.

    .venv/bin/python benchmarks/corpora.py            # materialise all, print sizes
    .venv/bin/python benchmarks/corpora.py --corpus small

Sizes (``*.py`` + ``*.pyi``, lines as ``wc -l``), measured when chosen:

=========  ===================  =====  =======  ==================================
name       sdist                files  lines    why this one
=========  ===================  =====  =======  ==================================
small      markdown-it-py 3.0.0    68    6,988  closest to ~70 files / ~4k lines of
                                                the candidates tried (click 71/17.6k,
                                                attrs 62/19.0k, mistune 47/5.1k,
                                                pluggy 30/4.7k, flake8 34/4.8k)
medium     celery 5.4.0           385   84,973  closest to ~500 files / ~90k lines
                                                (setuptools 427/114k, pip 413/131k,
                                                sphinx 674/118k, poetry 410/60k,
                                                ipython 300/77k); none has 500
large      Django 5.1           2,788  473,187  the issue's large corpus
scrapy     Scrapy 2.11.0          345   62,196  resolution oracle (oracle_python.py):
                                                attribute-heavy framework code
rich       rich 13.7.1             78   26,427  resolution oracle: typed library
                                                code, local aliases, ``cls()``
=========  ===================  =====  =======  ==================================
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPORA_DIR = HERE / ".corpora"
DOWNLOADS = CORPORA_DIR / "downloads"
READY_MARK = ".cartog-bench-ready"  # inside .git: the commit finished


@dataclass(frozen=True)
class Corpus:
    name: str
    package: str
    version: str
    # The file the incremental benchmark edits (a typical mid-sized module).
    edit_target: str

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"

    @property
    def root(self) -> Path:
        return CORPORA_DIR / f"{self.package.lower()}-{self.version}"


@dataclass(frozen=True)
class NpmCorpus:
    """A package as the npm registry ships it (``npm pack``): what its
    ``files`` list publishes, sources included for some packages."""

    name: str
    package: str  # "rxjs", "@lobehub/chat"
    version: str

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"

    @property
    def slug(self) -> str:
        """npm pack's file-name stem: ``@lobehub/chat`` -> ``lobehub-chat``."""
        return self.package.lstrip("@").replace("/", "-")

    @property
    def root(self) -> Path:
        return CORPORA_DIR / f"npm-{self.slug}-{self.version}"


@dataclass(frozen=True)
class DebianCorpus:
    """The upstream tarball (``<package>_<version>.orig.tar.*``) of a Debian
    source package, as ``apt-get source --download-only --tar-only`` fetches
    it from the machine's deb-src entries: whatever revision of the package
    the archive carries, its upstream tarball must be ``version``'s."""

    name: str
    package: str  # the source package: "node-ts-loader"
    version: str  # the upstream version: "9.4.2"

    @property
    def root(self) -> Path:
        return CORPORA_DIR / f"deb-{self.package}-{self.version}"


CORPORA: dict[str, Corpus] = {
    c.name: c
    for c in (
        Corpus("small", "markdown-it-py", "3.0.0", "markdown_it/rules_inline/emphasis.py"),
        Corpus("medium", "celery", "5.4.0", "celery/app/amqp.py"),
        Corpus("large", "django", "5.1", "django/db/models/query.py"),
        Corpus("scrapy", "Scrapy", "2.11.0", "scrapy/http/request/__init__.py"),
        Corpus("rich", "rich", "13.7.1", "rich/table.py"),
        Corpus("prefect", "prefect", "3.0.0", "src/prefect/flows.py"),
        Corpus("fastapi", "fastapi", "0.115.0", "fastapi/routing.py"),
    )
}
# The size ladder of the index benchmarks; the other entries serve the
# resolution oracle (benchmarks/oracle_python.py).
SIZES = ("small", "medium", "large")
ALIASES = {c.package.lower(): c.name for c in CORPORA.values()}

# A pinned identity and date, and no user or system git configuration.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "cartog-ci bench",
    "GIT_AUTHOR_EMAIL": "bench@cartog-ci.invalid",
    "GIT_COMMITTER_NAME": "cartog-ci bench",
    "GIT_COMMITTER_EMAIL": "bench@cartog-ci.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TEMPLATE_DIR": "",
}


def get(name: str) -> Corpus:
    key = ALIASES.get(name.lower(), name.lower())
    if key not in CORPORA:
        choices = ", ".join(sorted(CORPORA) + sorted(ALIASES))
        raise SystemExit(f"unknown corpus {name!r}; choose from {choices}")
    return CORPORA[key]


def select(names: Sequence[str] | None, default: Sequence[str]) -> list[Corpus]:
    return [get(n) for n in (names or default)]


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return proc.stdout


def settle(repo: Path) -> None:
    """The work tree's stat data refreshed in git's index (what any ``git
    status`` without ``--no-optional-locks`` does): files a checkout wrote in
    the same clock tick as the index are "racily clean", and until the index
    is written again every ``git status`` reads them whole. The tools run
    git with ``--no-optional-locks``, which never writes it: without this, a
    clone's racy files (a few dozen of Django's, by chance) cost its tool
    ~30 ms of git CPU a run (a Django one-file edit: 72 ms of git children
    against 42 ms once refreshed), whichever clone drew them.

    git compares whole seconds: an index written in the second a file was
    written leaves that file racy still, so the refresh waits for the next
    second (a Django clone refreshed at once: 0.10 s a ``git status``, 0.03
    s refreshed a second later). The 10 ms margin covers the kernel's
    coarse clock, which file times are read from."""
    time.sleep(1.01 - time.time() % 1.0)
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "-C", str(repo), "update-index", "-q", "--refresh"], env=env, capture_output=True, check=False)


def _sdist(corpus: Corpus) -> Path:
    """The cached sdist archive, downloaded on first use."""
    target = DOWNLOADS / f"{corpus.package.lower()}-{corpus.version}"
    found = _archives(target)
    if found:
        return found[0]
    target.mkdir(parents=True, exist_ok=True)
    print(f"downloading {corpus.requirement} (sdist) ...", file=sys.stderr)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
         "--no-binary", ":all:", corpus.requirement, "-d", str(target)],
        check=True,
    )  # fmt: skip
    found = _archives(target)
    if not found:
        raise SystemExit(f"pip download gave no .tar.gz or .zip sdist for {corpus.requirement}")
    return found[0]


def _archives(target: Path) -> list[Path]:
    """The sdist in ``target``: a .tar.gz, or a .zip (IMAPClient 3.0.1 ships one)."""
    if not target.is_dir():
        return []
    return sorted(target.glob("*.tar.gz")) + sorted(target.glob("*.zip"))


def _npm_tarball(corpus: NpmCorpus) -> Path:
    """The cached ``npm pack`` tarball (its directory is shared with
    benchmarks/languages.py, which fetches rxjs the same way)."""
    target = DOWNLOADS / f"{corpus.slug}-{corpus.version}"
    found = sorted(target.glob("*.tgz")) if target.is_dir() else []
    if found:
        return found[0]
    target.mkdir(parents=True, exist_ok=True)
    print(f"downloading {corpus.spec} (npm tarball) ...", file=sys.stderr)
    cmd = ["npm", "pack", "--silent", corpus.spec, "--pack-destination", str(target)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    found = sorted(target.glob("*.tgz"))
    if not found:
        raise SystemExit(f"npm pack gave no tarball for {corpus.spec}")
    return found[0]


def _unpack(archive: Path, dest: Path) -> None:
    """Extract the sdist's single top directory's contents into ``dest``."""
    with tempfile.TemporaryDirectory(dir=CORPORA_DIR) as tmp:
        if archive.suffix == ".zip":
            with zipfile.ZipFile(archive) as zipped:
                zipped.extractall(tmp)
        else:
            with tarfile.open(archive) as tar:
                tar.extractall(tmp, filter="data")
        tops = list(Path(tmp).iterdir())
        source = tops[0] if len(tops) == 1 and tops[0].is_dir() else Path(tmp)
        shutil.move(str(source), str(dest))


def _debian_tarball(corpus: DebianCorpus) -> Path:
    """The cached upstream tarball of a Debian source package."""
    target = DOWNLOADS / f"deb-{corpus.package}-{corpus.version}"
    pattern = f"{corpus.package}_{corpus.version}.orig.tar.*"
    found = sorted(target.glob(pattern)) if target.is_dir() else []
    if found:
        return found[0]
    target.mkdir(parents=True, exist_ok=True)
    print(f"downloading {corpus.package} {corpus.version} (apt-get source --tar-only) ...", file=sys.stderr)
    cmd = ["apt-get", "source", "--download-only", "--tar-only", "-q", corpus.package]
    done = subprocess.run(cmd, cwd=target, stdout=subprocess.DEVNULL)
    found = sorted(target.glob(pattern))
    if not found:
        have = ", ".join(p.name for p in target.iterdir()) or "nothing"
        # apt takes the newest revision its deb-src lines offer: bookworm's
        # node-rollup is 3.15.0, trixie's 3.29.5
        raise SystemExit(
            f"apt-get source (exit {done.returncode}) gave {have}, not {pattern}: apt needs deb-src lines "
            "for bookworm and trixie (Types: deb deb-src in /etc/apt/sources.list.d/debian.sources, "
            "then apt-get update), or the archive has another version now"
        )
    return found[0]


def ensure(corpus: Corpus | DebianCorpus) -> Path:
    """The corpus as a committed git repository (built once, then reused)."""
    if isinstance(corpus, DebianCorpus):
        message = f"{corpus.package} {corpus.version} (Debian upstream tarball)"
        return _build(corpus.root, lambda: _debian_tarball(corpus), message)
    return _build(corpus.root, lambda: _sdist(corpus), f"{corpus.requirement} sdist")


def ensure_npm(corpus: NpmCorpus) -> Path:
    """An npm corpus as a committed git repository (built once, then reused)."""
    return _build(corpus.root, lambda: _npm_tarball(corpus), f"{corpus.spec} npm tarball")


@contextlib.contextmanager
def building(root: Path) -> Iterator[None]:
    """Held while ``root`` is built: two benchmarks started together (two
    sessions on one machine) would otherwise both unpack into it, and
    ``shutil.move`` put the second copy inside the first (a Django corpus
    whose every path gained a ``Django-5.1/`` twin). The caller checks
    ``READY_MARK`` again once it holds the lock."""
    locks = CORPORA_DIR / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    with open(locks / root.name, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


def _build(root: Path, fetch: Callable[[], Path], message: str) -> Path:
    """Unpack the archive ``fetch`` returns into ``root`` and commit it, once."""
    if (root / ".git" / READY_MARK).exists():
        return root
    with building(root):
        return _build_locked(root, fetch, message)


def _build_locked(root: Path, fetch: Callable[[], Path], message: str) -> Path:
    if (root / ".git" / READY_MARK).exists():  # built by another process meanwhile
        return root
    if root.exists():
        shutil.rmtree(root)  # a half-built corpus from an interrupted run
    archive = fetch()
    CORPORA_DIR.mkdir(parents=True, exist_ok=True)
    print(f"building {root.relative_to(HERE)} ...", file=sys.stderr)
    _unpack(archive, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A", "-f", ".")
    git(root, "commit", "-q", "--no-verify", "-m", message)
    (root / ".git" / READY_MARK).touch()
    return root


def python_size(root: Path) -> tuple[int, int]:
    """(files, lines) of tracked ``*.py`` / ``*.pyi`` files, lines as ``wc -l``."""
    files = lines = 0
    for path in git(root, "ls-files", "-z", "*.py", "*.pyi").split("\0"):
        if path:
            files += 1
            lines += (root / path).read_bytes().count(b"\n")
    return files, lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        action="append",
        help="small | medium | large | scrapy | rich or a package name (repeatable; default: all)",
    )
    args = parser.parse_args(argv)
    print(f"{'corpus':<8} {'sdist':<22} {'py files':>8} {'py lines':>9}  path")
    for corpus in select(args.corpus, list(CORPORA)):
        root = ensure(corpus)
        files, lines = python_size(root)
        print(f"{corpus.name:<8} {corpus.requirement:<22} {files:>8} {lines:>9}  {root.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
