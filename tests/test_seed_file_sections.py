"""Seed 004 (``### File:`` sections, NEW_FILE): one test per item of its "Test Categories",
plus its "Supported Scenarios" and validation messages."""

from __future__ import annotations

from pathlib import Path

import editblocks
from editblocks import EditStatus, parse_reply

from .helpers import apply_to, write_tree


def section(path: str, *bodies: str) -> str:
    return f"### File: {path}\n" + "\n".join(bodies)


def block(search: str, replace: str) -> str:
    return f"<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


def new_file(content: str) -> str:
    return f"<<<<<<< NEW_FILE\n{content}>>>>>>> NEW_FILE\n"


# -- 1. edge cases -------------------------------------------------------------------------


def test_incomplete_truncated_blocks(root: Path) -> None:
    reply = section(
        "src/app.ts", block("const a = 1;\n", "const a = 10;\n"), "<<<<<<< SEARCH\nconst b = 2;\n=======\nconst b = 2"
    )
    result, files = apply_to(root, {"src/app.ts": "const a = 1;\nconst b = 2;\n"}, reply)
    assert [r.status for r in result.results] == [EditStatus.APPLIED]
    assert files["src/app.ts"] == "const a = 10;\nconst b = 2;\n"
    messages = [w.message for w in result.warnings]
    assert any("truncated" in m for m in messages)
    assert "Mismatched SEARCH/REPLACE: 2 SEARCH vs 1 REPLACE" in messages


def test_incomplete_new_file_block() -> None:
    parsed = parse_reply(section("a.ts", new_file("x\n")) + section("b.ts", "<<<<<<< NEW_FILE\ny\n"))
    assert [b.file_path for b in parsed.blocks] == ["a.ts"]
    assert any("NEW_FILE" in w.message and "truncated" in w.message for w in parsed.warnings)


def test_mixed_valid_invalid_blocks(root: Path) -> None:
    reply = section(
        "src/app.ts",
        block("const a = 1;\n", "const a = 10;\n"),
        "<<<<<<< SEARCH\nconst b = 2;\n>>>>>>> REPLACE\n",  # missing separator
        block("const c = 3;\n", "const c = 30;\n"),
    )
    result, files = apply_to(root, {"src/app.ts": "const a = 1;\nconst b = 2;\nconst c = 3;\n"}, reply)
    assert [r.status for r in result.results] == [EditStatus.APPLIED, EditStatus.APPLIED]
    assert files["src/app.ts"] == "const a = 10;\nconst b = 2;\nconst c = 30;\n"
    (warning,) = [w for w in result.warnings if "separator" in w.message]
    assert reply.split("\n")[warning.line - 1] == "<<<<<<< SEARCH"


def test_special_characters(root: Path) -> None:
    text = (
        'const re = /test\\.value\\[0\\]/;\nconst t = `hello ${name}`;\nconst s = "=======";\nconst u = "ünï©ødé ✓";\n'
    )
    reply = section(
        "src/special.ts",
        block("const re = /test\\.value\\[0\\]/;\n", "const re = /test\\.value\\[1\\]/;\n"),
        block("const t = `hello ${name}`;\n", "const t = `bye ${name}`;\n"),
        block('const s = "=======";\n', 'const s = "-------";\n'),
        block('const u = "ünï©ødé ✓";\n', 'const u = "ünï©ødé ✗";\n'),
    )
    result, files = apply_to(root, {"src/special.ts": text}, reply)
    assert [r.status for r in result.results] == [EditStatus.APPLIED] * 4
    assert files["src/special.ts"] == (
        'const re = /test\\.value\\[1\\]/;\nconst t = `bye ${name}`;\nconst s = "-------";\nconst u = "ünï©ødé ✗";\n'
    )


def test_nested_markers(root: Path) -> None:
    """Marker-like text inside content (conflict markers, markers in strings) is content."""
    text = 'doc = """\n<<<<<<< HEAD\nmine\n>>>>>>> theirs\n"""\nmarker = "<<<<<<< SEARCH"\n'
    reply = section(
        "tool.py",
        block('doc = """\n<<<<<<< HEAD\nmine\n>>>>>>> theirs\n"""\n', 'doc = """\nresolved\n"""\n'),
        block('marker = "<<<<<<< SEARCH"\n', 'marker = "<<<<<<< REPLACE"\n'),
    )
    result, files = apply_to(root, {"tool.py": text}, reply)
    assert [r.status for r in result.results] == [EditStatus.APPLIED] * 2, [r.reason for r in result.results]
    assert files["tool.py"] == 'doc = """\nresolved\n"""\nmarker = "<<<<<<< REPLACE"\n'


