"""Real model replies: does editblocks reproduce what the model meant, and never corrupt a file?

Runs a corpus of real replies (aider's SEARCH/REPLACE format, several models) that lives
outside the repository, by default at ``../shared/corpus/real-replies`` relative to the
repository root (or the folder given with ``--corpus``). Each case has ``meta.json``,
``reply.md``, ``original/<path>`` and, when the edit was committed, ``expected/<path>``.
For every case the original files are copied into a temporary folder, ``reply.md`` is
applied there with ``editblocks.apply_edits``, and only the file named by ``meta.json``'s
``path`` is judged:

* ``clean`` / ``chained_after_failure`` (an expected file exists): ``exact`` (bytes
  equal), ``equal-but-whitespace`` (equal after dropping trailing whitespace and blank
  lines), ``refused`` (file unchanged because blocks failed) or ``wrong`` (changed into
  anything else - the outcome that must never happen; a partial application counts).
* ``aider_failed_to_apply``: ``unchanged``, ``all-applied`` (changed, every block for the
  file applied or found already applied) or ``partial`` (changed, some blocks failed). If
  an expected file exists, blocks that applied while the file differs from it are reported
  as ``contradicts-expected``.
* ``content_shown``: ``all-applied``, ``some-failed`` or ``none-applied``.

Files changed by a tolerant strategy with no expected file to check against are listed for
review, with the diff original -> actual, and flagged when the matched region already held
lines the edit adds (part of the edit may have been made already).

The full run prints a table per status, then every wrong case with a short unified diff of
expected vs actual, the equal-but-whitespace and refused cases with the reason editblocks
gave for each block, and the review list. ``--quick`` runs every case too (they are small)
but prints only the tables. Without the corpus it prints "corpus not found, skipped" and
exits 0.

Run::

    python benchmarks/bench_real_replies.py
    python benchmarks/bench_real_replies.py --quick
    python benchmarks/bench_real_replies.py --match exact      # when apply_edits has match=
    python benchmarks/bench_real_replies.py --case aider_t308 --corpus /path/to/real-replies
"""

from __future__ import annotations

import argparse
import datetime as _dt
import difflib
import inspect
import json
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import editblocks

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO_ROOT.parent / "shared" / "corpus" / "real-replies"

WITH_EXPECTED = ("clean", "chained_after_failure")
OUTCOMES: dict[str, tuple[str, ...]] = {
    "clean": ("exact", "equal-but-whitespace", "refused", "wrong", "error"),
    "chained_after_failure": ("exact", "equal-but-whitespace", "refused", "wrong", "error"),
    "aider_failed_to_apply": ("unchanged", "all-applied", "partial", "contradicts-expected", "error"),
    "content_shown": ("all-applied", "some-failed", "none-applied", "error"),
}
BAD_OUTCOMES = frozenset({"wrong", "contradicts-expected"})
DIFF_LINES = 30
ALREADY_APPLIED = "already applied"
EXACT_STRATEGIES = frozenset({"exact", "create", None})


@dataclass
class BlockRow:
    """One block of the reply as editblocks reported it."""

    path: str
    status: str
    reason: str | None
    strategy: str | None
    reply_line: int
    for_target: bool
    score: float | None = None
    already_applied: bool = False
    line: int | None = None
    block: editblocks.EditBlock | None = None

    @property
    def done(self) -> bool:
        """Applied now, or found already applied (nothing left to do)."""
        return self.status == "applied" or self.already_applied


@dataclass
class CaseResult:
    """The judgement of one case."""

    name: str
    status: str
    path: str
    outcome: str = "error"
    blocks: list[BlockRow] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    diff: list[str] = field(default_factory=list)
    error: str | None = None
    suspects: list[str] = field(default_factory=list)

    @property
    def target_blocks(self) -> list[BlockRow]:
        return [b for b in self.blocks if b.for_target]

    def count(self, status: str) -> int:
        return sum(1 for b in self.target_blocks if b.status == status)

    @property
    def n_not_done(self) -> int:
        """Blocks for the judged file that neither applied nor were already applied."""
        return sum(1 for b in self.target_blocks if not b.done)

    @property
    def tolerant(self) -> list[BlockRow]:
        """Blocks for the judged file applied by a strategy other than exact matching."""
        return [b for b in self.target_blocks if b.status == "applied" and b.strategy not in EXACT_STRATEGIES]


