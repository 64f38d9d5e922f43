"""cartog-ci: what a code change touches and what it can break."""

from __future__ import annotations

import os

# onnxruntime >= 1.32 writes a device id under ~/.cache and tries to upload
# telemetry unless this is set before its first import: no byte leaves the machine.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

__version__ = "0.1.0"
