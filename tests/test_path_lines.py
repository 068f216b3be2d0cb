"""Path lines in every format: spaces, '<', quotes, non-ASCII and extensionless names are paths,
and a block whose path line cannot be read never takes the previous block's file."""

from __future__ import annotations

from pathlib import Path

import pytest

import editblocks
from editblocks import EditStatus

PATHS = [
    "docs/user guide/intro.md",
    "Makefile",
    "Dockerfile",
    "LICENSE",
    "données/résumé.md",
    "src/<x>.py",
    "src/it's.py",
]

TEMPLATES = {
    "diff": "{p}\n```\n<<<<<<< SEARCH\nhello\n=======\nbye\n>>>>>>> REPLACE\n```\n",
    "diff-fenced": "```\n{p}\n<<<<<<< SEARCH\nhello\n=======\nbye\n>>>>>>> REPLACE\n```\n",
    "edit-v2": "{p}\n<<<<<<< EDIT\n-------\nhello\n=======\nbye\n-------\n>>>>>>>\n",
    "edit-v3": "{p}\n««« EDIT\nhello\n═══════ REPL\nbye\n»»» EDIT END\n",
    "cline": "{p}\n------- SEARCH\nhello\n=======\nbye\n+++++++ REPLACE\n",
    "file-sections": "### File: {p}\n<<<<<<< SEARCH\nhello\n=======\nbye\n>>>>>>> REPLACE\n",
    "whole": "{p}\n```\nbye\n```\n",
}
FIRST = "a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n"


@pytest.mark.parametrize("fmt", sorted(TEMPLATES))
@pytest.mark.parametrize("path", PATHS)
def test_every_path_shape_in_every_format(tmp_path: Path, fmt: str, path: str) -> None:
    (tmp_path / "a.py").write_text("x = 1\nhello\n")
    target = tmp_path / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("hello\n")
    reply = TEMPLATES[fmt].format(p=path) if fmt == "whole" else FIRST + TEMPLATES[fmt].format(p=path)
    result = editblocks.apply_edits(reply, tmp_path, format="whole" if fmt == "whole" else None)
    assert all(r.status is EditStatus.APPLIED for r in result.results), [
        (r.file_path, r.reason) for r in result.results
    ]
    assert target.read_text() == "bye\n"
    assert (tmp_path / "a.py").read_text() == ("x = 1\nhello\n" if fmt == "whole" else "x = 2\nhello\n")


@pytest.mark.parametrize(
    "line",
    [
        "src/a|b.py",
        "src/{x}.py",
        "lib/$name.py",
        "**src/a|b.py**",
        "Now in a|b.py",
        "decoder.py|x",
        "Now in decoder.py|x",
    ],
)
def test_an_unreadable_path_line_never_falls_to_the_previous_file(tmp_path: Path, line: str) -> None:
    """The second block's SEARCH text is in a.py too: taking a.py's path would be a wrong edit."""
    (tmp_path / "a.py").write_text("x = 1\nhello\n")
    reply = FIRST + TEMPLATES["diff"].format(p=line)
    result = editblocks.apply_edits(reply, tmp_path)
    assert (tmp_path / "a.py").read_text() == "x = 2\nhello\n"
    assert len(result.results) == 1 and any("no file path" in w.message for w in result.warnings)
    assert not result.ok


def test_prose_before_a_block_still_reuses_the_previous_path(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\nhello\n")
    reply = FIRST + "Then:\n```\n<<<<<<< SEARCH\nhello\n=======\nbye\n>>>>>>> REPLACE\n```\n"
    result = editblocks.apply_edits(reply, tmp_path)
    assert result.ok and (tmp_path / "a.py").read_text() == "x = 2\nbye\n"
