"""The security tests attack the real app and server; they reuse the UI tests' live-app helpers."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ui"))