def ws_normal(data: bytes) -> list[str]:
    """Lines without trailing whitespace, blank lines dropped, CRLF folded."""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return [line.rstrip() for line in text.split("\n") if line.strip()]


def short_diff(before: bytes, after: bytes, path: str, labels: tuple[str, str], limit: int = DIFF_LINES) -> list[str]:
    """First ``limit`` lines of the unified diff ``before`` -> ``after``."""
    a = before.decode("utf-8", errors="replace").splitlines(keepends=True)
    b = after.decode("utf-8", errors="replace").splitlines(keepends=True)
    diff = difflib.unified_diff(a, b, f"{labels[0]}/{path}", f"{labels[1]}/{path}", n=2)
    lines = [line.rstrip("\n") for line in diff]
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more diff lines)"]
    return lines


def copy_writable(src: Path, dest: Path) -> None:
    """Copy the files under ``src`` to ``dest`` with fresh, writable permissions.

    The corpus may be read-only; its modes must not carry over, or every write would be
    refused for a reason that has nothing to do with the reply.
    """
    for path in sorted(src.rglob("*")):
        if path.is_file():
            target = dest / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def supports_match() -> bool:
    return "match" in inspect.signature(editblocks.apply_edits).parameters


def check_match_level(level: str) -> str | None:
    """Why ``apply_edits`` rejects ``match=level`` (tried on no blocks), or None when it accepts it."""
    with tempfile.TemporaryDirectory(prefix="editblocks-real-") as tmp:
        try:
            editblocks.apply_edits([], root=tmp, match=level)  # type: ignore[call-arg,unused-ignore]
        except (TypeError, ValueError) as exc:
            return str(exc)
    return None


def block_rows(applied: editblocks.ApplyResult, target: str) -> list[BlockRow]:
    rows: list[BlockRow] = []
    for r in applied.results:
        already = bool(getattr(r, "already_applied", False)) or (
            r.status is editblocks.EditStatus.SKIPPED and (r.reason or "").startswith(ALREADY_APPLIED)
        )
        rows.append(
            BlockRow(
                path=r.file_path,
                status=r.status.value,
                reason=r.reason,
                strategy=r.strategy,
                reply_line=r.reply_line,
                for_target=r.file_path == target,
                score=getattr(r, "score", None),
                already_applied=already,
                line=r.estimated_line,
                block=r.block,
            )
        )
    return rows


def run_case(case: Path, match: str | None) -> CaseResult:
    """Apply one case's reply to a copy of its files and judge the target file."""
    meta: dict[str, Any] = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    rel: str = meta["path"]
    result = CaseResult(case.name, meta["status"], rel)
    original = (case / "original" / rel).read_bytes()
    expected_file = case / "expected" / rel
    expected = expected_file.read_bytes() if expected_file.is_file() else None
    reply = (case / "reply.md").read_bytes().decode("utf-8", errors="replace")

    tmp = Path(tempfile.mkdtemp(prefix="editblocks-real-"))
    try:
        root = tmp / "root"
        copy_writable(case / "original", root)
        kwargs: dict[str, Any] = {"match": match} if match else {}
        try:
            applied = editblocks.apply_edits(reply, root=root, **kwargs)
        except Exception as exc:
            result.error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"
            return result
        target = root / rel
        actual = target.read_bytes() if target.is_file() else b""
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    result.warnings = [str(w) for w in applied.warnings]
    result.blocks = block_rows(applied, rel)
    result.outcome = judge(result, original, expected, actual)
    if expected is None and actual != original and result.tolerant:
        # Nothing to judge by: show what the tolerant strategy did, for review.
        result.diff = short_diff(original, actual, rel, ("original", "actual"))
        result.suspects = partly_applied(result, original)
    elif result.outcome in BAD_OUTCOMES or result.outcome == "equal-but-whitespace":
        assert expected is not None
        result.diff = short_diff(expected, actual, rel, ("expected", "actual"))
    return result


