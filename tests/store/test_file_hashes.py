"""``file_hashes`` of an SQLite index is read once while the file stays as
it was (store/sqlite.py): an index run plans from it and the report's
compiler tier hashes its program from it. A write of the same connection,
a commit of another, and a transaction rolled back each read it again."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

from cartog_ci.domain import FileState
from cartog_ci.store.sqlite import SqliteStore


def _state(path: str, sha: str) -> FileState:
    return FileState(path, "python", sha, 10, 1, "m" + sha, "indexed", "")


def test_the_hashes_follow_every_write_and_a_rollback(tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    with SqliteStore(db) as store:
        with store.transaction():
            store.put_file(_state("a.py", "1" * 64))
        reads: list[str] = []

        def traced(cursor: apsw.Cursor, sql: str, bindings: object) -> bool:
            reads.extend([sql] if "FROM files ORDER BY path" in sql else [])
            return True

        store.db.exec_trace = traced
        first = store.file_hashes()
        assert first == {"a.py": ("1" * 64, "indexed")}
        first["b.py"] = ("x", "y")  # a copy: the next answer is the file's
        assert store.file_hashes() == {"a.py": ("1" * 64, "indexed")}
        assert len(reads) == 1  # nothing written in between: read once

        with store.transaction():  # this connection's write
            store.put_file(_state("b.py", "2" * 64))
        assert store.file_hashes() == {"a.py": ("1" * 64, "indexed"), "b.py": ("2" * 64, "indexed")}

        with pytest.raises(RuntimeError), store.transaction():  # read inside, then rolled back
            store.put_file(_state("c.py", "3" * 64))
            assert set(store.file_hashes()) == {"a.py", "b.py", "c.py"}
            raise RuntimeError("undone")
        assert set(store.file_hashes()) == {"a.py", "b.py"}

        other = apsw.Connection(str(db))  # another process's commit
        other.execute("UPDATE files SET sha256 = ? WHERE path = 'a.py'", ("4" * 64,))
        other.close()
        assert store.file_hashes()["a.py"] == ("4" * 64, "indexed")
