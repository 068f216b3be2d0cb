"""The mistake corpus: does editblocks apply what models mean, refuse what is unsure, and never
change a file into anything else?

Generates replies from real files (the Python standard library on this machine, see
``benchmarks/mistakes.py`` for how), each with one known model mistake, applies each with
``editblocks.apply_edits(reply, root=...)`` at the default matching level, and scores the file:

* ``exact``    - the file's bytes are the intended result;
* ``ws-equal`` - equal to it once line endings, trailing white space and blank lines are dropped;
* ``refused``  - the file is unchanged and the block(s) were reported failed;
* ``partial``  - some blocks applied exactly as intended and the others were reported failed;
* ``wrong``    - the file changed into anything but the intended result, or a block was reported
  applied (or already applied) while the file is not the intended result. A wrong edit is a
  release blocker: every one is printed (reply, results, diff of intended vs actual) and, with
  ``--dump DIR``, written as a ``tests/scenarios/``-style folder (``before/``, ``reply.md``,
  ``after/`` or ``expected-results.json``) so that it can become a scenario test;
* ``error``    - ``apply_edits`` raised.

In ``hallucinated`` and ``ambiguous`` the only acceptable outcome is ``refused``. In
``truncated`` the complete blocks must apply and the cut one must be reported as a warning,
never applied. In ``twice`` the reply is applied two times and the second must leave the file
as the first left it.

Also measured: the time ``editblocks.matching.locate(text, old, new, level="fuzzy")`` takes to
diagnose a 50-line SEARCH that matches nowhere in a 100,000-line file (real standard library
code), both for a SEARCH with some lines verbatim and one with none (the target is under 0.2 s;
a widely used tool takes 13 s).

Targets: wrong = 0 in every category; right (exact + ws-equal) >= 97% over the categories where
applying is expected (the flawed-copy ones excepted, where a refusal is right too); hallucinated and ambiguous always refused. The script exits with status 1
when any case is wrong or raised; missing the right-rate or the timing target is reported only.

Every case is written in each edit format of ``mistakes.FORMATS`` (``diff``, ``patch``, ``udiff``,
``cline``): the same file, edit and mistake, another reply. The table is printed per format, then
a summary with one row per format; wrong must be 0 in every one.

Run::

    python benchmarks/bench_mistakes.py                    # 40 cases per category, every format
    python benchmarks/bench_mistakes.py --format udiff     # one format (repeatable; 'all' for every one)
    python benchmarks/bench_mistakes.py --quick            # 8 per category, seconds (CI)
    python benchmarks/bench_mistakes.py --cases 100 --seed 7 --dump /tmp/wrong-cases
    python benchmarks/bench_mistakes.py --category dedent --category twice --verbose
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import editblocks
from editblocks.matching import locate

# The generator lives next to this script (``python benchmarks/bench_mistakes.py`` puts this
# folder on sys.path; importing the script from elsewhere needs it added).
sys.path.insert(0, str(Path(__file__).resolve().parent))
import mistakes
from mistakes import CATEGORIES, FLAWED_COPY_CATEGORIES, FORMATS, REFUSE_CATEGORIES, Case, Outcome

TARGET_RIGHT = 0.97
TARGET_DIAGNOSIS_S = 0.2
REFERENCE_DIAGNOSIS_S = 13.0
BIG_FILE_LINES = 100_000
SEARCH_LINES = 50
COLUMNS = ("exact", "ws-equal", "refused", "partial", "wrong", "error")


def _workdir_parent() -> str | None:
    """A memory-backed folder when there is one: the benchmark judges results, not disk syncs."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def run_corpus(cases: list[Case], workdir: str | None) -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="bench-mistakes-", dir=workdir) as tmp:
        return [mistakes.run_case(case, Path(tmp)) for case in cases]


# ---------------------------------------------------------------------------------------------
# Table


def _strategies(outs: list[Outcome]) -> str:
    used: Counter[str] = Counter()
    for o in outs:
        if o.verdict in ("exact", "ws-equal"):
            for status, strategy, _ in o.results:
                if status == "applied" and strategy:
                    used[strategy] += 1
    return ", ".join(f"{name} {n}" for name, n in used.most_common(4))


