"""A malformed block is a warning at its own line, and never swallows or changes the blocks
after it: deleting one marker line from one block leaves every other block as it was."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import editblocks
from editblocks import EditBlock

MARKERS = {
    "diff": ("<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"),
    "edit-v2": ("<<<<<<< EDIT", "-------", "=======", "-------", ">>>>>>>"),
    "edit-v3": ("««« EDIT", "═══════ REPL", "»»» EDIT END"),
    "cline": ("------- SEARCH", "=======", "+++++++ REPLACE"),
}

words = st.sampled_from(["alpha", "beta = 1", "gamma()", "    delta", "return x", "# note", "value += 2"])
section = st.lists(words, min_size=1, max_size=3)


@st.composite
def reply(draw: st.DrawFn) -> tuple[str, str, int, int]:
    fmt = draw(st.sampled_from(sorted(MARKERS)))
    n = draw(st.integers(2, 4))
    blocks = []
    for k in range(n):
        old, new = draw(section), draw(section)
        block = EditBlock(
            f"dir/file_{k}.py", old_lines="".join(x + "\n" for x in old), new_lines="".join(x + "\n" for x in new)
        )
        if fmt == "edit-v2":
            block = EditBlock(
                block.file_path,
                old_lines=block.old_lines,
                new_lines=block.new_lines,
                anchor=f"lead_{k}\n",
                trailing_anchor=f"trail_{k}\n",
            )
        if fmt == "edit-v3":
            block = EditBlock(
                block.file_path,
                old_lines=f"anchor_{k}\n" + block.old_lines,
                new_lines=f"anchor_{k}\n" + block.new_lines.replace("alpha", "ALPHA") + "extra\n",
            )
        blocks.append(editblocks.get_format(fmt).render(block))
    victim = draw(st.integers(0, n - 1))
    marker = draw(st.integers(0, len(MARKERS[fmt]) - 1))
    return fmt, "\n".join(blocks), victim, marker


def _key(b: EditBlock) -> tuple[str, str, str, str, str]:
    return (b.file_path, b.anchor, b.old_lines, b.new_lines, b.trailing_anchor)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(reply())
def test_deleting_one_marker_leaves_every_other_block_as_it_was(case: tuple[str, str, int, int]) -> None:
    fmt, text, victim, marker = case
    whole = editblocks.parse_reply(text, fmt)
    assert len(whole.blocks) == text.count(MARKERS[fmt][0]) and not whole.warnings
    lines = text.split("\n")
    # The marker line of the victim block to delete (blocks are rendered in order).
    starts = [i for i, x in enumerate(lines) if x == MARKERS[fmt][0]]
    begin = starts[victim]
    end = starts[victim + 1] if victim + 1 < len(starts) else len(lines)
    wanted = MARKERS[fmt][marker]
    seen = [i for i in range(begin, end) if lines[i] == wanted]
    k = 1 if (fmt == "edit-v2" and marker == 3 and len(seen) > 1) else 0
    del lines[seen[k]]
    broken = editblocks.parse_reply("\n".join(lines), fmt)
    others = [_key(b) for i, b in enumerate(whole.blocks) if i != victim]
    got = [_key(b) for b in broken.blocks]
    assert got == others, (fmt, victim, wanted)
    if marker:  # without its start marker, the rest of a block is just text
        assert broken.warnings and all(w.line > 0 for w in broken.warnings)
