"""The package's modules import each other without circles, counting imports inside functions
(only ``if TYPE_CHECKING:`` imports, which never run, are left out)."""

from __future__ import annotations

import ast
from pathlib import Path

import editblocks

PACKAGE = Path(editblocks.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        if "demo" in rel.parts:
            continue
        name = ".".join(rel.parts)
        found[name.removesuffix(".__init__")] = path
    return found


def _imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    out: set[str] = set()

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:
            if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
                for child in node.orelse:
                    self.visit(child)
                return
            self.generic_visit(node)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            if node.module and node.module.startswith("editblocks"):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    out.add(full if full in modules else node.module)

        def visit_Import(self, node: ast.Import) -> None:
            out.update(a.name for a in node.names if a.name.startswith("editblocks"))

    Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in out if m in modules and m != name}


def _circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[frozenset[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    out.append(frozenset(group))
    return out


def test_no_import_circles() -> None:
    modules = _modules()
    graph = {name: _imports(path, name, modules) for name, path in modules.items()}
    # The package's own __init__ imports its names lazily (module __getattr__): not an edge.
    graph["editblocks"] = set()
    assert not _circles(graph), [sorted(c) for c in _circles(graph)]


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset({"a", "b", "c"})]
