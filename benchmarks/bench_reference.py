"""editblocks against the reference applier on the same input: aider's SEARCH/REPLACE code.

The core benchmark (``bench_core.py``) judges speed against fixed reference figures (about
12 MB/s parsing, about 6 s for 200 blocks on a 100,000-line file). This script measures the
reference itself, on this machine and on the very replies and file ``bench_core.py`` builds, so
the ratios are like for like:

* **parse** - aider's ``find_original_update_blocks`` vs ``editblocks.parse_reply`` (auto
  and ``format="diff"``) on the several-MB ``diff`` reply. Both must find every block.
* **apply** - aider's ``replace_most_similar_chunk`` run for each of the 200 blocks in turn, in
  memory (no file I/O), vs ``editblocks.apply_edits(..., dry_run=True)``, which also parses,
  checks paths and reads the file. Both must produce the intended text.

aider is not a dependency: the script reads ``aider/coders/editblock_coder.py`` from an
installed ``aider-chat``, from a wheel given with ``--wheel``, or (``--download``) from a wheel
that ``pip download aider-chat --no-deps`` fetches into a temporary folder. It runs only the
module's plain functions, not the rest of aider. Without any of these it says so and exits 0,
so it is not part of CI.

Run::

    python benchmarks/bench_reference.py --download
    python benchmarks/bench_reference.py --wheel aider_chat-0.86.2-py3-none-any.whl
    python benchmarks/bench_reference.py --quick    # CI: says the reference is missing, exits 0
"""

from __future__ import annotations

import argparse
import ast
import difflib
import gc
import importlib.util
import math
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_core
import editblocks

MODULE = "aider/coders/editblock_coder.py"


def reference_source(wheel: str | None, download: bool) -> tuple[str, str] | None:
    """(source of aider's editblock_coder.py, where it came from), or None when unavailable."""
    if wheel:
        try:
            with zipfile.ZipFile(wheel) as zf:
                return zf.read(MODULE).decode("utf-8"), Path(wheel).name
        except (OSError, KeyError, zipfile.BadZipFile) as exc:
            raise SystemExit(f"cannot read {MODULE} from {wheel}: {exc}") from None
    spec = importlib.util.find_spec("aider")
    if spec is not None and spec.submodule_search_locations:
        path = Path(next(iter(spec.submodule_search_locations))) / "coders" / "editblock_coder.py"
        if path.is_file():
            return path.read_text(encoding="utf-8"), str(path)
    if download:
        folder = tempfile.mkdtemp(prefix="editblocks-reference-")
        cmd = [sys.executable, "-m", "pip", "download", "aider-chat", "--no-deps", "-q", "-d", folder]
        if subprocess.run(cmd, check=False).returncode == 0:
            wheels = sorted(Path(folder).glob("aider_chat-*.whl"))
            if wheels:
                return reference_source(str(wheels[-1]), False)
    return None


def load_functions(source: str) -> dict[str, Any]:
    """The module's top-level functions and constants, without its imports of the rest of aider."""
    tree = ast.parse(source)
    body = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.Assign))]
    namespace: dict[str, Any] = {"re": re, "difflib": difflib, "math": math, "Path": Path, "sys": sys}
    namespace["SequenceMatcher"] = difflib.SequenceMatcher
    exec(compile(ast.Module(body=body, type_ignores=[]), MODULE, "exec"), namespace)
    return namespace