def test_very_long_content(root: Path) -> None:
    long_line = "x = '" + "a" * 12_000 + "'\n"
    text = "".join(f"line_{i} = {i}\n" for i in range(600)) + long_line
    reply = section(
        "big.py",
        block(long_line, long_line.replace("a", "b")),
        block("line_300 = 300\n", "line_300 = 'three hundred'\n"),
    )
    result, files = apply_to(root, {"big.py": text}, reply)
    assert [r.status for r in result.results] == [EditStatus.APPLIED] * 2
    assert files["big.py"] == text.replace("line_300 = 300\n", "line_300 = 'three hundred'\n").replace(
        long_line, long_line.replace("a", "b")
    )
    assert result.results[1].estimated_line == 301


# -- 2. complex scenarios ------------------------------------------------------------------


def test_multiple_files_with_multiple_edits(root: Path) -> None:
    files = {f"src/mod{f}.ts": "".join(f"export const v{i} = {i};\n" for i in range(10)) for f in range(20)}
    reply = "\n".join(
        section(path, *(block(f"export const v{i} = {i};\n", f"export const v{i} = {i * 100};\n") for i in range(10)))
        for path in files
    )
    result, after = apply_to(root, files, reply)
    assert len(result.results) == 200
    assert all(r.status is EditStatus.APPLIED for r in result.results)
    assert sorted(result.files_modified) == sorted(files)
    for path in files:
        assert after[path] == "".join(f"export const v{i} = {i * 100};\n" for i in range(10))


def test_sequential_dependent_edits(root: Path) -> None:
    reply = section(
        "src/math.ts",
        block("function add(a, b) {\n", "function add(a: number, b: number) {\n"),
        block("function add(a: number, b: number) {\n", "function add(a: number, b: number): number {\n"),
    )
    result, files = apply_to(root, {"src/math.ts": "function add(a, b) {\n  return a + b;\n}\n"}, reply)
    assert [r.status for r in result.results] == [EditStatus.APPLIED] * 2
    assert files["src/math.ts"] == "function add(a: number, b: number): number {\n  return a + b;\n}\n"


def test_large_scale_refactoring(root: Path) -> None:
    """Rename a function across several files, move it to a new module, and delete the old definition."""
    files = {
        "src/util.ts": "export function fetchData(url: string) {\n  return fetch(url);\n}\n\nexport const VERSION = 1;\n",
        "src/a.ts": "import { fetchData } from './util';\nfetchData('/a');\n",
        "src/b.ts": "import { fetchData } from './util';\nfetchData('/b');\n",
    }
    reply = "\n".join(
        [
            section("src/api/http.ts", new_file("export function loadJson(url: string) {\n  return fetch(url);\n}\n")),
            section("src/util.ts", block("export function fetchData(url: string) {\n  return fetch(url);\n}\n\n", "")),
            section(
                "src/a.ts",
                block("import { fetchData } from './util';\n", "import { loadJson } from './api/http';\n"),
                block("fetchData('/a');\n", "loadJson('/a');\n"),
            ),
            section(
                "src/b.ts",
                block(
                    "import { fetchData } from './util';\nfetchData('/b');\n",
                    "import { loadJson } from './api/http';\nloadJson('/b');\n",
                ),
            ),
        ]
    )
    result, after = apply_to(root, files, reply)
    assert all(r.status is EditStatus.APPLIED for r in result.results), [r.reason for r in result.results]
    assert after == {
        "src/api/http.ts": "export function loadJson(url: string) {\n  return fetch(url);\n}\n",
        "src/util.ts": "export const VERSION = 1;\n",
        "src/a.ts": "import { loadJson } from './api/http';\nloadJson('/a');\n",
        "src/b.ts": "import { loadJson } from './api/http';\nloadJson('/b');\n",
    }


def test_real_world_patterns_react_api_types(root: Path) -> None:
    files = {
        "src/components/Counter.tsx": (
            "import React from 'react';\n\nexport function Counter() {\n  return <button>0</button>;\n}\n"
        ),
        "src/api/client.ts": "export async function getUser(id: string) {\n  const res = await fetch(`/api/users/${id}`);\n  return res.json();\n}\n",
        "src/types.ts": "export interface User {\n  id: string;\n}\n",
    }
    reply = "\n".join(
        [
            section(
                "src/components/Counter.tsx",
                block("import React from 'react';\n", "import React, { useState } from 'react';\n"),
                block(
                    "export function Counter() {\n  return <button>0</button>;\n}\n",
                    "export function Counter() {\n  const [n, setN] = useState(0);\n  return <button onClick={() => setN(n + 1)}>{n}</button>;\n}\n",
                ),
            ),
            section(
                "src/api/client.ts",
                block(
                    "  const res = await fetch(`/api/users/${id}`);\n  return res.json();\n",
                    "  const res = await fetch(`/api/users/${id}`);\n  if (!res.ok) throw new Error(`HTTP ${res.status}`);\n  return (await res.json()) as User;\n",
                ),
            ),
            section("src/types.ts", block("  id: string;\n}\n", "  id: string;\n  name?: string;\n}\n")),
        ]
    )
    result, after = apply_to(root, files, reply)
    assert [r.status for r in result.results] == [EditStatus.APPLIED] * 4
    assert "useState(0)" in after["src/components/Counter.tsx"]
    assert after["src/components/Counter.tsx"].startswith("import React, { useState } from 'react';\n")
    assert "throw new Error(`HTTP ${res.status}`)" in after["src/api/client.ts"]
    assert after["src/types.ts"] == "export interface User {\n  id: string;\n  name?: string;\n}\n"


