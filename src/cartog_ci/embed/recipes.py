"""Which conversion of the packaged model this CPU gets (embed/onnx.py),
known without importing numpy or onnxruntime: `config_key` names it, so an
index embedded under another recipe is embedded again (docs/search.md)."""

from __future__ import annotations

import functools

# 3: uint8 weights, graph optimisation `basic`: any CPU.
# 4: int8 weights in onnxruntime's fused 8-bit MatMuls: x86 with VNNI only.
VNNI_RECIPE, PORTABLE_RECIPE = 4, 3


def recipes() -> tuple[int, ...]:
    """The recipes this CPU may use, best first."""
    return (VNNI_RECIPE, PORTABLE_RECIPE) if has_vnni() else (PORTABLE_RECIPE,)


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
