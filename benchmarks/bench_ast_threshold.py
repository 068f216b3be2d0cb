"""Where the ``ast`` match level's similarity thresholds come from, measured on real code.

The syntax step places a SEARCH that is one whole definition on the file's only definition of
the same name and kind, if the two are similar enough (``editblocks.syntax.astmatch``). This
measures, on the Python standard library:

* **different definitions sharing a name** - pairs of definitions with the same name in two
  different files (``close``, ``__repr__``, ``run`` of unrelated classes), exact copies and the
  ``encodings`` package (modules generated from one template) left out: the share that reaches
  each similarity. These are what a threshold must refuse.
* **stale copies** - a definition with one line in ten (at least one) altered the way a model
  misremembers code (a renamed identifier, a dropped line): the share that reaches each
  similarity. These are what a threshold should accept.

Both by size (non-blank lines), compared the way the syntax step compares them (stripped
lines, blank lines left out, rapidfuzz's ratio). Figures are printed, never asserted.

Run::

    python benchmarks/bench_ast_threshold.py            # 400 modules (about a minute)
    python benchmarks/bench_ast_threshold.py --quick    # 60 modules, a few seconds (CI)
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import sysconfig
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from rapidfuzz import fuzz  # noqa: E402

from editblocks.syntax import missing  # noqa: E402
from editblocks.syntax.astmatch import SHORT_LINES, SIMILARITY_THRESHOLD, SIMILARITY_THRESHOLD_SHORT  # noqa: E402
from editblocks.syntax.tree import definitions, parse  # noqa: E402

THRESHOLDS = (0.7, 0.75, 0.8, 0.85, 0.9)
_WORD = re.compile(r"[A-Za-z_]\w{2,}")


def normalized(lines: list[str]) -> str:
    return "\n".join(line.strip() for line in lines if line.strip())


def bucket(n: int) -> str:
    return f"<= {SHORT_LINES} lines" if n <= SHORT_LINES else "4-9 lines" if n <= 9 else "10+ lines"


def stale(lines: list[str], rnd: random.Random) -> list[str]:
    out = list(lines)
    rows = [i for i, line in enumerate(out) if i > 0 and line.strip()]
    for i in rnd.sample(rows, min(len(rows), max(1, round(len(rows) / 10)))):
        words = _WORD.findall(out[i])
        if words and rnd.random() < 0.8:
            w = rnd.choice(words)
            out[i] = out[i].replace(w, w + "_old", 1)
        else:
            out[i] = ""
    return out


def share(values: list[float], t: float) -> str:
    return f"{sum(v >= t for v in values) / len(values):6.1%}" if values else "     -"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="60 modules (CI)")
    args = parser.parse_args()
    problem = missing()
    if problem:
        print(f"skipped: {problem}")
        return 0
    started = time.perf_counter()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    # The encodings package is some 120 modules generated from one template: their same-named
    # functions are copies of one definition, not different ones.
    files = sorted(p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts and "encodings" not in p.parts)
    rnd = random.Random(2024)
    files = rnd.sample(files, min(len(files), 60 if args.quick else 400))
    by_name: dict[str, list[tuple[Path, list[str]]]] = defaultdict(list)
    bodies: list[list[str]] = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.split("\n")
        for d in definitions(parse(text, "python"), "python", text):
            if d.kind in ("function", "method", "class"):
                body = lines[d.first : d.last + 1]
                if sum(1 for line in body if line.strip()) >= 2:
                    by_name[d.name].append((path, body))
                    bodies.append(body)
    different: dict[str, list[float]] = defaultdict(list)
    for items in by_name.values():
        for i in range(len(items)):
            for j in range(i + 1, min(len(items), i + 8)):
                (pa, a), (pb, b) = items[i], items[j]
                na, nb = normalized(a), normalized(b)
                if pa == pb or na == nb:
                    continue
                different[bucket(min(na.count("\n"), nb.count("\n")) + 1)].append(fuzz.ratio(na, nb) / 100)
    copies: dict[str, list[float]] = defaultdict(list)
    for body in rnd.sample(bodies, min(len(bodies), 1500 if args.quick else 6000)):
        n = normalized(body)
        copies[bucket(n.count("\n") + 1)].append(fuzz.ratio(normalized(stale(body, rnd)), n) / 100)
    print(
        f"{len(files)} modules, {len(bodies)} definitions; thresholds in use: {SIMILARITY_THRESHOLD:.0%}, "
        f"{SIMILARITY_THRESHOLD_SHORT:.0%} up to {SHORT_LINES} lines"
    )
    header = "".join(f"  >={t:.0%}" for t in THRESHOLDS)
    for title, data in (
        ("different definitions, same name", different),
        ("stale copies (1 line in 10 altered)", copies),
    ):
        print(f"{title:<38}{'pairs':>7}{header}")
        for key in (f"<= {SHORT_LINES} lines", "4-9 lines", "10+ lines"):
            values = data.get(key, [])
            print(f"  {key:<36}{len(values):>7}" + "".join(f" {share(values, t)}" for t in THRESHOLDS))
    print(f"{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
