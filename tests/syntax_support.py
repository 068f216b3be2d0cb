"""Shared pieces of the syntax tests: real files on this machine, and the skip without the extra."""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from editblocks.syntax import missing

MISSING = missing()
needs_ast = pytest.mark.skipif(
    MISSING is not None,
    reason=f"needs the ast extra (pip install 'editblocks[ast]'): {MISSING}",
)

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def stdlib_file(name: str) -> Path:
    path = STDLIB / name
    if not path.is_file():
        pytest.skip(f"the standard library on this machine has no {name}")
    return path


def npm_root() -> Path:
    """npm's own install folder (its JavaScript), or a skip when npm is not installed."""
    candidates = [Path("/usr/lib/node_modules/npm"), Path("/usr/local/lib/node_modules/npm")]
    npm = shutil.which("npm")
    if npm:
        try:
            out = subprocess.run([npm, "root", "-g"], capture_output=True, text=True, timeout=60)
            if out.returncode == 0 and out.stdout.strip():
                candidates.insert(0, Path(out.stdout.strip()) / "npm")
        except (OSError, subprocess.TimeoutExpired):
            pass
    for c in candidates:
        if (c / "lib" / "npm.js").is_file():
            return c
    pytest.skip("npm's JavaScript is not installed on this machine")


def copy_into(root: Path, files: dict[str, Path]) -> None:
    for rel, source in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def git_available() -> bool:
    return shutil.which("git") is not None


def no_git_above(path: Path) -> bool:
    out = subprocess.run(["git", "rev-parse", "--is-inside-work-tree"], cwd=path, capture_output=True, text=True)
    return out.returncode != 0


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env=env, check=True)
    return out.stdout
