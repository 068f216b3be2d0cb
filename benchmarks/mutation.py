"""Mutation testing of the core (matching, apply, workspace) with mutmut: how many changed
behaviours do the tests notice?

Started by hand, not in CI (it takes a long time: each mutant runs the selected tests)::

    pip install mutmut
    python benchmarks/mutation.py                 # matching/, apply.py, workspace.py
    python benchmarks/mutation.py --paths src/editblocks/matching/fuzzy.py --children 2

It copies the project into a temporary folder, configures mutmut there (``[tool.mutmut]`` in
that copy's ``pyproject.toml``), runs it with the tests that exercise the core, and prints the
figures: killed, survived, timed out, and the share killed among mutants that were checked.
A surviving mutant is a change of behaviour no test noticed; ``--list`` prints them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PATHS = ["src/editblocks/matching/", "src/editblocks/pipeline/placer.py", "src/editblocks/files/workspace.py"]
CORE_TESTS = [
    "tests/test_guards.py",
    "tests/test_verify.py",
    "tests/test_apply.py",
    "tests/test_hints.py",
    "tests/test_properties.py",
    "tests/test_scenarios.py",
    "tests/test_safety_paths.py",
    "tests/test_safety_text.py",
    "tests/test_safety_atomic.py",
    "tests/test_file_operations.py",
    "tests/test_safety_drift.py",
    "tests/test_patch_all_or_none.py",
    # Written against the survivors of earlier runs: each pins an outcome a weakened guard changes.
    "tests/test_mutation_fuzzy.py",
    "tests/test_mutation_strategies.py",
    "tests/test_mutation_text.py",
    "tests/test_mutation_delta.py",
    "tests/test_mutation_elision.py",
    "tests/test_mutation_placer.py",
    "tests/test_mutation_workspace.py",
    "tests/test_mutation_matching.py",
]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--paths", nargs="+", default=DEFAULT_PATHS, help="files or folders to mutate (relative to the project)"
    )
    ap.add_argument("--tests", nargs="+", default=CORE_TESTS, help="test files run against each mutant")
    ap.add_argument("--children", type=int, default=2, help="mutants run at once")
    ap.add_argument("--list", action="store_true", help="also list the surviving mutants")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copy (its path is printed)")
    args = ap.parse_args()
    if shutil.which("mutmut") is None:
        print("mutmut is not installed: pip install mutmut", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="editblocks-mutation-"))
    try:
        for name in ("src", "tests", "pyproject.toml", "README.md"):
            src = ROOT / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, work / name)  # type: ignore[operator]
        config = "\n[tool.mutmut]\n"
        # The whole package is copied (so the tests import it complete); only the paths asked
        # for are mutated.
        only = [p if p.endswith(".py") else p.rstrip("/") + "/*" for p in args.paths]
        config += 'source_paths = ["src/"]\n'
        config += f"only_mutate = {json.dumps(only)}\n"
        config += f"pytest_add_cli_args_test_selection = {json.dumps(args.tests)}\n"
        config += 'pytest_add_cli_args = ["-q", "-x", "-p", "no:cacheprovider"]\n'
        with (work / "pyproject.toml").open("a", encoding="utf-8") as fh:
            fh.write(config)
        # The mutated copy must be what the tests import, not an installed (editable) editblocks.
        env = {**os.environ, "PYTHONPATH": "src"}
        run = subprocess.run(["mutmut", "run", "--max-children", str(args.children)], cwd=work, env=env)
        if run.returncode not in (0, 1):
            print(f"mutmut run exited {run.returncode}", file=sys.stderr)
        subprocess.run(["mutmut", "export-cicd-stats"], cwd=work, check=False, capture_output=True)
        stats_file = work / "mutants" / "mutmut-cicd-stats.json"
        if not stats_file.is_file():
            print("mutmut wrote no statistics", file=sys.stderr)
            return 1
        stats = json.loads(stats_file.read_text(encoding="utf-8"))
        killed, survived = stats.get("killed", 0), stats.get("survived", 0)
        timeout, suspicious, no_tests = stats.get("timeout", 0), stats.get("suspicious", 0), stats.get("no_tests", 0)
        checked = killed + survived + timeout + suspicious
        print(
            f"mutants: {stats.get('total', checked + no_tests)}; killed {killed}, survived {survived}, timed out {timeout}, "
            f"suspicious {suspicious}, not reached by the tests {no_tests}"
        )
        if checked:
            print(f"killed (timeouts count as killed) among checked mutants: {(killed + timeout) / checked:.1%}")
        if args.list:
            subprocess.run(["mutmut", "results"], cwd=work, check=False)
        return 0
    finally:
        if args.keep:
            print(f"copy kept at {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
