"""Fuzzing parse + apply with random replies against random trees (hypothesis).

For every reply: no unhandled exception, nothing written outside the root or into .git, no file
changed unless one of its blocks applied, and every written file holds exactly what the result
reports, in its own encoding.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import editblocks
from editblocks import EditStatus
from editblocks.files.workspace import BinaryFileError, decode

from .helpers import read_tree, sr, v2, v3

NAMES = ["a.py", "pkg/b.py", "c.txt", "pkg/deep/d.md"]
NEW_NAMES = ["new.py", "pkg/new/e.py", "A.PY", "b.py"]
ATTACKS = [
    "../evil.txt",
    "/tmp/editblocks-fuzz-evil.txt",
    ".git/config",
    "out_link/evil.txt",
    "pkg/../../evil.txt",
    "C:\\evil.txt",
    "~/evil.txt",
    ".GIT/config",
]
VOCAB = [
    "x = 1",
    "x = 2",
    "def f():",
    "    return x",
    "",
    "    pass",
    "# note",
    "caf\u00e9",
    "=======",
    "<<<<<<< SEARCH",
    ">>>>>>> REPLACE",
    "```",
    "-------",
    "\t tab",
    "s = 'a\rb'",
    "\u4e2d\u6587",
]
ENCODINGS = ["utf-8", "utf-8", "utf-8", "utf-8-sig", "utf-16", "cp1252", "binary"]

FUZZ_EXAMPLES = int(os.environ.get("EDITBLOCKS_FUZZ_EXAMPLES", "300"))
"""Replies per run; raise it (``EDITBLOCKS_FUZZ_EXAMPLES=5000``) for a longer fuzzing session."""

_COUNTS = {"examples": 0, "blocks": 0, "applied": 0, "failed": 0, "skipped": 0, "files_written": 0}


@st.composite
def trees(draw: st.DrawFn) -> dict[str, tuple[list[str], list[str], str]]:
    tree = {}
    for name in draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True)):
        lines = draw(st.lists(st.sampled_from(VOCAB), min_size=0, max_size=12))
        endings = [draw(st.sampled_from(["\n", "\n", "\r\n", "\r"])) for _ in lines]
        if endings and draw(st.booleans()):
            endings[-1] = ""
        tree[name] = (lines, endings, draw(st.sampled_from(ENCODINGS)))
    return tree


def _bytes(lines: list[str], endings: list[str], encoding: str) -> bytes:
    text = "".join(line + end for line, end in zip(lines, endings))
    if encoding == "binary":
        return b"\x00\x01" + text.encode("utf-8")
    if encoding == "utf-16":
        return b"\xff\xfe" + text.encode("utf-16-le")
    return text.encode(encoding, errors="replace")


@st.composite
def replies(draw: st.DrawFn, tree: dict[str, tuple[list[str], list[str], str]]) -> str:
    file_lines = [line for lines, _, _ in tree.values() for line in lines] or ["x = 1"]
    parts = []
    for _ in range(draw(st.integers(min_value=0, max_value=6))):
        kind = draw(st.sampled_from(["sr", "sr-nofence", "v2", "v3", "new", "garbage", "marker"]))
        group = draw(st.integers(0, 9))
        path = draw(st.sampled_from(list(tree) if group < 6 else NEW_NAMES if group < 8 else ATTACKS))
        if path in tree and tree[path][0] and draw(st.integers(0, 3)):
            # Mostly a run of the file's own lines, so that many blocks find their place.
            lines = tree[path][0]
            start = draw(st.integers(0, len(lines) - 1))
            stop = draw(st.integers(start + 1, min(len(lines), start + 4)))
            old = "".join(s + "\n" for s in lines[start:stop])
        else:
            old = "".join(s + "\n" for s in draw(st.lists(st.sampled_from(file_lines), max_size=4)))
        new = "".join(s + "\n" for s in draw(st.lists(st.sampled_from(VOCAB + ["z = 3", "added"]), max_size=4)))
        if kind == "sr":
            parts.append(sr(path, old, new))
        elif kind == "sr-nofence":
            parts.append(f"{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n")
        elif kind == "v2":
            lead = "".join(s + "\n" for s in draw(st.lists(st.sampled_from(file_lines), max_size=2)))
            parts.append(v2(path, lead, old, new, ""))
        elif kind == "v3":
            parts.append(v3(path, old, new))
        elif kind == "new":
            parts.append(sr(path, "", new))
        elif kind == "marker":
            parts.append(
                draw(
                    st.sampled_from(
                        ["<<<<<<< SEARCH\n", "=======\n", ">>>>>>> REPLACE\n", "```\n", "```python\n", path + "\n"]
                    )
                )
            )
        else:
            parts.append(draw(st.text(max_size=60)) + "\n")
    return "".join(parts)


def _outside_state(top: Path, root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(top)): p.read_bytes()
        for p in top.rglob("*")
        if p.is_file() and root not in p.parents and not p.is_symlink()
    }


def _lf(data: bytes) -> str | None:
    try:
        text = decode(data)[0]
    except BinaryFileError:
        return None
    return text.replace("\r\n", "\n").replace("\r", "\n")


@settings(
    max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data(), atomic=st.booleans(), journal=st.booleans())
def test_random_replies_never_damage_or_escape(data: st.DataObject, atomic: bool, journal: bool) -> None:
    tree = data.draw(trees())
    reply = data.draw(replies(tree))
    top = Path(tempfile.mkdtemp(prefix="editblocks-fuzz-"))
    try:
        outside = top / "outside"
        outside.mkdir()
        (outside / "evil.txt").write_bytes(b"x = 1\n")
        root = top / "root"
        (root / ".git").mkdir(parents=True)
        (root / ".git" / "config").write_bytes(b"x = 1\n")
        (root / "out_link").symlink_to(outside, target_is_directory=True)
        for name, (lines, endings, encoding) in tree.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(_bytes(lines, endings, encoding))
        before = read_tree(root)
        outside_before = _outside_state(top, root)

        editblocks.parse_reply(reply)
        result = editblocks.apply_edits(reply, root, atomic=atomic, journal=journal)

        after = read_tree(root)
        assert _outside_state(top, root) == outside_before, "wrote outside the root"
        assert after[".git/config"] == b"x = 1\n", "wrote into .git"
        applied = {r.file_path for r in result.results if r.status is EditStatus.APPLIED}
        for path in set(before) | set(after):
            if after.get(path) == before.get(path):
                continue
            assert path in result.files_modified, f"{path} changed but is not reported as modified"
            assert path in applied, f"{path} changed although none of its blocks applied"
            reported = result.after[path].replace("\r\n", "\n").replace("\r", "\n")
            assert _lf(after[path]) == reported, f"{path} does not hold what the result reports"
        for path in result.files_modified:
            assert path in after and after[path] != before.get(path), f"{path} reported modified but unchanged"
        if atomic:
            assert not result.files_modified or result.ok
        _COUNTS["examples"] += 1
        _COUNTS["blocks"] += len(result.results)
        _COUNTS["applied"] += len(result.applied)
        _COUNTS["failed"] += len(result.failed)
        _COUNTS["skipped"] += len(result.skipped)
        _COUNTS["files_written"] += len(result.files_modified)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_fuzz_counts_are_reported() -> None:
    # Runs after the fuzz test in file order; the figures go into the README.
    c = _COUNTS
    print(
        f"\nfuzz: {c['examples']} replies, {c['blocks']} blocks "
        f"({c['applied']} applied, {c['failed']} failed, {c['skipped']} skipped), {c['files_written']} files written"
    )
    if c["examples"]:
        assert c["applied"] > 0 and c["failed"] > 0, "the fuzzer should exercise both outcomes"


@pytest.mark.skipif(os.name != "posix", reason="POSIX paths")
def test_attack_list_covers_escapes() -> None:
    assert any(a.startswith("..") for a in ATTACKS) and any(a.startswith("/") for a in ATTACKS)
