"""Real unified-diff replies: does editblocks reproduce the file aider committed, and never write
anything else?

Reads ``../shared/corpus/real-udiff`` (24 replies a model wrote in aider's udiff format, with the
file before and the file aider committed after applying the reply). Each case's reply is applied
to a copy of the original file; the judged file is compared with the expected one:

* reproduced - exactly the expected file (or equal but for trailing white space);
* refused    - left unchanged, every block for it failed (with its reason);
* wrong      - changed into anything else (must be 0);
* error      - an exception.

Run: ``python benchmarks/bench_real_udiff.py [--corpus DIR] [--quick] [--strict]``; exits 0
unless ``--strict`` and a case is wrong. Without the corpus it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import editblocks

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "real-udiff"


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).rstrip("\n")


def run_case(case: Path, work: Path) -> tuple[str, str]:
    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    path = meta["path"]
    root = work / case.name
    shutil.copytree(case / "original", root, copy_function=shutil.copyfile)  # the corpus is read-only; the copy is not
    before = (root / path).read_text(encoding="utf-8")
    expected = (case / "expected" / path).read_text(encoding="utf-8")
    try:
        result = editblocks.apply_edits(
            (case / "reply.md").read_text(encoding="utf-8"), root, format="udiff", journal=False
        )
    except Exception as exc:
        return "error", f"{type(exc).__name__}: {exc}"
    target = root / path
    after = target.read_text(encoding="utf-8") if target.exists() else ""
    mine = [r for r in result.results if r.file_path == path]
    reasons = "; ".join(
        f"reply line {r.reply_line}: {r.status.value} {r.reason or ''}".strip()
        for r in mine
        if r.status.value != "applied"
    )
    if after == expected or _norm(after) == _norm(expected):
        return "reproduced", reasons
    if after == before:
        return "refused", reasons or "no block for the file"
    return "wrong", reasons


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT)
    ap.add_argument("--quick", action="store_true", help="print the table only")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a case is wrong")
    args = ap.parse_args()
    cases_dir = args.corpus / "cases"
    if not cases_dir.is_dir():
        print(f"real-udiff corpus not found at {args.corpus}; nothing to measure")
        return 0
    cases = sorted(p for p in cases_dir.iterdir() if (p / "meta.json").is_file())
    started = time.perf_counter()
    outcomes: dict[str, list[tuple[str, str]]] = {"reproduced": [], "refused": [], "wrong": [], "error": []}
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            verdict, detail = run_case(case, Path(tmp))
            outcomes[verdict].append((case.name, detail))
    took = time.perf_counter() - started
    print(f"editblocks {editblocks.__version__} on real unified-diff replies, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print("  reproduced  refused  wrong  error  total")
    print(
        f"  {len(outcomes['reproduced']):>10}  {len(outcomes['refused']):>7}  {len(outcomes['wrong']):>5}  {len(outcomes['error']):>5}  {len(cases):>5}"
    )
    print(f"reproduced {len(outcomes['reproduced'])}/{len(cases)}; wrong: {len(outcomes['wrong'])}; {took:.1f} s")
    if not args.quick:
        for verdict in ("wrong", "error", "refused"):
            for name, detail in outcomes[verdict]:
                print(f"  {verdict:<8} {name}: {detail[:300]}")
    return 1 if args.strict and outcomes["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
