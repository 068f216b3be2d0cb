"""Property: over the scenario replies with random mutations of SEARCH, REPLACE and paths, every
block reported applied or already applied passes the outcome checks.

Applied: the file's words changed exactly as the block's SEARCH → REPLACE changes them (the
whole file compared, so no reported span is trusted), and no marker or elision line appeared
in a file that had none of its kind. Already applied: the file is unchanged, REPLACE is in it
once and SEARCH is not, outside that place.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import unicodedata
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import editblocks
from editblocks import EditBlock, EditStatus
from editblocks.pipeline.placer import block_reading
from editblocks.pipeline.verifier import check_already_applied, marker_lines

SCENARIOS = Path(__file__).parent / "scenarios"
CASES = sorted(p for p in SCENARIOS.iterdir() if (p / "before").is_dir() and (p / "reply.md").is_file())

_WORD = re.compile(r"\w+|[^\w\s]")
MARKERS = [
    "=======",
    ">>>>>>> REPLACE",
    "# ... existing code ...",
    "// ... rest of the code ...",
    "*** End Patch",
    "...",
]


def _words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(unicodedata.normalize("NFKC", text)))


def _delta(a: str, b: str) -> tuple[Counter[str], Counter[str]]:
    wa, wb = _words(a), _words(b)
    return wb - wa, wa - wb


def _mutate(text: str, kind: str, k: int, data: st.DataObject) -> str:
    lines = text.split("\n")[:-1]
    if not lines:
        return text
    k %= len(lines)
    line = lines[k]
    if kind == "drop-word":
        words = line.split(" ")
        if len(words) > 1:
            del words[data.draw(st.integers(0, len(words) - 1))]
            lines[k] = " ".join(words)
    elif kind == "drop-line":
        del lines[k]
    elif kind == "trailing-space":
        lines[k] = line + "  "
    elif kind == "indent":
        lines[k] = "  " + line
    elif kind == "char":
        if line:
            p = data.draw(st.integers(0, len(line) - 1))
            lines[k] = line[:p] + data.draw(st.sampled_from("xq_0(")) + line[p + 1 :]
    elif kind == "marker":
        lines.insert(k, data.draw(st.sampled_from(MARKERS)))
    return "".join(x + "\n" for x in lines)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_reported_success_passes_the_outcome_checks(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(CASES))
    parsed = editblocks.parse_reply((case / "reply.md").read_text(encoding="utf-8", errors="replace"))
    # Blocks with several "=======" lines are read against the file (exactly or not at all): left out here.
    blocks = [b for b in parsed.blocks if b.kind == "edit" and not b.other_splits]
    if not blocks:
        return
    i = data.draw(st.integers(0, len(blocks) - 1))
    block = blocks[i]
    side = data.draw(st.sampled_from(["old", "new", "path", "none"]))
    kind = data.draw(st.sampled_from(["drop-word", "drop-line", "trailing-space", "indent", "char", "marker"]))
    k = data.draw(st.integers(0, 50))
    if side == "old":
        block = _replace(block, old_lines=_mutate(block.old_lines, kind, k, data))
    elif side == "new":
        block = _replace(block, new_lines=_mutate(block.new_lines, kind, k, data))
    elif side == "path":
        block = _replace(
            block,
            file_path=data.draw(
                st.sampled_from([block.file_path.upper(), Path(block.file_path).name, "x/" + block.file_path])
            ),
        )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(case / "before", root, dirs_exist_ok=True)
        for b in blocks[:i] + [block]:
            target = root / b.file_path
            before = target.read_text(encoding="utf-8", errors="replace") if target.is_file() else None
            result = editblocks.apply_edits([b], root, journal=False)
            (res,) = result.results
            path = root / res.file_path
            after = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
            if res.file_path != b.file_path:
                before = after if res.status is not EditStatus.APPLIED else result.before.get(res.file_path)
            if res.already_applied:
                assert after == before, (case.name, res.reason)
                reading = block_reading(b, before or "", res.file_path)
                assert not isinstance(reading, str)
                search, replace = b.anchor + reading[0] + b.trailing_anchor, b.anchor + reading[1] + b.trailing_anchor
                if res.strategy != "append":
                    assert check_already_applied(before or "", search, replace), (case.name, search, replace)
            elif (
                res.status is EditStatus.APPLIED
                and res.strategy not in ("ast",)
                and before is not None
                and after is not None
            ):
                reading = block_reading(b, before, res.file_path)
                assert not isinstance(reading, str)
                search, replace = b.anchor + reading[0] + b.trailing_anchor, b.anchor + reading[1] + b.trailing_anchor
                assert _delta(before, after) == _delta(search, replace), (case.name, res.strategy, b.file_path)
                grown = marker_lines(after, res.file_path) - marker_lines(before, res.file_path)
                had = marker_lines(before, res.file_path)
                assert all(had[kind] for kind in grown), (case.name, grown)


def _replace(block: EditBlock, **changes: str) -> EditBlock:
    from dataclasses import replace

    return replace(block, **changes)
