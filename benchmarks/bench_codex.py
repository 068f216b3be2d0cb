"""editblocks against Codex's native ``apply_patch`` on the same patch, end to end.

One ``*** Begin Patch`` reply with 200 chunks (``@@`` sections, each changing one line and
adding another) to a 100,000-line Python-like file, applied by:

* Codex's native binary (from the npm package ``@openai/codex``), invoked under the name
  ``apply_patch`` with the patch as its argument, as Codex itself runs it;
* ``python -m editblocks apply --format patch --no-diff`` with the patch in a file.

Each is a fresh process on a fresh copy of the file, so interpreter start-up, reading, matching
and writing are all counted. The figure is the child's CPU time (user + system), the median of
several rounds that alternate the two sides; both must leave the file exactly as intended. The
target is editblocks within 5x of the native binary.

``--install`` installs ``@openai/codex`` with npm into a temporary folder (removed afterwards);
``--binary PATH`` uses a native ``codex`` binary already at hand. Without either, or when npm
or the binary is not available, the script says so and exits 0.

Run::

    python benchmarks/bench_codex.py --install           # seven rounds
    python benchmarks/bench_codex.py --install --quick   # three rounds
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import build_big_file

FILE = "pkg/big_module.py"
LINES = 100_000
CHUNKS = 200
TARGET_RATIO = 5.0
MAX_ARGUMENT = 131_072
"""Linux refuses a single program argument longer than this (MAX_ARG_STRLEN)."""


def build_case(n_lines: int, chunks: int) -> tuple[str, str, str]:
    """(original text, patch, intended text): ``chunks`` edits spread over the file."""
    lines = build_big_file(n_lines)
    stride = n_lines // chunks
    body: list[str] = []
    result = list(lines)
    for k in reversed(range(chunks)):
        start = k * stride + stride // 2
        old = lines[start : start + 5]
        new = [old[0], f"    # inserted by chunk {k}", old[1], old[2] + f"  # edited {k}", old[3], old[4]]
        result[start : start + 5] = new
        section = [
            "@@",
            " " + old[0],
            "+" + new[1],
            " " + old[1],
            "-" + old[2],
            "+" + new[3],
            " " + old[3],
            " " + old[4],
        ]
        body[:0] = section
    patch = "\n".join(["*** Begin Patch", f"*** Update File: {FILE}", *body, "*** End Patch"]) + "\n"
    return "\n".join(lines) + "\n", patch, "\n".join(result) + "\n"


def install_codex(folder: Path) -> Path | None:
    """Install ``@openai/codex`` with npm under ``folder``; its native binary, or None (said why)."""
    npm = shutil.which("npm")
    if npm is None:
        print("npm is not installed; cannot install @openai/codex")
        return None
    print(f"installing @openai/codex with npm into {folder} ...", flush=True)
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(folder), "@openai/codex"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        print(f"npm install failed: {done.stderr.strip()[-500:]}")
        return None
    return find_binary(folder / "node_modules")


def find_binary(modules: Path) -> Path | None:
    """The native ``codex`` executable in an npm ``node_modules`` folder (the platform package's
    ``vendor/<target>/bin/codex``, or ``vendor/<target>/codex/codex`` in older releases)."""
    for pattern in ("@openai/*/vendor/*/bin/codex", "@openai/*/vendor/*/codex/codex", "@openai/codex/bin/codex-*"):
        for found in sorted(modules.glob(pattern)):
            if found.is_file() and os.access(found, os.X_OK) and found.suffix != ".js":
                return found
    return None


def child_cpu(
    cmd: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run ``cmd``; (its CPU seconds, user + system, and the finished process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--install", action="store_true", help="install @openai/codex with npm into a temporary folder")
    ap.add_argument("--binary", type=Path, help="a native codex binary already at hand")
    ap.add_argument("--quick", action="store_true", help="three rounds instead of seven")
    args = ap.parse_args(argv)
    rounds = 3 if args.quick else 7

    now = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    print(f"editblocks vs Codex apply_patch, {now}; Python {platform.python_version()}, {os.cpu_count()} CPUs")
    work = Path(tempfile.mkdtemp(prefix="editblocks-codex-"))
    try:
        binary = args.binary
        if binary is None and args.install:
            binary = install_codex(work / "npm")
        if binary is None or not binary.is_file():
            print(
                "Codex's native apply_patch binary is not available (use --install, or --binary PATH); nothing measured."
            )
            return 0
        tool = work / "bin" / "apply_patch"
        tool.parent.mkdir()
        tool.symlink_to(binary.resolve())
        original, patch, expected = build_case(LINES, CHUNKS)
        if len(patch.encode("utf-8")) >= MAX_ARGUMENT:
            print(f"the patch is {len(patch)} bytes, too long for one argument; nothing measured")
            return 1
        reply = work / "reply.patch"
        reply.write_text(patch, encoding="utf-8")
        root = work / "root"
        target = root / FILE
        target.parent.mkdir(parents=True)
        version = subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout.strip()
        print(f"Codex binary: {binary} ({version or 'version unknown'})")
        print(
            f"case: {CHUNKS} chunks to a {LINES:,}-line file ({len(original) / 1e6:.1f} MB); patch {len(patch) / 1000:.0f} KB"
        )
        print(f"CPU time of each process (user + system), median of {rounds} alternating rounds\n")

        # An installed package has its bytecode compiled: the child may write its caches (the
        # first, unmeasured run does), whatever this shell says.
        python_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        sides: dict[str, tuple[list[str], dict[str, str] | None]] = {
            "codex apply_patch": ([str(tool), patch], None),
            "editblocks apply --format patch": (
                [
                    sys.executable,
                    "-m",
                    "editblocks",
                    "apply",
                    "--format",
                    "patch",
                    "--no-diff",
                    "--root",
                    str(root),
                    str(reply),
                ],
                python_env,
            ),
        }
        for cmd, env in sides.values():  # a first, unmeasured run of each
            shutil.rmtree(root / ".editblocks", ignore_errors=True)
            target.write_text(original, encoding="utf-8", newline="\n")
            child_cpu(cmd, root, env)
        times: dict[str, list[float]] = {name: [] for name in sides}
        errors: list[str] = []
        for r in range(rounds):
            order = list(sides) if r % 2 == 0 else list(reversed(sides))
            for name in order:
                cmd, env = sides[name]
                shutil.rmtree(root / ".editblocks", ignore_errors=True)
                target.write_text(original, encoding="utf-8", newline="\n")
                cpu, done = child_cpu(cmd, root, env)
                times[name].append(cpu)
                if done.returncode != 0:
                    errors.append(
                        f"{name}: exit status {done.returncode}: {(done.stderr or done.stdout).strip()[:300]}"
                    )
                elif target.read_text(encoding="utf-8") != expected:
                    errors.append(f"{name}: the file is not as intended")
        medians = {name: statistics.median(t) for name, t in times.items()}
        width = max(map(len, sides))
        for name, t in medians.items():
            print(f"{name:<{width}}  {t:7.3f} s   (runs: {', '.join(f'{x:.3f}' for x in times[name])})")
        codex, ours = medians["codex apply_patch"], medians["editblocks apply --format patch"]
        ratio = ours / codex if codex > 0 else float("inf")
        print(
            f"\nratio editblocks / codex: {ratio:.1f}x (target <= {TARGET_RATIO:.0f}x): {'ok' if ratio <= TARGET_RATIO else 'MISS'}"
        )
        if errors:
            print("\nCORRECTNESS FAILURES:")
            for e in sorted(set(errors)):
                print(f"  - {e}")
            return 1
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