def print_table(outcomes: list[Outcome]) -> tuple[int, int, int]:
    """The table; returns (right, total over apply categories, wrong + error)."""
    by_cat: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_cat[o.case.category].append(o)
    cols = [c for c in COLUMNS if c != "error" or any(o.verdict == "error" for o in outcomes)]
    head = f"{'category':<17}" + "".join(f"{c:>9}" for c in cols) + f"{'total':>7}{'right':>8}   applied by"
    print(head)
    print("-" * len(head))
    right_all = total_all = bad = 0
    for cat in CATEGORIES:
        outs = by_cat.get(cat)
        if not outs:
            continue
        counts = Counter(o.verdict for o in outs)
        total = len(outs)
        bad += counts["wrong"] + counts["error"]
        if cat in REFUSE_CATEGORIES:
            right_text = f"{counts['refused'] / total:>7.0%}r"
        elif cat in FLAWED_COPY_CATEGORIES:
            right_text = f"{(counts['exact'] + counts['ws-equal']) / total:>7.0%}*"
        else:
            right = counts["exact"] + counts["ws-equal"]
            right_all += right
            total_all += total
            right_text = f"{right / total:>8.0%}"
        print(f"{cat:<17}" + "".join(f"{counts[c]:>9}" for c in cols) + f"{total:>7}{right_text}   {_strategies(outs)}")
    print("-" * len(head))
    if total_all:
        print(
            f"right (exact + ws-equal) where applying is expected: {right_all}/{total_all} = {right_all / total_all:.1%}"
        )
    print("(for hallucinated and ambiguous the 'right' column is the share refused, marked r; the rows marked *,")
    print(" a flawed copy of unchanged lines, where a refusal is right too, are left out of the rate)")
    return right_all, total_all, bad


def print_summary(rows: list[tuple[str, int, int, Counter[str]]]) -> None:
    """One row per format: the verdicts over every category, and the right rate."""
    print("\nSummary per format")
    head = f"{'format':<10}" + "".join(f"{c:>9}" for c in COLUMNS) + f"{'total':>7}{'right':>8}"
    print(head)
    print("-" * len(head))
    for fmt, right, total, counts in rows:
        rate = f"{right / total:>8.1%}" if total else f"{'n/a':>8}"
        print(f"{fmt:<10}" + "".join(f"{counts[c]:>9}" for c in COLUMNS) + f"{sum(counts.values()):>7}{rate}")
    print("(right: exact + ws-equal over the categories where applying is expected)")


def print_targets(outcomes: list[Outcome], right: int, total: int) -> None:
    wrong_cats = sorted({o.case.category for o in outcomes if o.verdict in ("wrong", "error")})
    refuse = [o for o in outcomes if o.case.category in REFUSE_CATEGORIES]
    refused = sum(o.verdict == "refused" for o in refuse)
    print("\nTargets")
    print(f"  wrong = 0 in every category             {'PASS' if not wrong_cats else 'FAIL: ' + ', '.join(wrong_cats)}")
    if total:
        rate = right / total
        print(
            f"  right >= {TARGET_RIGHT:.0%} overall                   {'PASS' if rate >= TARGET_RIGHT else 'MISSED'} ({rate:.1%})"
        )
    print(
        f"  hallucinated/ambiguous always refused   {'PASS' if refused == len(refuse) else 'FAIL'} ({refused}/{len(refuse)})"
    )


# ---------------------------------------------------------------------------------------------
# Details


