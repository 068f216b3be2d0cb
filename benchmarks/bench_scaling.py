"""How applying exact blocks scales with the file's size and the number of blocks.

``editblocks.apply_edits(reply, root=...)`` (parse, match, verify, atomic write, journal) of
N exact SEARCH/REPLACE blocks spread over a text file of L unique Python-like lines, for L from
10,000 to 800,000 and N from 10 to 10,000 (at most one block per ten lines). CPU time, median
of three runs. The cost of a block must not depend on the file's size: the time grows with
L (reading and indexing the file once) plus N (each block), never with L x N. The table shows
microseconds per block beyond the smallest N, which must stay flat down each column.

Targets: 10,000 blocks on a 100,000-line file <= 1 s; 200 blocks on an 800,000-line file
<= 1.5 s. A missed target is reported, not fatal; a wrong result (a block not applied, a file
not as intended) exits with status 1.

Run::

    python benchmarks/bench_scaling.py            # the whole table (a few minutes)
    python benchmarks/bench_scaling.py --quick    # a smaller table, one run each (CI)
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import editblocks

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import TARGET_FILE, build_apply_case, build_big_file

FULL_LINES = (10_000, 100_000, 800_000)
FULL_BLOCKS = (10, 100, 1_000, 10_000)
QUICK_LINES = (10_000, 100_000)
QUICK_BLOCKS = (10, 100, 1_000)
TARGETS = {(100_000, 10_000): 1.0, (800_000, 200): 1.5}
FILE = "pkg/big_module.txt"
"""Not a Python file: the syntax second opinion (Python files up to 1 MB, parsed before and after)
would otherwise dominate the smallest file's figures."""
MAX_FILE_BYTES = 200_000_000
"""The 800,000-line file is 33 MB, over the default limit of 20 MB."""


def measure(lines: list[str], blocks: int, runs: int, errors: list[str]) -> float:
    """Median CPU seconds of applying ``blocks`` exact blocks to ``lines`` (written fresh before each run)."""
    original = "\n".join(lines) + "\n"
    reply, expected = build_apply_case(lines, blocks)
    reply = reply.replace(TARGET_FILE, FILE)
    tmp = Path(tempfile.mkdtemp(prefix="editblocks-scaling-"))
    target = tmp / FILE
    target.parent.mkdir(parents=True)
    times: list[float] = []
    try:
        for _ in range(runs):
            target.write_text(original, encoding="utf-8", newline="\n")
            shutil.rmtree(tmp / ".editblocks", ignore_errors=True)
            c0 = time.process_time()
            result = editblocks.apply_edits(reply, root=tmp, max_file_bytes=MAX_FILE_BYTES)
            times.append(time.process_time() - c0)
            if len(result.applied) != blocks:
                errors.append(f"{len(lines):,} lines, {blocks:,} blocks: {len(result.applied)} applied")
            elif target.read_text(encoding="utf-8") != expected:
                errors.append(f"{len(lines):,} lines, {blocks:,} blocks: the file differs from the intended result")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a smaller table, one run each")
    args = ap.parse_args(argv)
    sizes = QUICK_LINES if args.quick else FULL_LINES
    counts = QUICK_BLOCKS if args.quick else FULL_BLOCKS
    runs = 1 if args.quick else 3
    now = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    print(f"editblocks {editblocks.__version__} scaling benchmark, {now}")
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs; CPU time, median of {runs} run(s); apply with the undo journal, as by default\n"
    )

    errors: list[str] = []
    measure(build_big_file(1_000), 10, 1, errors)  # warm up: the first apply loads what applying needs
    table: dict[tuple[int, int], float] = {}
    for n_lines in sizes:
        lines = build_big_file(n_lines)
        for n_blocks in (*counts, *(b for (ln, b) in TARGETS if ln == n_lines and b not in counts)):
            if n_blocks * 10 > n_lines:
                continue
            table[n_lines, n_blocks] = measure(lines, n_blocks, runs, errors)

    shown = sorted({b for _, b in table})
    print(f"{'blocks':>8}" + "".join(f"{f'{n:,} lines':>24}" for n in sizes))
    for b in shown:
        cells = []
        for n in sizes:
            t = table.get((n, b))
            if t is None:
                cells.append(f"{'':>24}")
                continue
            first = min(k for (m, k) in table if m == n)
            per = (t - table[n, first]) / (b - first) * 1e6 if b > first else None
            cells.append(f"{t:>9.3f} s" + (f" ({per:6.1f} us/block)" if per is not None else f"{'':>17}"))
        print(f"{b:>8,}" + "".join(f"{c:>24}" for c in cells))
    print()
    for (n, b), limit in TARGETS.items():
        if (n, b) in table:
            t = table[n, b]
            print(f"{b:,} blocks on {n:,} lines: {t:.3f} s CPU (target <= {limit} s): {'ok' if t <= limit else 'MISS'}")
    if errors:
        print("\nCORRECTNESS FAILURES:")
        for e in errors:
            print(f"  - {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