def judge(result: CaseResult, original: bytes, expected: bytes | None, actual: bytes) -> str:
    """The outcome of one case (see the module docstring)."""
    changed = actual != original
    if result.status in WITH_EXPECTED and expected is not None:
        if actual == expected:
            return "exact"
        if ws_normal(actual) == ws_normal(expected):
            return "equal-but-whitespace"
        return "wrong" if changed else "refused"
    if result.status == "aider_failed_to_apply":
        if expected is not None and result.count("applied") and actual != expected:
            return "contradicts-expected"
        if not changed:
            return "unchanged"
        return "all-applied" if result.n_not_done == 0 else "partial"
    if result.target_blocks and result.n_not_done == 0:
        return "all-applied"
    return "some-failed" if result.count("applied") else "none-applied"


def partly_applied(result: CaseResult, original: bytes) -> list[str]:
    """Tolerant edits whose matched region already holds lines the edit adds.

    When the file differs from a block's SEARCH by lines that its REPLACE adds, part of the
    edit is probably made already, and carrying the change over again may duplicate them.
    The matched region is taken as the SEARCH's length from the reported line.
    """
    lines = [line.strip() for line in original.decode("utf-8", errors="replace").splitlines()]
    found: list[str] = []
    for b in result.tolerant:
        if b.block is None or b.line is None:
            continue
        search = Counter(x.strip() for x in b.block.old_lines.splitlines() if x.strip())
        added = Counter(x.strip() for x in b.block.new_lines.splitlines() if x.strip()) - search
        n = len(b.block.old_lines.splitlines())
        region = Counter(x for x in lines[b.line - 1 : b.line - 1 + n] if x)
        overlap = list(((region - search) & added).elements())
        if overlap:
            found.append(
                f"reply line {b.reply_line}: the file near line {b.line} already has {len(overlap)} line(s) "
                f"this edit adds, e.g. {overlap[0][:70]!r}"
            )
    return found


# -- output --------------------------------------------------------------------------------------


def print_tables(results: list[CaseResult]) -> None:
    for status, outcomes in OUTCOMES.items():
        mine = [r for r in results if r.status == status]
        if not mine:
            continue
        counts = Counter(r.outcome for r in mine)
        widths = [max(len(o), 5) for o in outcomes]
        print(f"\n{status} ({len(mine)} cases)")
        print("  " + "  ".join(f"{o:>{w}}" for o, w in zip(outcomes, widths, strict=True)))
        print("  " + "  ".join(f"{counts.get(o, 0):>{w}}" for o, w in zip(outcomes, widths, strict=True)))
        mixed = [r for r in mine if r.outcome in ("wrong", "partial") and r.n_not_done]
        if mixed:
            print(f"  partial applications (some blocks for the file failed, others applied): {len(mixed)}")
        blocks = Counter(b.status for r in mine for b in r.target_blocks)
        already = sum(1 for r in mine for b in r.target_blocks if b.already_applied)
        print(
            "  blocks for the judged file: "
            + ", ".join(f"{blocks.get(s, 0)} {s}" for s in ("applied", "failed", "skipped"))
            + (f" ({already} of them already applied)" if already else "")
        )
        strategies = Counter(b.strategy for r in mine for b in r.target_blocks if b.status == "applied")
        if strategies:
            print("  strategies of applied blocks: " + ", ".join(f"{k}={v}" for k, v in strategies.most_common()))
        review = [r for r in mine if r.status not in WITH_EXPECTED and r.tolerant]
        if review:
            flagged = sum(1 for r in review if r.suspects)
            print(
                f"  changed by a tolerant strategy, nothing to check against: {len(review)} "
                f"({flagged} where the file already had lines the edit adds)"
            )


