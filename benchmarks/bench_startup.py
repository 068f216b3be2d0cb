"""Start-up cost of the command line and the package, as editors and agents pay it on every call.

CPU time of each child process (user + system, from ``resource.getrusage``), median of several
runs, the measures alternated within each round, after one unmeasured round that writes the
bytecode caches (as installing a package does):

* ``python -c pass`` - the interpreter alone;
* ``import editblocks`` - the package (its names are imported on first use);
* ``editblocks --help``;
* ``editblocks apply --json`` of a one-block reply (parse, place, verify, write, journal).

Targets (printed, never asserted): ``--help`` <= 80 ms, the one-block apply <= 120 ms, the import
<= 60 ms.

    python benchmarks/bench_startup.py            # 9 rounds
    python benchmarks/bench_startup.py --quick    # 3 rounds (CI)
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TARGETS_MS = {"import editblocks": 60.0, "editblocks --help": 80.0, "editblocks apply --json (one block)": 120.0}


# An installed package has its bytecode compiled; the children may write theirs (a first, unmeasured
# round does), whatever this shell says.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cpu_ms(args: list[str], cwd: str | None = None) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, check=False, env=ENV)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 rounds")
    ap.add_argument("--rounds", type=int, default=None)
    args = ap.parse_args()
    rounds = args.rounds or (3 if args.quick else 9)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        reply = root / "reply.md"
        reply.write_text("a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n")
        measures = {
            "python -c pass": lambda: cpu_ms([sys.executable, "-c", "pass"]),
            "import editblocks": lambda: cpu_ms([sys.executable, "-c", "import editblocks"]),
            "editblocks --help": lambda: cpu_ms([sys.executable, "-m", "editblocks", "--help"]),
            "editblocks apply --json (one block)": lambda: (
                (root / "a.py").write_text("x = 1\n"),
                cpu_ms([sys.executable, "-m", "editblocks", "apply", str(reply), "--root", str(root), "--json"]),
            )[1],
        }
        times: dict[str, list[float]] = {name: [] for name in measures}
        for run in measures.values():
            run()  # compiles and caches the bytecode, as installing does
        for _ in range(rounds):
            for name, run in measures.items():
                times[name].append(run())
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"start-up, CPU time, median of {rounds} alternating rounds (load {load:.2f})")
    for name, values in times.items():
        median = statistics.median(values)
        target = TARGETS_MS.get(name)
        verdict = "" if target is None else f"  target <= {target:.0f} ms: {'met' if median <= target else 'MISSED'}"
        print(f"  {name:38} {median:7.1f} ms{verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
