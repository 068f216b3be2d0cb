"""The ``lazy`` format on sketches made from the standard library.

Each case changes a standard-library module (lines changed, added, removed) and writes the
result as a model writes a lazy sketch (see ``lazy_sketches.py``), then applies it with
``editblocks.apply_edits(..., format="lazy")``. An outcome is *merged* when the file is exactly
the intended one, *refused* when the block failed and the file is unchanged, and *wrong*
otherwise. Wrong must be 0.

    python benchmarks/bench_lazy.py            # 600 cases
    python benchmarks/bench_lazy.py --quick    # 120 cases, seconds (CI)
    python benchmarks/bench_lazy.py --cases 2000 --seed 3 --show 5
"""

from __future__ import annotations

import argparse
import random
import sys
import sysconfig
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import editblocks

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lazy_sketches import Case, make_case


def stdlib_files(limit_bytes: int = 120_000) -> list[Path]:
    """The standard library's Python modules (tests left out), smallest first up to ``limit_bytes``."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = [
        p
        for p in sorted(root.glob("*.py")) + sorted(root.glob("*/*.py"))
        if "test" not in p.parts and "site-packages" not in p.parts and p.stat().st_size < limit_bytes
    ]
    return files


_CATEGORIES = (
    ("parses now and would not", "the merge would break the file's syntax"),
    ("fits the file in several places", "a part fits several places about equally well"),
    ("could go in several places", "a part's first lines occur in several places"),
    ("could end in several places", "a part's last lines occur in several places"),
    ("changed copy", "a new line next to an elision could be a changed copy of a kept line"),
    ("out of order", "a part is out of order"),
    ("is not in the file", "a part is not in the file"),
    ("defines", "a definition's name occurs more than once"),
    ("has no", "the file has no definition of that name"),
    ("would be deleted", "a sketch without an elision at its start or end would delete lines"),
)


def _category(reason: str) -> str:
    return next((label for key, label in _CATEGORIES if key in reason), reason[:80])


def outcome(case: Case, workdir: Path) -> tuple[str, str]:
    """(``merged`` | ``refused`` | ``wrong``, reason) of applying ``case``."""
    target = workdir / case.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(case.before, encoding="utf-8")
    fence = "````" if "```" in case.sketch else "```"
    reply = f"{case.path}\n{fence}\n{case.sketch}{fence}\n"
    result = editblocks.apply_edits(reply, workdir, format="lazy", journal=False)
    after = target.read_text(encoding="utf-8")
    statuses = [r.status for r in result.results]
    reason = "; ".join(r.reason or "" for r in result.results)
    if after == case.intended and statuses == [editblocks.EditStatus.APPLIED]:
        return "merged", reason
    if after == case.before and statuses == [editblocks.EditStatus.FAILED]:
        return "refused", reason
    return "wrong", reason or "applied, but the file is not the intended one"


def run(cases: int, seed: int, show: int) -> int:
    rng = random.Random(seed)
    files = stdlib_files()
    texts: dict[Path, str] = {}
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    reasons: Counter[str] = Counter()
    wrong_examples: list[tuple[Case, str]] = []
    started = time.perf_counter()
    made = 0
    with tempfile.TemporaryDirectory() as tmp:
        while made < cases:
            path = rng.choice(files)
            if path not in texts:
                try:
                    texts[path] = path.read_text(encoding="utf-8")
                except (UnicodeDecodeError, OSError):
                    texts[path] = ""
            text = texts[path]
            if not text.endswith("\n") or "\r" in text:
                continue
            case = make_case(rng, path.name, text)
            if case is None:
                continue
            made += 1
            workdir = Path(tmp) / f"case{made}"
            workdir.mkdir()
            verdict, reason = outcome(case, workdir)
            counts[case.kind][verdict] += 1
            if verdict == "refused":
                reasons[_category(reason)] += 1
            if verdict == "wrong" and len(wrong_examples) < show:
                wrong_examples.append((case, reason))
    elapsed = time.perf_counter() - started
    total: Counter[str] = Counter()
    print(f"lazy sketches from the standard library: {cases} cases, seed {seed}, {elapsed:.1f} s")
    print(f"{'kind':<12}{'cases':>7}{'merged':>9}{'refused':>9}{'wrong':>7}")
    for kind in sorted(counts):
        c = counts[kind]
        n = sum(c.values())
        total.update(c)
        print(f"{kind:<12}{n:>7}{c['merged'] / n:>9.1%}{c['refused'] / n:>9.1%}{c['wrong']:>7}")
    n = sum(total.values())
    print(f"{'all':<12}{n:>7}{total['merged'] / n:>9.1%}{total['refused'] / n:>9.1%}{total['wrong']:>7}")
    if show and reasons:
        print("\nmost common refusals:")
        for why, k in reasons.most_common(show):
            print(f"  {k:>4}  {why}")
    for case, reason in wrong_examples:
        print(f"\nWRONG: {case.path} ({case.kind}): {reason}\n--- sketch ---\n{case.sketch[:3000]}")
    return 1 if total["wrong"] else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="120 cases")
    parser.add_argument("--show", type=int, default=0, help="show this many wrong cases and common refusals")
    args = parser.parse_args()
    return run(120 if args.quick else args.cases, args.seed, args.show)


if __name__ == "__main__":
    sys.exit(main())
