"""``editblocks summary``: definitions per file in seed 002's marks, most referenced first,
cut to a token budget, stable, skipping what git ignores; and its place in the messages."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import editblocks
from editblocks.cli import main
from editblocks.syntax import estimate_tokens, summarize
from editblocks.syntax import tree as syntax_tree

from .syntax_support import copy_into, git, git_available, needs_ast, no_git_above, npm_root, stdlib_file


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


STDLIB_PART = [
    "json/__init__.py",
    "json/decoder.py",
    "json/encoder.py",
    "json/scanner.py",
    "html/__init__.py",
    "html/parser.py",
    "argparse.py",
    "shlex.py",
    "textwrap.py",
    "queue.py",
]


@pytest.fixture
def stdlib_tree(tmp_path: Path) -> Path:
    root = tmp_path / "lib"
    copy_into(root, {name: stdlib_file(name) for name in STDLIB_PART})
    return root


def outline_blocks(text: str) -> dict[str, list[str]]:
    """Path → outline lines, parsed back from the summary text."""
    out: dict[str, list[str]] = {}
    for chunk in text.split("\n\n"):
        head, *rest = chunk.split("\n")
        assert head.endswith(":"), head
        out[head[:-1]] = rest
    return out


@needs_ast
def test_stdlib_summary_has_signatures_in_seed_marks(stdlib_tree: Path) -> None:
    result = summarize(None, stdlib_tree, max_tokens=None)
    blocks = outline_blocks(result.text)
    assert set(blocks) == set(STDLIB_PART) - {"html/__init__.py"} | ({"html/__init__.py"} & set(blocks))
    parser = blocks["html/parser.py"]
    assert "│class HTMLParser(_markupbase.ParserBase):" in parser
    assert "│    def feed(self, data):" in parser
    assert parser.index("│class HTMLParser(_markupbase.ParserBase):") < parser.index("│    def feed(self, data):")
    for lines in blocks.values():
        for line in lines:
            assert line == "⋮" or line.startswith("│"), line
        assert all(not (a == b == "⋮") for a, b in zip(lines, lines[1:]))
    # Multi-line signatures are shown whole (up to ten lines).
    decoder = blocks["json/decoder.py"]
    start = decoder.index("│    def __init__(self, *, object_hook=None, parse_float=None,")
    assert decoder[start + 1].startswith("│            parse_int=None")
    assert result.tokens == estimate_tokens(result.text)
    assert result.definitions == result.shown


@needs_ast
@pytest.mark.parametrize("budget", [64, 200, 500, 1000, 3000])
def test_stdlib_summary_respects_the_budget_and_is_stable(stdlib_tree: Path, budget: int) -> None:
    first = summarize(None, stdlib_tree, max_tokens=budget)
    second = summarize(None, stdlib_tree, max_tokens=budget)
    assert first.text == second.text
    assert list(first) == list(second)
    assert estimate_tokens(first.text) <= budget
    assert 0 < first.shown < first.definitions
    assert any("cut to the budget" in n for n in first.notes)
    # A larger budget shows at least what a smaller one did.
    if budget < 3000:
        bigger = summarize(None, stdlib_tree, max_tokens=budget * 2)
        assert bigger.shown >= first.shown


@needs_ast
def test_stdlib_summary_order_does_not_depend_on_the_listing_order(stdlib_tree: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    copy_into(other, {name: stdlib_tree / name for name in reversed(STDLIB_PART)})
    assert summarize(None, stdlib_tree, 700).text == summarize(None, other, 700).text


@needs_ast
def test_the_most_referenced_definitions_come_first(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "core.py").write_text(
        "def load_settings(path):\n    return {}\n\n\ndef rarely_called_thing():\n    pass\n\n\ndef never_used_elsewhere():\n    pass\n"
    )
    (root / "a.py").write_text(
        "from core import load_settings\n" + "load_settings('x')\n" * 8 + "rarely_called_thing()\n"
    )
    (root / "b.py").write_text("from core import load_settings\nload_settings('y')\n")
    full = summarize(None, root, None)
    assert full.definitions == 3
    tight = summarize(None, root, estimate_tokens("core.py:\n│def load_settings(path):\n⋮") + 1)
    assert tight.shown == 1
    assert tight.text == "core.py:\n│def load_settings(path):\n⋮"
    two = summarize(
        None, root, estimate_tokens("core.py:\n│def load_settings(path):\n⋮\n│def rarely_called_thing():\n⋮") + 1
    )
    assert two.text == "core.py:\n│def load_settings(path):\n⋮\n│def rarely_called_thing():\n⋮"


@needs_ast
def test_a_method_brings_its_class_header(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "m.py").write_text(
        "class Store:\n    def __init__(self):\n        pass\n\n    def fetch_record(self, key):\n        return key\n"
    )
    (root / "use.py").write_text("s.fetch_record(1)\n" * 5)
    result = summarize(None, root, estimate_tokens("m.py:\n│class Store:\n⋮\n│    def fetch_record(self, key):\n⋮") + 1)
    assert result.text == "m.py:\n│class Store:\n⋮\n│    def fetch_record(self, key):\n⋮"


@needs_ast
def test_npm_javascript_summary(tmp_path: Path) -> None:
    root = npm_root()
    result = summarize(["lib"], root, max_tokens=800)
    assert estimate_tokens(result.text) <= 800
    assert result.shown > 5
    assert all(p.startswith("lib/") and p.endswith(".js") for p in result)
    assert re.search(
        r"^│(?:export )?(?:class \w+|const \w+ = |function \w+|module\.exports)", result.text, re.MULTILINE
    )
    again = summarize(["lib"], root, max_tokens=800)
    assert again.text == result.text


@pytest.mark.skipif(not git_available(), reason="git is not installed")
@needs_ast
def test_files_git_ignores_are_left_out(tmp_path: Path) -> None:
    if not no_git_above(tmp_path):
        pytest.skip("the temporary folder is inside a git work tree")
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "build").mkdir()
    (root / "src" / "app.py").write_text("def tracked_function():\n    pass\n")
    (root / "src" / "new.py").write_text("def untracked_function():\n    pass\n")
    (root / "src" / "gen_out.py").write_text("def generated_function():\n    pass\n")
    (root / "build" / "lib.py").write_text("def built_function():\n    pass\n")
    (root / ".gitignore").write_text("build/\n*_out.py\n")
    git(root, "init", "-q")
    git(root, "add", "src/app.py", ".gitignore")
    git(root, "commit", "-q", "-m", "start")
    result = summarize(None, root, None)
    assert sorted(result) == ["src/app.py", "src/new.py"]
    assert "generated_function" not in result.text and "built_function" not in result.text
    # An ignored file named explicitly is still ignored; a subfolder of a work tree works too.
    assert list(summarize(["build"], root, None)) == []
    assert list(summarize(None, root / "src", None)) == ["app.py", "new.py"]


@needs_ast
def test_outside_git_hidden_folders_and_node_modules_are_left_out(tmp_path: Path) -> None:
    if not no_git_above(tmp_path):
        pytest.skip("the temporary folder is inside a git work tree")
    root = tmp_path / "plain"
    for rel in ("a.py", ".hidden/b.py", "node_modules/x/c.js", "pkg/d.js", "pkg/__pycache__/e.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("function f() {}\n" if rel.endswith(".js") else "def f():\n    pass\n")
    assert sorted(summarize(None, root, None)) == ["a.py", "pkg/d.js"]


@needs_ast
def test_exclude_and_bad_paths(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "a.py").write_text("def a_function():\n    pass\n")
    (root / "b.py").write_text("def b_function():\n    pass\n")
    assert list(summarize(None, root, None, exclude=["a.py"])) == ["b.py"]
    with pytest.raises(ValueError):
        summarize(["/"], root, None)
    with pytest.raises(FileNotFoundError):
        summarize(["nope"], root, None)


@needs_ast
def test_large_minified_and_binary_files_are_left_out(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "min.js").write_text("function a(){return 1};" * 2000)
    (root / "bin.py").write_bytes(b"def f():\0\n")
    (root / "ok.py").write_text("def fine_function():\n    pass\n")
    result = summarize(None, root, None)
    assert list(result) == ["ok.py"]
    assert any("minified" in n for n in result.notes) and any("binary" in n for n in result.notes)


def test_without_the_extra_a_line_pattern_outline_with_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tree_sitter_language_pack", None)
    monkeypatch.setattr(syntax_tree, "_parsers", {})
    root = tmp_path / "p"
    root.mkdir()
    (root / "m.py").write_text("class Store:\n    def fetch_record(self, key):\n        return key\n")
    (root / "use.py").write_text("Store().fetch_record(1)\n")
    result = summarize(None, root, None)
    assert any("not installed" in n and "line pattern" in n for n in result.notes)
    assert result.text == "m.py:\n│class Store:\n│    def fetch_record(self, key):\n⋮"


# -- in the messages ---------------------------------------------------------------------------------------------


@needs_ast
def test_build_messages_carries_the_summary_where_seed_002_puts_it(stdlib_tree: Path) -> None:
    summary = editblocks.summarize(None, stdlib_tree, 400)
    messages = editblocks.build_messages("diff", "Add a method", files=[("new.py", "x = 1\n")], summaries=summary)
    texts = [m["content"] for m in messages]
    at = next(i for i, t in enumerate(texts) if summary.text in t)
    assert texts[at].endswith("\n\n" + summary.text)
    assert messages[at]["role"] == "user" and messages[at + 1]["role"] == "assistant"
    # After the example conversation, before the files to edit and the request (seed 002's order).
    files_at = next(i for i, t in enumerate(texts) if "new.py" in t and "x = 1" in t)
    assert 2 < at < files_at < len(messages) - 1
    assert "⋮" in texts[at] and "│" in texts[at]


# -- the command -----------------------------------------------------------------------------------------------------


@needs_ast
def test_cli_summary(stdlib_tree: Path) -> None:
    code, out, err = run("summary", "--root", str(stdlib_tree), "--max-tokens", "300")
    assert code == 0, err
    assert estimate_tokens(out.rstrip("\n")) <= 300
    assert "cut to the budget" in err
    code, out, _ = run("summary", "json", "--root", str(stdlib_tree), "--max-tokens", "0", "--json")
    data = json.loads(out)
    assert set(data["files"]) == {"json/__init__.py", "json/decoder.py", "json/encoder.py", "json/scanner.py"}
    assert data["shown"] == data["definitions"]


def test_cli_summary_usage_errors(tmp_path: Path) -> None:
    assert run("summary", "--root", str(tmp_path / "missing"))[0] == 2
    assert run("summary", "nope", "--root", str(tmp_path))[0] == 2


def test_the_test_extra_installs_the_ast_extra() -> None:
    import tomllib

    data = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    extras = data["project"]["optional-dependencies"]
    assert "editblocks[ast]" in extras["test"]
    pack = next(d for d in extras["ast"] if d.startswith("tree-sitter-language-pack"))
    assert "<1" in pack  # later releases fetch grammars from the network at run time
