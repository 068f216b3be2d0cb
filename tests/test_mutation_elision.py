"""Elision lines in REPLACE only (``# ... existing code ...``), pinned where they decide what is
written: the SEARCH lines they stand for, a line the file itself has, Python's ``...``, fenced
examples in documents, and the readings that are refused."""

from __future__ import annotations

from pathlib import Path

import editblocks
from editblocks import EditStatus
from editblocks.matching import MatchFailure
from editblocks.matching.elision import expand_replace_elisions

from .helpers import sr

ELIDE = "    # ... existing code ..."
S = ["def f():", "    alpha = 1", "    beta = 2", "    gamma = 3", "    delta = 4", "    return alpha"]


def _t(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _expand(replace: list[str], *, file: str | None = None, **flags: bool) -> str | MatchFailure:
    return expand_replace_elisions(_t(S) if file is None else file, _t(S), _t(replace), **flags)


def test_an_elision_stands_for_the_search_lines_it_replaces() -> None:
    assert _expand(["def f():", ELIDE, "    return alpha + 1"]) == _t([*S[:5], "    return alpha + 1"])


def test_an_elision_standing_for_exactly_one_line() -> None:
    replace = ["def f():", "    alpha = 1", "    beta = 2", "    gamma = 3", ELIDE, "    return alpha + 1"]
    assert _expand(replace) == _t([*S[:5], "    return alpha + 1"])


def test_an_elision_standing_for_no_line_is_refused() -> None:
    failure = _expand(
        ["def f():", "    alpha = 1", "    beta = 22", ELIDE, "    gamma = 3", "    delta = 4", "    return alpha"]
    )
    assert isinstance(failure, MatchFailure) and failure.kind == "elision"
    assert "existing code" in failure.reason


def test_the_line_after_an_elision_must_be_like_the_search_line_it_replaces() -> None:
    failure = _expand(["def f():", ELIDE, "    completely_new_call()"])
    assert isinstance(failure, MatchFailure) and failure.kind == "elision"


def test_similarity_of_exactly_sixty_percent_is_enough() -> None:
    search = ["head = 0", "x1 = 1", "x2 = 2", "abcde"]
    out = expand_replace_elisions(_t(search), _t(search), _t(["head = 0", ELIDE, "abcxy"]))
    assert out == _t(["head = 0", "x1 = 1", "x2 = 2", "abcxy"])


def test_unchanged_lines_elsewhere_do_not_join_the_elisions_stretch() -> None:
    search = ["alpha = 1", "beta = 2", "gamma = 3", "delta = 4", "epsilon = 5", "zeta = 6"]
    replace = ["alpha = 1", ELIDE, "delta = 4", "brand_new_line()", "epsilon = 5", "zeta = 6"]
    out = expand_replace_elisions(_t(search), _t(search), _t(replace))
    assert out == _t(["alpha = 1", "beta = 2", "gamma = 3", "delta = 4", "brand_new_line()", "epsilon = 5", "zeta = 6"])


def test_a_line_the_file_has_is_content_not_an_elision() -> None:
    file = _t([*S, "", "    # ... existing code ..."])
    replace = ["def f():", "    alpha = 1", ELIDE, "    beta = 2", "    gamma = 3", "    delta = 4", "    return alpha"]
    assert _expand(replace, file=file) == _t(replace)
    assert expand_replace_elisions(lambda: file, _t(S), _t(replace)) == _t(replace)


def test_the_file_text_may_be_a_string() -> None:
    assert _expand(["def f():", ELIDE, "    return alpha + 1"], file=_t(S)) == _t([*S[:5], "    return alpha + 1"])


def test_pythons_ellipsis_that_cannot_be_an_elision_is_kept_as_code() -> None:
    replace = [
        "def f():",
        "    alpha = 1",
        "    beta = 22",
        "    ...",
        "    gamma = 3",
        "    delta = 4",
        "    return alpha",
    ]
    assert isinstance(_expand(replace), MatchFailure)
    assert _expand(replace, ellipsis_is_code=True) == _t(replace)
    unicode = [line.replace("...", "\u2026") for line in replace]
    assert _expand(unicode, ellipsis_is_code=True) == _t(unicode)


def test_in_a_document_a_fenced_example_is_content_and_text_outside_is_not() -> None:
    search = ["Intro.", "", "Step one.", "Step two.", "Step three.", "End."]
    example = ["Intro.", "```", "# ... existing code ...", "```", "Step one.", "Step two.", "Step three.", "End."]
    assert expand_replace_elisions(_t(search), _t(search), _t(example), document=True) == _t(example)
    assert isinstance(expand_replace_elisions(_t(search), _t(search), _t(example)), MatchFailure)
    outside = ["Intro.", "", "Step one.", "... rest unchanged ...", "End!"]
    expected = _t(["Intro.", "", "Step one.", "Step two.", "Step three.", "End!"])
    assert expand_replace_elisions(_t(search), _t(search), _t(outside), document=True) == expected
    assert expand_replace_elisions(_t(search), _t(search), _t(outside)) == expected


def test_python_ellipsis_kept_through_apply(tmp_path: Path) -> None:
    text = _t(["class P:", "    def area(self):", "        return 0", "", "    def name(self):", "        return 'p'"])
    (tmp_path / "m.py").write_text(text)
    search = _t(["    def area(self):", "        return 0"])
    replace = _t(["    def area(self):", "        ...", "", "    def size(self):", "        return 1"])
    result = editblocks.apply_edits(sr("m.py", search, replace), tmp_path)
    assert result.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == text.replace(search, replace)
