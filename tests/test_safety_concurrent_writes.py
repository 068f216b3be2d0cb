"""Another program appending to a file while editblocks edits it: no appended line is lost; an
edit that met a change is reported failed, not applied."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import editblocks
from editblocks import EditBlock, EditStatus

APPENDER = r"""
import sys, time
path, seconds = sys.argv[1], float(sys.argv[2])
end = time.monotonic() + seconds
n = 0
while time.monotonic() < end:
    with open(path, "a") as fh:
        fh.write(f"appended {n}\n")
    n += 1
    time.sleep(0.0005 if n % 40 else 0.03)
print(n)
"""


def test_an_appending_program_loses_no_line(tmp_path: Path) -> None:
    target = tmp_path / "log.txt"
    target.write_text("head = 0\n")
    appender = subprocess.Popen([sys.executable, "-c", APPENDER, str(target), "2.5"], stdout=subprocess.PIPE, text=True)
    applied = failed = 0
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        k = int(target.read_text().split("\n", 1)[0].split("= ")[1])
        result = editblocks.apply_edits(
            [EditBlock("log.txt", f"head = {k}\n", f"head = {k + 1}\n")], tmp_path, journal=False
        )
        status = result.results[0].status
        if status is EditStatus.APPLIED:
            applied += 1
        else:
            failed += 1
            reason = result.results[0].reason or ""
            assert status is EditStatus.FAILED and ("changed" in reason or "open for writing" in reason), reason
            assert result.files_modified == []
    out, _ = appender.communicate(timeout=30)
    appended = int(out)
    lines = target.read_text().splitlines()
    assert lines[0].startswith("head = ")
    got = [line for line in lines[1:] if line.startswith("appended ")]
    missing = sorted(set(range(appended)) - {int(line.split()[1]) for line in got})
    assert not missing, f"{len(missing)} of {appended} appended lines lost ({applied} applies, {failed} refused)"
    assert len(got) == appended
    assert applied > 0
    print(f"{applied} applied, {failed} refused, {appended} lines appended")
