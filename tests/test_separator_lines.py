"""Blocks whose SEARCH or REPLACE holds a line of only '=' signs (an .rst underline).

Which '=======' line separates SEARCH from REPLACE is then ambiguous; the file decides, and
only when that is certain.
"""

from __future__ import annotations

from pathlib import Path

import editblocks
from editblocks import EditStatus

# Three '=======' lines: the middle one (as many underlines before as after) is the balanced reading.
BALANCED = """doc.rst
```rst
<<<<<<< SEARCH
Welcome
=======
Old text.
=======
Welcome
=======
New text.
>>>>>>> REPLACE
```
"""


def test_balanced_reading_applies_when_it_matches(tmp_path: Path) -> None:
    (tmp_path / "doc.rst").write_text("Intro\n\nWelcome\n=======\nOld text.\n")
    result = editblocks.apply_edits(BALANCED, tmp_path)
    assert [r.status for r in result.results] == [EditStatus.APPLIED]
    assert (tmp_path / "doc.rst").read_text() == "Intro\n\nWelcome\n=======\nNew text.\n"


def test_only_the_balanced_reading_is_allowed(tmp_path: Path) -> None:
    # The first '=======' as separator would replace the line 'Welcome' with junk: never done.
    text = "Welcome\n=======\nOther text.\n"
    (tmp_path / "doc.rst").write_text(text)
    result = editblocks.apply_edits(BALANCED, tmp_path)
    r = result.results[0]
    assert r.status is EditStatus.FAILED
    assert "several '=======' lines" in (r.reason or "")
    assert (tmp_path / "doc.rst").read_text() == text


# Two '=======' lines: the model adds an underlined heading above 'Intro'.
ADD_HEADING = """doc.rst
```rst
<<<<<<< SEARCH
Intro
=======
Title
=======
Intro
>>>>>>> REPLACE
```
"""


def test_even_count_applies_the_only_reading_in_the_file(tmp_path: Path) -> None:
    # Reading 1 (SEARCH 'Intro') is in the file once; reading 2 (SEARCH 'Intro / ======= / Title') is not.
    (tmp_path / "doc.rst").write_text("Intro\nmore\n")
    result = editblocks.apply_edits(ADD_HEADING, tmp_path)
    assert result.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "doc.rst").read_text() == "Title\n=======\nIntro\nmore\n"


def test_even_count_with_both_readings_in_the_file_is_refused(tmp_path: Path) -> None:
    # Both 'Intro' and 'Intro / ======= / Title' are in the file: either edit could be meant.
    text = "Intro\n=======\nTitle\n"
    (tmp_path / "doc.rst").write_text(text)
    result = editblocks.apply_edits(ADD_HEADING, tmp_path)
    assert result.results[0].status is EditStatus.FAILED
    assert (tmp_path / "doc.rst").read_text() == text
