"""Speed and memory of ``editblocks.summarize``: this project's own tree and a ~2,000-file tree.

What it measures:

* **own tree** - the summary of this repository (the files ``git ls-files`` lists), with the
  default budget of 1,024 tokens.
* **stdlib** - the summary of a copy of this Python's standard library (every file except
  ``site-packages`` and ``__pycache__``: about 2,400 files, 1,800 of them Python, 30 MB),
  copied to a temporary folder outside any git work tree (the installed one may sit inside a
  tool's git checkout that ignores it). With the default budget, then with no budget.

For each: wall-clock and CPU time of a first run (no cache; with many files, one process per
core parses them, and the CPU time counts every process) and of a second run (what each file
defines read from the cache under ``.editblocks/``), files and definitions, the tokens of the result, the process's peak resident
memory (``getrusage``, cumulative over the run) and, except with ``--quick``, the peak of Python
allocations (``tracemalloc``, in a separate run: it slows the code it traces about fivefold). Every result is checked: the budget is respected, and
two runs give the same text (a stable order). A failed check exits with status 1.

Without the ``ast`` extra the summary falls back to a line pattern, and this says so.

Run::

    python benchmarks/bench_summary.py            # the whole standard library (about a minute)
    python benchmarks/bench_summary.py --quick    # 150 of its files, a few seconds (CI)
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import sysconfig
import tempfile
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from editblocks.syntax import missing, summarize  # noqa: E402
from editblocks.syntax.summary import estimate_tokens  # noqa: E402

FAILURES: list[str] = []


def copy_stdlib(dest: Path, limit: int | None) -> int:
    """Copy the standard library's files (sorted, the first ``limit`` Python files when given)."""
    source = Path(sysconfig.get_paths()["stdlib"])
    files: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "__pycache__") and not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath, name)
            if not path.is_symlink() and path.is_file():
                files.append(path)
    if limit is not None:
        files = [f for f in files if f.suffix == ".py"][:limit]
    for f in files:
        target = dest / f.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
    return len(files)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_with_children() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def measure(label: str, root: Path, max_tokens: int | None, files: int | None = None, traced: bool = True) -> None:
    (root / ".editblocks" / "summary-cache.json").unlink(missing_ok=True)
    wall, cpu = time.perf_counter(), cpu_with_children()
    result = summarize(None, root, max_tokens)
    wall, cpu = time.perf_counter() - wall, cpu_with_children() - cpu
    second_wall, second_cpu = time.perf_counter(), time.process_time()
    again = summarize(None, root, max_tokens)
    second_wall, second_cpu = time.perf_counter() - second_wall, time.process_time() - second_cpu
    if summarize(None, root, max_tokens, cache=False).text != result.text:
        FAILURES.append(f"{label}: the summary differs without the cache")
    python_peak = "     n/a"
    if traced:
        tracemalloc.start()
        summarize(None, root, max_tokens)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        python_peak = f"{peak / 2**20:5.1f} MB"
    tokens = estimate_tokens(result.text)
    budget = "none" if max_tokens is None else f"{max_tokens:,}"
    print(
        f"{label:<26} budget {budget:>5}  {wall:6.2f} s wall {cpu:6.2f} s cpu (all processes), "
        f"again (cached) {second_wall:5.2f} s wall {second_cpu:5.2f} s cpu  "
        f"{len(result):>4} files shown  {result.shown:>6,} of {result.definitions:>6,} definitions  "
        f"{tokens:>7,} tokens  python peak {python_peak}  rss peak {peak_rss_mb():6.1f} MB"
        + (f"  ({files:,} files in the tree)" if files is not None else "")
    )
    for note in result.notes:
        print(f"    note: {note}")
    if max_tokens is not None and tokens > max_tokens:
        FAILURES.append(f"{label}: {tokens} tokens over the budget of {max_tokens}")
    if again.text != result.text:
        FAILURES.append(f"{label}: two runs gave different summaries")
    if result.definitions == 0:
        FAILURES.append(f"{label}: no definitions found")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small part of the standard library (CI)")
    args = parser.parse_args()
    problem = missing()
    print("syntax support:", problem or "tree-sitter")
    traced = not args.quick
    measure("own tree", HERE.parent, 1024, traced=traced)
    with tempfile.TemporaryDirectory(prefix="editblocks-bench-summary-") as tmp:
        root = Path(tmp)
        count = copy_stdlib(root, 150 if args.quick else None)
        label = "stdlib (150 Python files)" if args.quick else "stdlib (whole)"
        measure(label, root, 1024, count, traced=traced)
        measure(label, root, None, count, traced=traced)
    if FAILURES:
        for f in FAILURES:
            print("FAILED:", f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
