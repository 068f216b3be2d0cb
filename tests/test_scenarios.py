"""Data-driven scenarios: every folder under ``tests/scenarios/`` is one case.

A scenario folder holds:

* ``before/``  the project before the reply is applied (absent = empty project);
* ``reply.md`` the model's reply, read byte-exact (CRLF replies stay CRLF);
* ``after/``   the complete expected project afterwards, compared file by file and byte by
  byte: files not listed must not exist. Required when any block is expected to apply;
  without it the project must be left exactly as ``before/``;
* ``expected-results.json`` (optional) the expected outcome::

      {"results": [{"status": "applied", "strategy": "exact"},
                   {"status": "failed", "reason_contains": ["ambiguous", "lines 2 and 6"]}],
       "files_modified": ["a.py"],          # optional, order-insensitive
       "shell_suggestions": ["git rm x"],   # optional, exact list
       "warnings_contain": ["truncated"],   # optional, each must occur in some warning
       "no_warnings": true,                 # optional
       "format": "diff"}                    # optional, ParsedReply.format

  Per result, every key is optional: ``status``, ``strategy``, ``file_path``,
  ``requested_path``, ``estimated_line``, ``reply_line``, ``block_format``,
  ``reason_contains`` and ``notes_contain`` (each a string or a list of strings);
* ``options.json`` (optional) keyword arguments for ``apply_edits``: ``format``,
  ``continue_after_failure``, ``allow_delete``.

Every scenario is applied twice to fresh copies of ``before/``: once with ``dry_run=True``
(nothing may be written, the outcome must be the same) and once for real. Nothing may ever
be written outside the project folder, and a file whose blocks all failed or were skipped
must be left byte-for-byte unchanged.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import editblocks
from editblocks import EditStatus

from .helpers import read_tree

SCENARIOS = Path(__file__).parent / "scenarios"
ALLOWED_OPTIONS = {"format", "continue_after_failure", "allow_delete"}
ALLOWED_RESULT_KEYS = {
    "status",
    "strategy",
    "file_path",
    "requested_path",
    "estimated_line",
    "reply_line",
    "block_format",
    "reason_contains",
    "notes_contain",
}


def _scenario_dirs() -> list[Path]:
    return sorted(p for p in SCENARIOS.iterdir() if p.is_dir() and (p / "reply.md").is_file())


def _load_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _prepare(case: Path, tmp: Path) -> Path:
    outer = tmp / "outer"
    root = outer / "project"
    if (case / "before").is_dir():
        shutil.copytree(case / "before", root, symlinks=True)
    else:
        root.mkdir(parents=True)
    return root


def _check_results(case: Path, result: editblocks.ApplyResult, expected: dict[str, Any]) -> None:
    for res in result.results:
        # Every way of placing a block has its name in the model (the review page's words come from it).
        assert res.strategy is None or res.strategy in {s.value for s in editblocks.Strategy}, (case.name, res.strategy)
    if "results" in expected:
        want = expected["results"]
        got = [(r.file_path, r.status.value, r.reason) for r in result.results]
        assert len(result.results) == len(want), f"{case.name}: expected {len(want)} results, got {got}"
        for i, (res, exp) in enumerate(zip(result.results, want), start=1):
            unknown = set(exp) - ALLOWED_RESULT_KEYS
            assert not unknown, f"{case.name}: unknown keys {unknown} in expected result {i}"
            where = f"{case.name}, block {i} ({res.file_path}: {res.status.value}, reason={res.reason!r})"
            if "status" in exp:
                assert res.status.value == exp["status"], where
            if "strategy" in exp:
                assert res.strategy == exp["strategy"], where
            if "file_path" in exp:
                assert res.file_path == exp["file_path"], where
            if "requested_path" in exp:
                assert res.requested_path == exp["requested_path"], where
            if "estimated_line" in exp:
                assert res.estimated_line == exp["estimated_line"], where
            if "reply_line" in exp:
                assert res.reply_line == exp["reply_line"], where
            if "block_format" in exp:
                assert res.block.format == exp["block_format"], where
            needles = exp.get("reason_contains", [])
            if isinstance(needles, str):
                needles = [needles]
            for needle in needles:
                assert res.reason and needle.lower() in res.reason.lower(), f"{where}: reason lacks {needle!r}"
            notes = exp.get("notes_contain", [])
            for needle in [notes] if isinstance(notes, str) else notes:
                assert any(needle.lower() in n.lower() for n in res.notes), (
                    f"{where}: no note with {needle!r} in {res.notes}"
                )
            if res.status is EditStatus.APPLIED:
                assert res.reason is None or "fail" not in res.reason.lower(), where
            else:
                assert res.reason, f"{where}: a block that did not apply must say why"
    if "files_modified" in expected:
        assert sorted(result.files_modified) == sorted(expected["files_modified"]), case.name
    if "shell_suggestions" in expected:
        assert result.shell_suggestions == expected["shell_suggestions"], case.name
    for needle in expected.get("warnings_contain", []):
        messages = [w.message for w in result.warnings]
        assert any(needle.lower() in m.lower() for m in messages), (
            f"{case.name}: no warning with {needle!r} in {messages}"
        )
    if expected.get("no_warnings"):
        assert result.warnings == [], f"{case.name}: unexpected warnings {result.warnings}"
    if "format" in expected:
        assert result.format == expected["format"], case.name


@pytest.mark.parametrize("case", _scenario_dirs(), ids=lambda p: p.name)
def test_scenario(case: Path, tmp_path: Path) -> None:
    reply = (case / "reply.md").read_bytes().decode("utf-8")
    options = _load_json(case / "options.json")
    assert set(options) <= ALLOWED_OPTIONS, f"{case.name}: unknown options {set(options) - ALLOWED_OPTIONS}"
    expected = _load_json(case / "expected-results.json")
    has_after = (case / "after").is_dir()
    assert has_after or expected, f"{case.name}: a scenario needs after/ or expected-results.json"
    if any(r.get("status") == "applied" for r in expected.get("results", [])):
        assert has_after, f"{case.name}: blocks are expected to apply, so after/ must show the result"

    before_root = _prepare(case, tmp_path / "dry")
    before = read_tree(before_root)

    # Dry run: same outcome, nothing written, and result.after predicts the real files.
    dry = editblocks.apply_edits(reply, before_root, dry_run=True, **options)
    assert read_tree(before_root.parent) == {f"project/{k}": v for k, v in before.items()}, (
        f"{case.name}: a dry run wrote files"
    )
    _check_results(case, dry, expected)

    root = _prepare(case, tmp_path / "real")
    result = editblocks.apply_edits(reply, root, **options)
    _check_results(case, result, expected)
    assert [(r.status, r.file_path, r.reason) for r in result.results] == [
        (r.status, r.file_path, r.reason) for r in dry.results
    ], f"{case.name}: dry run and real run disagree"
    assert sorted(result.files_modified) == sorted(dry.files_modified)

    # Nothing outside the project folder.
    outside = sorted(
        str(p.relative_to(tmp_path)) for p in (tmp_path / "real").rglob("*") if root not in (p, *p.parents)
    )
    assert outside == ["real/outer"], f"{case.name}: files written outside the root: {outside}"

    tree = read_tree(root)
    if has_after:
        after = read_tree(case / "after")
        assert sorted(tree) == sorted(after), f"{case.name}: file set differs"
        for rel, data in after.items():
            assert tree[rel] == data, f"{case.name}: {rel} differs:\n{tree[rel]!r}\nexpected\n{data!r}"
    else:
        assert tree == before, f"{case.name}: the project changed although no after/ was given"

    # A file none of whose blocks applied is untouched (or still absent).
    applied_files = {r.file_path for r in result.results if r.status is EditStatus.APPLIED}
    for res in result.results:
        if res.status is not EditStatus.APPLIED and res.file_path not in applied_files:
            assert tree.get(res.file_path) == before.get(res.file_path), (
                f"{case.name}: {res.file_path} changed although its block {res.status.value}"
            )

    # files_modified is exactly the set of files whose bytes changed, and the dry run predicted them.
    changed = sorted(k for k in set(tree) | set(before) if tree.get(k) != before.get(k))
    assert sorted(result.files_modified) == changed, case.name
    for rel in result.files_modified:
        assert dry.after[rel] == result.after[rel]


def test_every_scenario_is_well_formed() -> None:
    """Guard against a misspelt file name silently turning a scenario into a no-op."""
    dirs = [p for p in SCENARIOS.iterdir() if p.is_dir()]
    assert len(dirs) >= 30
    allowed = {"before", "after", "reply.md", "expected-results.json", "options.json"}
    for case in dirs:
        names = {p.name for p in case.iterdir()}
        assert "reply.md" in names, case.name
        assert names <= allowed, f"{case.name}: unexpected entries {names - allowed}"
        assert names & {"after", "expected-results.json"}, case.name
