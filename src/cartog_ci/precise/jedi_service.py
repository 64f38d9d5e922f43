"""The compiler tier's Python side (docs/report.md, "The compiler tier"): one
process per report that asks jedi where call sites go. Run by
``precise/python.py`` as ``python jedi_service.py REPO`` with the
interpreter cartog-ci runs on (jedi comes from the ``precise`` extra, never
downloaded); standard library and jedi only, so that it runs as a script.

Same protocol as ``ts_service.mjs``: JSON lines on stdin, first
``{"files": [...]}``, then ``{"id", "file", "line", "name"}`` per call site
(``line``: where the called expression starts, the line of cartog-ci's
edge); on stdout ``{"ready": true, "jedi": version}``, then per site
``{"id", "targets": [{file, line, name, kind}], "external", "calls"}``.
jedi is asked ``goto(follow_imports=True)`` at the called name, and
``infer`` when goto lands on no function or class (a parameter, an
assignment): how benchmarks/jedi_sites.py asks the oracle.
"""

from __future__ import annotations

import ast
import json
import os
import pickle
import sys
import tempfile
import warnings
from contextlib import suppress
from pathlib import Path
from typing import Any

DEFINITION_TYPES = frozenset({"function", "class"})


def _calls(code: str) -> dict[tuple[int, str], list[tuple[int, int]]]:
    """(line where the called expression starts, called name) -> the name's
    positions (line, column in characters), for every call of the file."""
    out: dict[tuple[int, str], list[tuple[int, int]]] = {}
    lines = code.splitlines()
    for node in ast.walk(ast.parse(code)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            name, line, byte_col = func.id, func.lineno, func.col_offset
        elif isinstance(func, ast.Attribute) and func.end_lineno is not None and func.end_col_offset is not None:
            name, line, byte_col = func.attr, func.end_lineno, func.end_col_offset - len(func.attr.encode("utf-8"))
        else:
            continue
        text = lines[line - 1] if line <= len(lines) else ""
        col = len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))
        out.setdefault((func.lineno, name), []).append((line, col))
    return out


def _crash_safe_parso_cache() -> None:
    """parso pickles each parsed module into jedi's cache folder in place
    (``parso/cache.py`` ``_save_to_file_system``): a service killed at the
    budget while it writes leaves a truncated pickle, and from then on every
    site that needs that module fails (``EOFError: Ran out of input``) in
    every report, until someone deletes the folder. Here a pickle is written
    to a temporary file and renamed over the old one, and one that does not
    load is read as a cache miss (parsed again, written again)."""
    try:
        from parso import cache  # type: ignore[import-untyped,import-not-found,unused-ignore]

        load, path_of = cache._load_from_file_system, cache._get_hashed_path
    except (ImportError, AttributeError):  # another parso: its own cache as it is
        return

    def save(hashed_grammar: str, path: Any, item: Any, cache_path: Any = None) -> None:
        target = path_of(hashed_grammar, path, cache_path=cache_path)
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".cartog-ci-")
        try:
            with os.fdopen(fd, "wb") as out:
                pickle.dump(item, out, pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, target)
        except BaseException:
            with suppress(OSError):
                os.unlink(temporary)
            raise

    def load_or_miss(hashed_grammar: str, path: Any, p_time: Any, cache_path: Any = None) -> Any:
        try:
            return load(hashed_grammar, path, p_time, cache_path=cache_path)
        except (EOFError, pickle.UnpicklingError, AttributeError, ImportError, IndexError, TypeError, ValueError):
            with suppress(OSError):
                os.unlink(path_of(hashed_grammar, path, cache_path=cache_path))
            return None

    cache._save_to_file_system, cache._load_from_file_system = save, load_or_miss


class Service:
    def __init__(self, root: Path) -> None:
        # no stubs; the parent checked that it is installed
        import jedi  # type: ignore[import-untyped,import-not-found,unused-ignore]

        self.jedi = jedi
        self.root = root
        self.project = jedi.Project(str(root))
        self.environment = jedi.InterpreterEnvironment()
        self.files: dict[str, tuple[Any, dict[tuple[int, str], list[tuple[int, int]]]] | None] = {}

    def _file(self, file: str) -> tuple[Any, dict[tuple[int, str], list[tuple[int, int]]]] | None:
        if file not in self.files:
            path = self.root / file
            try:
                code = path.read_text(encoding="utf-8", errors="replace")
                calls = _calls(code)
            except (OSError, SyntaxError, ValueError):
                self.files[file] = None
            else:
                script = self.jedi.Script(code, path=path, project=self.project, environment=self.environment)
                self.files[file] = (script, calls)
        return self.files[file]

    def answer(self, site: dict[str, Any]) -> dict[str, Any]:
        found = self._file(str(site["file"]))
        positions = found[1].get((int(site["line"]), str(site["name"])), []) if found else []
        targets: dict[tuple[str, int, str, str], None] = {}
        external = False
        for at in positions:
            assert found is not None
            names = found[0].goto(*at, follow_imports=True)
            if not names or any(n.type not in DEFINITION_TYPES for n in names):
                names = list(names) + list(found[0].infer(*at))
            for name in names:
                if name.type not in DEFINITION_TYPES:
                    continue
                path = name.module_path
                if path is None or not Path(path).is_relative_to(self.root):
                    external = True
                    continue
                targets[(Path(path).relative_to(self.root).as_posix(), name.line or 0, name.name, name.type)] = None
        listed = [{"file": f, "line": line, "name": n, "kind": k} for f, line, n, k in targets]
        return {"id": site["id"], "targets": listed, "external": external, "calls": len(positions)}


def main() -> int:
    warnings.filterwarnings("ignore")  # jedi warns of modules it cannot import: nothing to act on
    _crash_safe_parso_cache()
    root = Path(sys.argv[1]).resolve()
    service: Service | None = None
    for line in sys.stdin:
        message = json.loads(line)
        if "files" in message:
            service = Service(root)
            out: dict[str, Any] = {"ready": True, "jedi": service.jedi.__version__}
        else:
            assert service is not None
            try:
                out = service.answer(message)
            except Exception as exc:  # jedi has bugs of its own: one site must not sink the others
                out = {"id": message["id"], "error": f"{type(exc).__name__}: {exc}".splitlines()[0]}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
