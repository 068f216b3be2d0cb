"""Applying a reply while it arrives: ``apply_edits(chunks)`` and ``editblocks apply -`` from a pipe."""

from __future__ import annotations

import json
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import editblocks
from editblocks import ApplyStream, BlockApplied, BlockCompleted, EditStatus
from editblocks.files.workspace import TooLargeError

from .helpers import default_sigint, read_tree, sr, write_tree

SCENARIOS = Path(__file__).parent / "scenarios"
CASES = sorted(p for p in SCENARIOS.iterdir() if p.is_dir() and (p / "reply.md").is_file())


def _copy(case: Path, dest: Path) -> Path:
    if (case / "before").is_dir():
        shutil.copytree(case / "before", dest, symlinks=True)
    else:
        dest.mkdir(parents=True)
    return dest


def _random_pieces(data: bytes, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    pieces, i = [], 0
    while i < len(data):
        n = rng.choice([1, 2, 3, 5, 8, 13, 64])
        pieces.append(data[i : i + n])
        i += n
    return pieces


def _seven_char_pieces(text: str) -> list[str]:
    return [text[i : i + 7] for i in range(0, len(text), 7)]


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
@pytest.mark.parametrize("dry_run", [False, True], ids=["write", "dry-run"])
def test_chunks_give_the_same_result_as_the_whole_reply(case: Path, tmp_path: Path, dry_run: bool) -> None:
    data = (case / "reply.md").read_bytes()
    options_file = case / "options.json"
    options = json.loads(options_file.read_text()) if options_file.is_file() else {}
    whole_root = _copy(case, tmp_path / "whole")
    whole = editblocks.apply_edits(data.decode("utf-8"), whole_root, dry_run=dry_run, **options)
    for name, chunks in {
        "bytes": iter(_random_pieces(data, len(data))),
        "str": (piece for piece in _seven_char_pieces(data.decode("utf-8"))),
    }.items():
        root = _copy(case, tmp_path / name)
        got = editblocks.apply_edits(chunks, root, dry_run=dry_run, **options)
        assert got.to_dict() == whole.to_dict(), f"{case.name} ({name} chunks)"
        assert got.diffs == whole.diffs, f"{case.name} ({name} chunks)"
        assert read_tree(root) == read_tree(whole_root), f"{case.name} ({name} chunks)"


def test_each_block_is_applied_as_soon_as_it_completes(root: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    reply = sr("a.py", "x = 1\n", "x = 2\n") + "\nand then\n\n" + sr("b.py", "nothing like this\n", "y = 2\n")
    cut = reply.index("and then")
    with ApplyStream(root) as stream:
        first = stream.feed(reply[:cut])
        applied = [e for e in first if isinstance(e, BlockApplied)]
        assert [(e.index, e.path, e.status) for e in applied] == [(1, "a.py", EditStatus.APPLIED)]
        # The status is known, the file is not written before the reply has ended.
        assert (root / "a.py").read_text() == "x = 1\n"
        rest = stream.feed(reply[cut:]) + stream.close()
        kinds = [type(e) for e in rest]
        assert kinds.index(BlockCompleted) + 1 == kinds.index(BlockApplied)
        second = [e for e in rest if isinstance(e, BlockApplied)]
        assert [(e.index, e.status) for e in second] == [(2, EditStatus.FAILED)]
        result = stream.write()
    assert result.files_modified == ["a.py"]
    assert (root / "a.py").read_text() == "x = 2\n"
    assert (root / "b.py").read_text() == "y = 1\n"


def test_later_blocks_see_earlier_results_across_chunks(root: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n"})
    reply = sr("a.py", "x = 1\n", "x = 2\n") + sr("a.py", "x = 2\n", "x = 3\n")
    result = editblocks.apply_edits(iter(reply), root)  # one character at a time
    assert [r.status for r in result.results] == [EditStatus.APPLIED, EditStatus.APPLIED]
    assert (root / "a.py").read_text() == "x = 3\n"


def test_a_reply_that_breaks_off_writes_nothing(root: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n"})
    before = read_tree(root)

    def chunks():
        yield sr("a.py", "x = 1\n", "x = 2\n")
        raise ConnectionError("the reply broke off")

    with pytest.raises(ConnectionError):
        editblocks.apply_edits(chunks(), root)
    assert read_tree(root) == before
    # The root's lock was released: the next apply goes through at once.
    assert editblocks.apply_edits(sr("a.py", "x = 1\n", "x = 2\n"), root, lock_timeout=1).ok


def test_too_large_a_stream_is_refused_before_anything_is_written(root: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n"})
    chunks = [sr("a.py", "x = 1\n", "x = 2\n"), "# padding\n" * 50]
    with pytest.raises(TooLargeError):
        editblocks.apply_edits(iter(chunks), root, max_reply_bytes=200)
    assert (root / "a.py").read_text() == "x = 1\n"


def test_blocks_and_bytes_sources(root: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n"})
    reply = sr("a.py", "x = 1\n", "x = é\n")
    assert editblocks.apply_edits(reply.encode("utf-8"), root, dry_run=True).ok
    blocks = editblocks.parse_reply(reply).blocks
    assert editblocks.apply_edits(iter(blocks), root, dry_run=True).ok
    assert editblocks.apply_edits(iter([]), root, dry_run=True).results == []
    with pytest.raises(TypeError):
        editblocks.apply_edits([1, 2], root)


# -- editblocks apply - from a pipe --------------------------------------------------------------

WRITER = r"""
import os, sys, time
pieces, go = sys.argv[1:-1], sys.argv[-1]
out = sys.stdout.buffer
out.write(pieces[0].encode()); out.flush()
deadline = time.monotonic() + 20
while not os.path.exists(go) and time.monotonic() < deadline:
    time.sleep(0.02)
for piece in pieces[1:]:
    time.sleep(0.05)
    out.write(piece.encode()); out.flush()
"""


class _Lines:
    """Lines of a stream, read in a thread, each with the time it arrived."""

    def __init__(self, stream) -> None:  # type: ignore[no-untyped-def]
        self.queue: queue.Queue[tuple[float, str] | None] = queue.Queue()
        self.lines: list[str] = []
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream) -> None:  # type: ignore[no-untyped-def]
        for raw in iter(stream.readline, b""):
            self.queue.put((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\n")))
        self.queue.put(None)

    def wait_for(self, needle: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                item = self.queue.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if item is None:
                break
            self.lines.append(item[1])
            if needle in item[1]:
                return item[1]
        raise AssertionError(f"{needle!r} did not appear; got {self.lines}")

    def rest(self, timeout: float = 20) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            item = self.queue.get(timeout=max(0.01, deadline - time.monotonic()))
            if item is None:
                return self.lines
            self.lines.append(item[1])
        raise AssertionError("the output did not end")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["COLUMNS"] = "200"
    env.pop("FORCE_COLOR", None)
    return env


def test_apply_from_a_slow_pipe_shows_each_block_before_the_reply_ends(root: Path, tmp_path: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    first = sr("a.py", "x = 1\n", "x = 2\n")
    second = sr("b.py", "y = 1\n", "y = 2\n")
    # The second block arrives in pieces cut inside its markers.
    pieces = [first, "Now b.py:\n\n" + second[:14], second[14:30], second[30:-12], second[-12:]]
    go = tmp_path / "go"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, *pieces, str(go)], stdout=subprocess.PIPE)
    apply = subprocess.Popen(
        [sys.executable, "-m", "editblocks", "apply", "-", "--root", str(root)],
        stdin=writer.stdout,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
        preexec_fn=default_sigint,
    )
    assert writer.stdout is not None and apply.stdout is not None
    writer.stdout.close()
    try:
        out = _Lines(apply.stdout)
        line = out.wait_for("block 1")
        assert "a.py" in line and "applied" in line
        # The reply has not ended: the writer waits for us, and block 2 has not been shown.
        assert writer.poll() is None
        assert not any("block 2" in x for x in out.lines)
        assert (root / "a.py").read_text() == "x = 1\n"  # written once the reply has ended
        go.touch()
        line = out.wait_for("block 2")
        assert "b.py" in line and "applied" in line
        rest = out.rest()
        assert apply.wait(timeout=20) == 0, apply.stderr.read() if apply.stderr else ""
    finally:
        writer.kill()
        apply.kill()
        writer.wait()
        apply.wait()
    assert "2 applied, 0 failed, 0 skipped" in " ".join(" ".join(rest).split())
    assert (root / "a.py").read_text() == "x = 2\n"
    assert (root / "b.py").read_text() == "y = 2\n"


def test_ctrl_c_while_a_piped_reply_arrives_writes_nothing(root: Path, tmp_path: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n"})
    before = read_tree(root)
    pieces = [sr("a.py", "x = 1\n", "x = 2\n"), "more text\n"]
    go = tmp_path / "go"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, *pieces, str(go)], stdout=subprocess.PIPE)
    apply = subprocess.Popen(
        [sys.executable, "-m", "editblocks", "apply", "-", "--root", str(root)],
        stdin=writer.stdout,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert writer.stdout is not None and apply.stdout is not None
    writer.stdout.close()
    try:
        out = _Lines(apply.stdout)
        out.wait_for("block 1")
        apply.send_signal(signal.SIGINT)
        code = apply.wait(timeout=20)
        err = apply.stderr.read().decode() if apply.stderr else ""
    finally:
        go.touch()
        writer.kill()
        apply.kill()
        writer.wait()
        apply.wait()
    assert code == 130, err
    assert "nothing was written" in err
    assert read_tree(root) == before


def test_binary_data_on_a_pipe_is_refused(root: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n"})
    proc = subprocess.run(
        [sys.executable, "-m", "editblocks", "apply", "-", "--root", str(root)],
        input=sr("a.py", "x = 1\n", "x = 2\n").encode() + b"\x00\x01",
        capture_output=True,
        env=_env(),
        timeout=60,
    )
    assert proc.returncode == 2
    assert b"binary" in proc.stderr
    assert (root / "a.py").read_text() == "x = 1\n"
