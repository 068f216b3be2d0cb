"""Many '=======' lines in one block: time and memory stay linear in the reply's size."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import resource, sys, tempfile, pathlib
    limit = 1_500 * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import editblocks
    n = int(sys.argv[1])
    root = pathlib.Path(tempfile.mkdtemp())
    (root / "a.py").write_text("x = 1\\n")
    reply = "a.py\\n```\\n<<<<<<< SEARCH\\nx = 1\\n" + "=======\\n" * n + "x = 2\\n>>>>>>> REPLACE\\n```\\n"
    parsed = editblocks.parse_reply(reply)
    assert len(parsed.blocks) == 1 and len(parsed.blocks[0].other_splits) <= 2
    result = editblocks.apply_edits(reply, root)
    print(result.results[0].status.value, (root / "a.py").read_text() == "x = 1\\n")
    """
)


@pytest.mark.parametrize("n", [16_000, 50_000])
def test_many_dividers_parse_and_apply_in_bounded_memory(n: int) -> None:
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(n)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    status, untouched = run.stdout.split()
    # The block's REPLACE would hold '=======' lines, which are never written into a file.
    assert status == "failed" and untouched == "True"
