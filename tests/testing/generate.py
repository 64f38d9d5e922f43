"""Generated source trees that look like real projects, for the robustness
tests and the memory benchmark: packages of Python modules that import each
other, classes with methods that call their siblings and imported helpers,
docstrings and comments, plus some TypeScript, Go and Markdown.

Deterministic: the same (files, seed) gives the same bytes.
"""

from __future__ import annotations

import random
from pathlib import Path

_VERBS = "load save parse render build check fetch merge split apply compute resolve update send read write".split()
_NOUNS = "order user item invoice token config report cache record event session price batch queue".split()


def _name(rng: random.Random) -> str:
    return f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}"


def _camel(snake: str) -> str:
    return "".join(part.title() for part in snake.split("_"))


def python_module(rng: random.Random, index: int, imports: list[tuple[str, str]], functions: int = 6) -> str:
    """About 12 lines per function; ``imports`` are (module, function) pairs."""
    lines = [f'"""Module {index}: {rng.choice(_NOUNS)} handling."""', "", "from __future__ import annotations", ""]
    lines += [f"from {module} import {name}" for module, name in imports]
    lines += ["", ""]
    names = [f"{_name(rng)}_{index}_{i}" for i in range(functions)]
    called = [name for _, name in imports]
    for i, name in enumerate(names):
        callee = rng.choice(called + names[:i]) if (called or i) else None
        lines += [
            f"def {name}(value, *, limit=10):",
            f'    """{name.replace("_", " ").capitalize()}."""',
            "    # keep the original when nothing changes",
            "    result = []",
            "    for step in range(limit):",
            f"        result.append(value * step + {rng.randint(1, 99)})",
        ]
        lines += [f"    return {callee}(result)" if callee else "    return result"]
        lines += ["", ""]
    cls = _camel(_name(rng)) + str(index)
    lines += [f"class {cls}:", f'    """A {cls} service."""', "", "    def __init__(self, store):", "        self.store = store", ""]
    for i in range(3):
        method = f"{_name(rng)}_{i}"
        lines += [
            f"    def {method}(self, key):",
            f"        found = self.store.get(key, {i})",
            f"        return {rng.choice(names)}(found)",
            "",
        ]
    return "\n".join(lines) + "\n"


def typescript_module(rng: random.Random, index: int) -> str:
    name = _camel(_name(rng)) + str(index)
    return (
        f"import {{ readFileSync }} from 'fs';\n\n"
        f"export interface {name}Options {{\n  limit: number;\n  label?: string;\n}}\n\n"
        f"export class {name} {{\n  constructor(private readonly opts: {name}Options) {{}}\n\n"
        f"  run(path: string): string[] {{\n    const text = readFileSync(path, 'utf8');\n"
        f"    return this.split(text).slice(0, this.opts.limit);\n  }}\n\n"
        f"  private split(text: string): string[] {{\n    return text.split('\\n');\n  }}\n}}\n\n"
        f"export function make{name}(limit: number): {name} {{\n  return new {name}({{ limit }});\n}}\n"
    )


def go_module(rng: random.Random, index: int) -> str:
    name = _camel(_name(rng)) + str(index)
    return (
        f"package gen\n\nimport \"strings\"\n\n// {name} keeps a count.\ntype {name} struct {{\n\tcount int\n}}\n\n"
        f"// Add adds words.\nfunc (s *{name}) Add(text string) int {{\n\ts.count += len(strings.Fields(text))\n"
        f"\treturn s.count\n}}\n\nfunc New{name}() *{name} {{\n\treturn &{name}{{}}\n}}\n"
    )


def markdown_doc(rng: random.Random, index: int) -> str:
    parts = [f"# Guide {index}\n\nHow to {_name(rng).replace('_', ' ')}.\n"]
    for i in range(3):
        parts.append(f"## Step {i}\n\nRun `{_name(rng)}` then check [the module](pkg0/mod0.py).\n")
    return "\n".join(parts)


def generate_repo(root: Path, files: int, *, seed: int = 0, functions: int = 6) -> list[str]:
    """Write ``files`` source files under ``root`` (80% Python, then TS, Go,
    Markdown); return their repository paths."""
    rng = random.Random(seed)
    paths: list[str] = []
    python_modules: list[tuple[str, str]] = []  # (dotted module, one of its functions)
    for i in range(files):
        kind = i % 10
        package = f"pkg{i // 50}"
        if kind < 8:
            imports = rng.sample(python_modules, min(2, len(python_modules))) if python_modules else []
            text = python_module(rng, i, imports, functions)
            path = f"{package}/mod{i}.py"
            first = text.split("def ", 1)[1].split("(", 1)[0]
            python_modules.append((f"{package}.mod{i}", first))
        elif kind == 8:
            text, path = (typescript_module(rng, i), f"web/{package}/m{i}.ts") if i % 20 else (go_module(rng, i), f"svc/{package}/m{i}.go")
        else:
            text, path = markdown_doc(rng, i), f"docs/{package}/guide{i}.md"
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        paths.append(path)
    for package in {p.split("/", 1)[0] for p in paths if p.startswith("pkg")}:
        (root / package / "__init__.py").touch()
    return paths


def big_python_file(lines: int, *, seed: int = 0) -> str:
    """One module of about ``lines`` lines (functions calling earlier ones)."""
    rng = random.Random(seed)
    out = ['"""One very large generated module."""', ""]
    names: list[str] = []
    while len(out) < lines:
        name = f"{_name(rng)}_{len(names)}"
        callee = names[rng.randrange(len(names))] if names else "len"
        out += [
            f"def {name}(value, limit=3):",
            "    total = 0",
            "    for step in range(limit):",
            f"        total += {callee}(value) if step else step",
            "    return total",
            "",
        ]
        names.append(name)
    return "\n".join(out[:lines]) + "\n"