def alternating(rounds: int, sides: dict[str, Callable[[], Any]]) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """CPU time of each side in each of ``rounds`` rounds (the order reversed every other round,
    a collection before each run), and each side's last result."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    results: dict[str, Any] = {}
    names = list(sides)
    for r in range(rounds):
        for name in names if r % 2 == 0 else reversed(names):
            gc.collect()
            t0 = time.process_time()
            results[name] = sides[name]()
            times[name].append(time.process_time() - t0)
    return times, results


def best(runs: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    """Fastest wall-clock time of ``fn`` over ``runs`` runs, and its last result."""
    fastest, result = float("inf"), None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        fastest = min(fastest, time.perf_counter() - t0)
    return fastest, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", help="an aider-chat wheel to read the reference code from")
    parser.add_argument(
        "--download", action="store_true", help="pip download the aider-chat wheel when it is not installed"
    )
    parser.add_argument("--quick", action="store_true", help="small sizes and single runs")
    parser.add_argument(
        "--runs",
        type=int,
        default=None,
        help="rounds of the parse comparison (median kept) and runs of the apply (best kept); default 5, quick 3",
    )
    parser.add_argument(
        "--parse-mb", type=float, default=None, help="size of the parse reply in MB (default 5, quick 0.5)"
    )
    args = parser.parse_args(argv)
    args.runs = args.runs or (3 if args.quick else 5)
    args.parse_mb = args.parse_mb or (0.5 if args.quick else 5.0)

    found = reference_source(args.wheel, args.download)
    if found is None:
        print("reference code not available: install aider-chat, or pass --wheel or --download")
        return 0
    source, origin = found
    ref = load_functions(source)
    print(
        f"editblocks {editblocks.__version__} vs reference {origin}, Python {sys.version.split()[0]}; parsing: CPU "
        f"time, median of {args.runs} alternating rounds; applying: wall time, best of {args.runs}"
    )
    errors: list[str] = []

    text, n = bench_core.build_reply("diff", int(args.parse_mb * 1_000_000))
    mb = len(text.encode("utf-8")) / 1_000_000
    times, results = alternating(
        args.runs,
        {
            "reference": lambda: list(ref["find_original_update_blocks"](text)),
            "auto": lambda: editblocks.parse_reply(text),
            "diff": lambda: editblocks.parse_reply(text, format="diff"),
        },
    )
    ref_blocks, auto, named = results["reference"], results["auto"], results["diff"]
    t_ref, t_auto, t_named = (statistics.median(times[k]) for k in ("reference", "auto", "diff"))
    # The ratio of each round's times (the sides ran back to back), then their median.
    r_auto = statistics.median(r / a for r, a in zip(times["reference"], times["auto"]))
    r_named = statistics.median(r / a for r, a in zip(times["reference"], times["diff"]))
    if len([b for b in ref_blocks if b[0] is not None]) != n or len(auto.blocks) != n or len(named.blocks) != n:
        errors.append(
            f"parse: expected {n} blocks; reference {len(ref_blocks)}, auto {len(auto.blocks)}, named {len(named.blocks)}"
        )
    print(f"\nparse ({mb:.1f} MB, {n} blocks)")
    print(f"  reference find_original_update_blocks  {mb / t_ref:6.1f} MB/s")
    print(f"  editblocks parse_reply (auto)       {mb / t_auto:6.1f} MB/s   {r_auto:4.2f}x the reference")
    print(f"  editblocks parse_reply (diff)       {mb / t_named:6.1f} MB/s   {r_named:4.2f}x the reference")
    print(
        f"  (median of each round's ratio; rounds, auto: {', '.join(f'{r / a:.2f}' for r, a in zip(times['reference'], times['auto']))})"
    )

    lines = bench_core.build_big_file(100_000)
    original = "\n".join(lines) + "\n"
    reply, expected = bench_core.build_apply_case(lines, 200)
    blocks = editblocks.parse_reply(reply).blocks

    def reference_apply() -> str:
        content = original
        for block in blocks:
            content = ref["replace_most_similar_chunk"](content, block.old_lines, block.new_lines)
        return content

    t_ref_apply, ref_text = best(1, reference_apply)
    if ref_text != expected:
        errors.append("apply: the reference did not produce the intended text")
    with tempfile.TemporaryDirectory(prefix="editblocks-reference-") as tmp:
        target = Path(tmp) / bench_core.TARGET_FILE
        target.parent.mkdir(parents=True)
        target.write_text(original, encoding="utf-8", newline="\n")
        t_apply, result = best(args.runs, lambda: editblocks.apply_edits(reply, root=tmp, dry_run=True))
        if len(result.applied) != 200:
            errors.append(f"apply: editblocks applied {len(result.applied)} of 200 blocks")
    print("\napply (200 blocks, 100,000 lines)")
    print(f"  reference replace_most_similar_chunk   {t_ref_apply:7.3f} s (matching only, in memory)")
    print(f"  editblocks apply_edits (dry run)       {t_apply:7.3f} s   {t_ref_apply / t_apply:5.1f}x faster")

    for error in errors:
        print(f"ERROR: {error}")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