def print_blocks(r: CaseResult, only_problems: bool = False) -> None:
    for b in r.blocks:
        if only_problems and b.status == "applied":
            continue
        other = "" if b.for_target else "  (other file)"
        how = f" [{b.strategy}]" if b.strategy else ""
        if b.score is not None:
            how += f" score={b.score:.2f}"
        reason = f": {b.reason}" if b.reason else ""
        print(f"      reply line {b.reply_line:>4}  {b.status:<8}{how} {b.path}{other}{reason}")
    for w in r.warnings[:5]:
        print(f"      warning {w}")


def print_section(title: str, cases: list[CaseResult], *, diff: bool = False, only_problems: bool = False) -> None:
    print(f"\n== {title} ({len(cases)})")
    for r in cases:
        notes = []
        if r.outcome in BAD_OUTCOMES:
            notes.append("partial application" if r.n_not_done else "every block applied")
        if not r.target_blocks:
            notes.append("no block was read for this file")
        note = f"  ({'; '.join(notes)})" if notes else ""
        print(f"\n  {r.name}  [{r.status}, {r.outcome}]  {r.path}{note}")
        if r.error:
            print("      " + r.error.replace("\n", "\n      "))
        print_blocks(r, only_problems)
        for s in r.suspects:
            print(f"      CHECK: {s}; part of the edit may have been made already")
        if diff:
            for line in r.diff:
                print(f"      | {line}")


def print_details(results: list[CaseResult]) -> None:
    print_section("wrong cases", [r for r in results if r.outcome in BAD_OUTCOMES], diff=True)
    print_section("equal-but-whitespace cases", [r for r in results if r.outcome == "equal-but-whitespace"], diff=True)
    print_section("refused cases with an expected file", [r for r in results if r.outcome == "refused"])
    print_section("exceptions", [r for r in results if r.outcome == "error"])
    print_section(
        "blocks that failed in cases without an expected file",
        [r for r in results if r.outcome in ("partial", "some-failed", "none-applied")],
        only_problems=True,
    )
    print_section(
        "tolerant edits without an expected file, to review (diff original -> actual)",
        [r for r in results if r.status not in WITH_EXPECTED and r.tolerant],
        diff=True,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder holding README.md and cases/")
    ap.add_argument("--quick", action="store_true", help="print only the tables")
    ap.add_argument("--match", metavar="LEVEL", help="matching level passed as apply_edits(match=LEVEL)")
    ap.add_argument("--case", metavar="TEXT", help="run only the cases whose folder name contains TEXT")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a case is wrong or raised an exception")
    args = ap.parse_args(argv)

    cases_dir = args.corpus / "cases"
    if not cases_dir.is_dir():
        print("corpus not found, skipped")
        return 0
    match: str | None = args.match
    note = ""
    if match and not supports_match():
        note = f" (this editblocks has no match= option; --match {match} ignored)"
        match = None
    elif match:
        problem = check_match_level(match)
        if problem:
            print(f"--match {match}: {problem}", file=sys.stderr)
            return 2

    cases = sorted(p for p in cases_dir.iterdir() if (p / "meta.json").is_file())
    if args.case:
        cases = [p for p in cases if args.case in p.name]
    now = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    print(f"editblocks {editblocks.__version__} on real model replies, {now}")
    print(f"corpus: {args.corpus} ({len(cases)} cases); match: {match or 'default'}{note}")

    t0 = time.perf_counter()
    results = [run_case(case, match) for case in cases]
    elapsed = time.perf_counter() - t0

    print_tables(results)
    bad = sum(1 for r in results if r.outcome in BAD_OUTCOMES)
    errors = sum(1 for r in results if r.outcome == "error")
    judged = [r for r in results if r.status in WITH_EXPECTED]
    right = sum(1 for r in judged if r.outcome in ("exact", "equal-but-whitespace"))
    share = f" ({100 * right / len(judged):.1f}%)" if judged else ""
    print(
        f"\nreproduced {right}/{len(judged)} expected files{share}; wrong: {bad}; exceptions: {errors}; "
        f"{elapsed:.1f} s for {len(results)} cases"
    )
    if not args.quick:
        print_details(results)
    return 1 if args.strict and (bad or errors) else 0


if __name__ == "__main__":
    sys.exit(main())