# -- 3. core functionality -----------------------------------------------------------------


def test_basic_search_replace(root: Path) -> None:
    reply = section(
        "src/app.ts", block("const a = 1;\n", "const a = 10;\n"), block("const b = 2;\n", "const b = 20;\n")
    )
    parsed = parse_reply(reply)
    assert parsed.format == "file-sections"
    assert [(b.file_path, b.format) for b in parsed.blocks] == [("src/app.ts", "file-sections")] * 2
    result, files = apply_to(root, {"src/app.ts": "const a = 1;\nconst b = 2;\n"}, reply)
    assert files["src/app.ts"] == "const a = 10;\nconst b = 20;\n"
    assert [r.strategy for r in result.results] == ["exact", "exact"]


def test_empty_replace_blocks_deletions(root: Path) -> None:
    reply = section("f.ts", block("const unused = true;\n", ""), block("const b = 2;\n", "const b = 3;\n"))
    result, files = apply_to(root, {"f.ts": "const a = 1;\nconst unused = true;\nconst b = 2;\n"}, reply)
    assert [r.status for r in result.results] == [EditStatus.APPLIED] * 2
    assert files["f.ts"] == "const a = 1;\nconst b = 3;\n"


def test_new_file_block(root: Path) -> None:
    result, files = apply_to(root, {}, section("src/new/thing.ts", new_file("export const thing = 1;\n")))
    assert (result.results[0].status, result.results[0].strategy) == (EditStatus.APPLIED, "create")
    assert files == {"src/new/thing.ts": "export const thing = 1;\n"}


def test_fuzzy_matching(root: Path) -> None:
    """Trailing whitespace the model dropped: applied to the right lines or refused; never a wrong edit."""
    text = "function init() {   \n  const x = 1;\t\n  return x;\n}\n"
    reply = section(
        "init.ts",
        block(
            "function init() {\n  const x = 1;\n  return x;\n}\n", "function init() {\n  const x = 2;\n  return x;\n}\n"
        ),
    )
    result, files = apply_to(root, {"init.ts": text}, reply)
    res = result.results[0]
    if res.status is EditStatus.APPLIED:
        assert res.strategy != "exact"
        assert files["init.ts"] in (
            "function init() {   \n  const x = 2;\n  return x;\n}\n",
            "function init() {   \n  const x = 2;\t\n  return x;\n}\n",
        )
    else:
        assert "whitespace" in (res.reason or "")
        assert files["init.ts"] == text


def test_error_handling(root: Path) -> None:
    reply = "\n".join(
        [
            section("missing.ts", block("a\n", "b\n")),
            section("dup.ts", block("x;\n", "y;\n")),
            section("exists.ts", new_file("overwrite\n")),
            section("../escape.ts", new_file("nope\n")),
        ]
    )
    result, files = apply_to(root, {"dup.ts": "x;\nx;\n", "exists.ts": "keep\n"}, reply)
    reasons = [(r.status, (r.reason or "").lower()) for r in result.results]
    assert [s for s, _ in reasons] == [EditStatus.FAILED] * 4
    assert "not found" in reasons[0][1]
    assert "ambiguous" in reasons[1][1] and "1 and 2" in reasons[1][1]
    assert "exists" in reasons[2][1]
    assert "root" in reasons[3][1]
    assert files == {"dup.ts": "x;\nx;\n", "exists.ts": "keep\n"}
    assert not (root.parent / "escape.ts").exists()
    assert result.files_modified == []


def test_multi_patch_application(root: Path) -> None:
    """Several blocks per file across files, applied in reply order, each seeing the earlier ones."""
    write_tree(root, {"a.ts": "1\n2\n3\n", "b.ts": "x\ny\n"})
    reply = "\n".join(
        [
            section("a.ts", block("1\n", "one\n")),
            section("b.ts", block("x\n", "ex\n")),
            section("a.ts", block("3\n", "three\n"), block("one\n2\n", "one\ntwo\n")),
        ]
    )
    result = editblocks.apply_edits(reply, root)
    assert result.ok
    assert (root / "a.ts").read_text() == "one\ntwo\nthree\n"
    assert (root / "b.ts").read_text() == "ex\ny\n"
    assert sorted(result.files_modified) == ["a.ts", "b.ts"]
