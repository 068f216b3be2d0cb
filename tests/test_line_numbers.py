"""Line-number prefixes copied from a numbered listing are not text (as Roo reads them)."""

from __future__ import annotations

from pathlib import Path

import pytest

import editblocks
from editblocks import EditStatus

from .helpers import sr

FILE = "def total(items):\n    subtotal = sum(items)\n    return subtotal\n"


@pytest.mark.parametrize("shape", ["{n} | {x}", "{n}: {x}", "L{n} {x}", "{n}\t{x}", "  {n} | {x}"])
def test_prefixes_are_stripped_from_search_and_replace(tmp_path: Path, shape: str) -> None:
    (tmp_path / "cart.py").write_text(FILE)
    old = ["def total(items):", "    subtotal = sum(items)", "    return subtotal"]
    new = ["def total(items):", "    subtotal = sum(items)", "    return round(subtotal, 2)"]
    search = "".join(shape.format(n=i + 1, x=x) + "\n" for i, x in enumerate(old))
    replace = "".join(shape.format(n=i + 1, x=x) + "\n" for i, x in enumerate(new))
    result = editblocks.apply_edits(sr("cart.py", search, replace), tmp_path)
    assert result.results[0].status is EditStatus.APPLIED, result.results[0].reason
    assert (tmp_path / "cart.py").read_text() == FILE.replace("return subtotal", "return round(subtotal, 2)")


def test_a_file_that_really_has_such_text_keeps_it(tmp_path: Path) -> None:
    text = "NUMBERS = {\n    1: 'one',\n    2: 'two',\n}\n"
    (tmp_path / "n.py").write_text(text)
    result = editblocks.apply_edits(
        sr("n.py", "    1: 'one',\n    2: 'two',\n", "    1: 'one',\n    2: 'deux',\n"), tmp_path
    )
    assert result.ok and (tmp_path / "n.py").read_text() == text.replace("'two'", "'deux'")


def test_numbers_on_only_some_replace_lines_are_refused(tmp_path: Path) -> None:
    (tmp_path / "cart.py").write_text(FILE)
    search = "1 | def total(items):\n2 |     subtotal = sum(items)\n3 |     return subtotal\n"
    replace = "1 | def total(items):\n    subtotal = sum(items)\n3 |     return subtotal\n"
    result = editblocks.apply_edits(sr("cart.py", search, replace), tmp_path)
    assert result.results[0].status is EditStatus.FAILED and "line numbers" in (result.results[0].reason or "")
    assert (tmp_path / "cart.py").read_text() == FILE
