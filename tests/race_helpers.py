"""Helpers for the race and crash tests: a process that keeps swapping a folder for a link."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SWAPPER = r"""
import ctypes, os, sys, time
a, b, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
libc = ctypes.CDLL(None, use_errno=True)
renameat2 = getattr(libc, "renameat2", None)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
exchange = renameat2 is not None and renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE) == 0
print("exchange" if exchange else "rename", flush=True)
spare = a + ".spare"
end = time.monotonic() + seconds
while time.monotonic() < end:
    try:
        if exchange:
            renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE)
        else:
            os.rename(a, spare); os.rename(b, a); os.rename(a, b); os.rename(spare, a)
    except OSError:
        pass
"""


def start_swapper(folder: Path, link: Path, seconds: float) -> subprocess.Popen[str]:
    """Swap ``folder`` and ``link`` (by their names) over and over for ``seconds`` in another process."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(folder), str(link), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    proc.stdout.readline()
    return proc


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder`` (not following links) with its content or kind."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[rel] = "link"
        elif path.is_file():
            found[rel] = path.read_bytes()
        else:
            found[rel] = "folder"
    return found