def _shorten(reason: str | None) -> str:
    """A refusal reason without its particulars, to group alike refusals."""
    text = (reason or "(no reason)").split(";")[0]
    text = re.sub(r"\s*\(.*", "", text)
    text = re.sub(r": .*", "", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    return re.sub(r"\d+", "N", text).strip()[:100]


def print_refusals(outcomes: list[Outcome]) -> None:
    """Why blocks were refused in the categories where they should have applied."""
    grouped: dict[str, Counter[str]] = defaultdict(Counter)
    for o in outcomes:
        if o.case.category in REFUSE_CATEGORIES or o.verdict not in ("refused", "partial"):
            continue
        for status, _, reason in o.results:
            if status == "failed":
                grouped[o.case.category][_shorten(reason)] += 1
    if not grouped:
        return
    print("\nRefusals where applying was expected (reason, count)")
    for cat in CATEGORIES:
        for reason, n in grouped.get(cat, Counter()).most_common():
            print(f"  {cat:<17} {n:>3}  {reason}")


def print_notes(outcomes: list[Outcome]) -> None:
    notes: Counter[tuple[str, str]] = Counter()
    for o in outcomes:
        for note in o.notes:
            notes[(o.case.category, note)] += 1
    if notes:
        print("\nNotes")
        for (cat, note), n in sorted(notes.items()):
            print(f"  {cat:<17} {n:>3}  {note}")


def print_case(o: Outcome, *, with_diff: bool = True) -> None:
    c = o.case
    print(f"\n=== {c.name}: {o.verdict.upper()} - {o.detail or 'see results'}")
    print(f"category: {c.category}   variant: {c.variant}   file: {c.path}   bytes: {len(c.before)}")
    for i, (status, strategy, reason) in enumerate(o.results, start=1):
        print(f"block {i}: {status}" + (f" via {strategy}" if strategy else "") + (f" - {reason}" if reason else ""))
    for i, (status, strategy, reason) in enumerate(o.second, start=1):
        print(
            f"second application, block {i}: {status}"
            + (f" via {strategy}" if strategy else "")
            + (f" - {reason}" if reason else "")
        )
    if o.second_run:
        print("(the diff below is of the file after the second application; the first one left it as intended)")
    for w in o.warnings:
        print(f"warning: {w}")
    print("--- reply " + "-" * 60)
    print(c.reply.rstrip("\n"))
    print("-" * 70)
    if with_diff and o.verdict != "error":
        text = mistakes.diff(c, o.actual)
        print(text.rstrip("\n") if text else "(no difference in text; bytes differ)")


def dump(outcomes: list[Outcome], folder: Path, seed: int) -> list[Path]:
    written = []
    for o in outcomes:
        if o.verdict in ("wrong", "error"):
            name = f"mistake-{o.case.category}-s{seed}-{o.case.index:03d}"
            written.append(mistakes.write_scenario(o.case, folder / name, second_run=o.second_run))
    return written


# ---------------------------------------------------------------------------------------------
# Diagnosis timing


def _big_file() -> list[str]:
    """100,000 lines of real standard library code, in a fixed order."""
    base = mistakes.stdlib_dir()
    lines: list[str] = []
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(base).as_posix()
        if "site-packages" in rel or rel.startswith("test") or "/test" in rel:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        lines.extend(text.replace("\r\n", "\n").split("\n"))
        if len(lines) >= BIG_FILE_LINES:
            break
    if len(lines) < BIG_FILE_LINES:
        # A small standard library: repeat it, each copy made distinct.
        base_lines = list(lines) or ["x = 0"]
        k = 0
        while len(lines) < BIG_FILE_LINES:
            k += 1
            lines.extend(f"{x}  # copy {k}" if x.strip() else x for x in base_lines)
    return lines[:BIG_FILE_LINES]


def _unlike(rng: random.Random, region: list[str], taken: set[str], every_line: bool) -> list[str]:
    """A SEARCH like ``region`` that matches nowhere: lines invented or with words changed."""
    out = list(region)
    for i, line in enumerate(region):
        if not line.strip():
            continue
        try:
            if every_line:
                once = mistakes.mutate_line(rng, line, True, taken)
                out[i] = mistakes.mutate_line(rng, once, True, taken)
            elif i % 3 == 0:
                out[i] = mistakes.new_line(rng, mistakes.indent_of(line), True, taken)
            elif i % 3 == 1:
                out[i] = mistakes.mutate_line(rng, line, True, taken)
        except mistakes.NoCase:
            out[i] = mistakes.new_line(rng, mistakes.indent_of(line), True, taken)
    return out


def diagnosis_timing(seed: int, runs: int) -> list[tuple[str, float, float, str, float | None]]:
    """(what, best s, median s, outcome, best s of the nearest-region step alone) per kind of
    non-matching SEARCH."""
    lines = _big_file()
    text = "\n".join(lines) + "\n"
    taken = {x.strip() for x in lines}
    rng = random.Random(f"{seed}:timing")
    rows = []
    for label, every_line in (("some lines verbatim", False), ("no line verbatim", True)):
        for _ in range(50):
            start = rng.randint(BIG_FILE_LINES // 3, 2 * BIG_FILE_LINES // 3)
            region = lines[start : start + SEARCH_LINES]
            if sum(1 for x in region if x.strip()) >= 35:
                break
        fake = _unlike(rng, region, taken, every_line)
        old = "\n".join(fake) + "\n"
        k = next(i for i, x in enumerate(fake) if x.strip())
        new = "\n".join(fake[: k + 1] + [mistakes.indent_of(fake[k]) + "extra_setting = True"] + fake[k + 1 :]) + "\n"
        times = []
        found = None
        for _ in range(runs):
            # A new string object each time, as for a freshly read file: nothing prepared for an
            # earlier call of the same text may be reused.
            fresh = ("\n" + text)[1:]
            t0 = time.perf_counter()
            found = locate(fresh, old, new, level="fuzzy")
            times.append(time.perf_counter() - t0)
        nearest = _nearest_region_time(text, old, runs)
        if isinstance(found, editblocks.matching.MatchFailure):
            region_found = found.region
            where = f"closest region lines {region_found[0]}-{region_found[1]}" if region_found else "no closest region"
            outcome = f"refused, {where} (SEARCH made from lines {start + 1}-{start + SEARCH_LINES})"
        else:
            outcome = f"MATCHED at line {getattr(found, 'line', '?')} via {getattr(found, 'strategy', '?')}"
        rows.append((label, min(times), statistics.median(times), outcome, nearest))
    return rows


def _nearest_region_time(text: str, old: str, runs: int) -> float | None:
    """Best time of the nearest-region step alone (``diagnosis.not_found`` on a fresh view of
    the file), to tell it apart from the strategies ``locate`` tries first. None when the
    matching package is laid out differently."""
    try:
        from editblocks.matching.diagnosis import not_found
        from editblocks.matching.strategies import FileView
        from editblocks.matching.text import split_lines
    except ImportError:
        return None
    search = split_lines(old)
    best = float("inf")
    for _ in range(runs):
        fresh = ("\n" + text)[1:]
        t0 = time.perf_counter()
        not_found(FileView(fresh), search)
        best = min(best, time.perf_counter() - t0)
    return best


def print_timing(rows: list[tuple[str, float, float, str, float | None]], runs: int) -> None:
    print(
        f"\nDiagnosis time: locate(level='fuzzy') for a {SEARCH_LINES}-line SEARCH that matches nowhere "
        f"in a {BIG_FILE_LINES:,}-line file (best / median of {runs})"
    )
    for label, best, median, outcome, nearest in rows:
        verdict = "PASS" if best < TARGET_DIAGNOSIS_S else "MISSED"
        print(
            f"  {label:<20} {best:7.3f} s / {median:7.3f} s   target < {TARGET_DIAGNOSIS_S} s: {verdict}   "
            f"({REFERENCE_DIAGNOSIS_S / best:,.0f}x faster than the 13 s reference)"
        )
        print(f"  {'':<20} {outcome}")
        if nearest is not None:
            print(f"  {'':<20} of which the nearest-region step alone: {nearest:.3f} s (best)")


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    parser.add_argument("--cases", type=int, default=None, help="cases per category (default 40; 8 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a small corpus and fewer timing runs (CI)")
    parser.add_argument("--category", action="append", choices=CATEGORIES, help="only this category (repeatable)")
    parser.add_argument(
        "--format",
        action="append",
        choices=[*FORMATS, "all"],
        help="write the replies in this format (repeatable; default: all)",
    )
    parser.add_argument("--dump", type=Path, help="write every wrong case as a scenario folder under DIR")
    parser.add_argument("--verbose", action="store_true", help="also print every refused and partial case")
    parser.add_argument("--no-timing", action="store_true", help="skip the diagnosis timing")
    parser.add_argument("--workdir", help="where the temporary projects go (default: /dev/shm when available)")
    args = parser.parse_args(argv)
    per_category = args.cases if args.cases is not None else (8 if args.quick else 40)

    sources = mistakes.load_sources()
    print(
        f"mistake corpus - {_dt.date.today()} - Python {platform.python_version()} on {platform.machine()} - "
        f"editblocks {editblocks.__version__}"
    )
    print(
        f"seed {args.seed}, {per_category} cases per category, sources: {sum(s.python for s in sources)} Python and "
        f"{sum(not s.python for s in sources)} text files from {mistakes.stdlib_dir()}"
    )
    formats = list(FORMATS) if not args.format or "all" in args.format else list(dict.fromkeys(args.format))
    outcomes: list[Outcome] = []
    summary: list[tuple[str, int, int, Counter[str]]] = []
    for fmt in formats:
        t0 = time.perf_counter()
        cases = mistakes.generate(args.seed, per_category, args.category, format=fmt)
        t1 = time.perf_counter()
        outs = run_corpus(cases, args.workdir or _workdir_parent())
        t2 = time.perf_counter()
        print(f"\n== format {fmt}: {len(cases)} cases generated in {t1 - t0:.1f} s, applied in {t2 - t1:.1f} s\n")
        right, total, _ = print_table(outs)
        print_targets(outs, right, total)
        print_refusals(outs)
        print_notes(outs)
        summary.append((fmt, right, total, Counter(o.verdict for o in outs)))
        outcomes.extend(outs)
    if len(formats) > 1:
        print_summary(summary)

    if not args.no_timing:
        runs = 3 if args.quick else 7
        print_timing(diagnosis_timing(args.seed, runs), runs)

    wrong = [o for o in outcomes if o.verdict in ("wrong", "error")]
    if args.verbose:
        for o in outcomes:
            if o.verdict in ("refused", "partial") and o.case.category not in REFUSE_CATEGORIES:
                print_case(o)
    if wrong:
        print(f"\n{len(wrong)} WRONG CASE(S) - each is a release blocker")
        for o in wrong:
            print_case(o)
    if args.dump is not None:
        written = dump(outcomes, args.dump, args.seed)
        print(f"\n{len(written)} scenario folder(s) written under {args.dump}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
