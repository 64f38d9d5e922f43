"""Which conversion of the packaged model this CPU gets (embed/onnx.py),
known without importing numpy or onnxruntime: `config_key` names it, so an
index embedded under another recipe is embedded again (docs/search.md)."""

from __future__ import annotations

import functools
import os

# 5: int8 weights in 7 bits, graph optimisation `basic`: any CPU (recipe 3,
# uint8 weights, before it).
# 4: int8 weights in onnxruntime's fused 8-bit MatMuls: x86 with VNNI only.
VNNI_RECIPE, PORTABLE_RECIPE = 4, 5
# Recipe 4 only when asked: its vectors are not recipe 5's, so an index (or
# the Action's cached index, or a shared graph) that moves between a CPU with
# VNNI and one without would be embedded again each time it moves (CI
# runners of one pool differ). A team whose machines all have VNNI opts in.
OPT_IN = "CARTOG_CI_EMBED_VNNI"


def recipes() -> tuple[int, ...]:
    """The recipes this CPU may use, best first: recipe 4 where the CPU has
    VNNI and ``CARTOG_CI_EMBED_VNNI=1`` asks for it."""
    chosen = os.environ.get(OPT_IN) == "1" and has_vnni()
    return (VNNI_RECIPE, PORTABLE_RECIPE) if chosen else (PORTABLE_RECIPE,)


@functools.cache
def has_vnni() -> bool:
    """Whether this x86 CPU has VNNI (AVX-512 or AVX), as Linux reports it.
    Without it onnxruntime's int8-weight kernels add pairs of products in
    16 bits and saturate (recipe 1, cosine 0.985 against the shipped model):
    elsewhere (other systems, other architectures) the portable recipe is
    used."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return bool({"avx512_vnni", "avx_vnni"} & set(line.split(":", 1)[-1].split()))
    except OSError:
        pass
    return False
