"""Parsing with tree-sitter, and the definitions (classes, functions, methods, ...) of a tree.

tree-sitter and the grammar pack are imported on first use, so the rest of editblocks works
without the ``ast`` extra; without it every entry point here raises :class:`SyntaxUnavailable`
with a message saying so.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from editblocks.syntax.languages import CLASS_KINDS, SPECS, Spec

INSTALL_HINT = "pip install 'editblocks[ast]'"
MAX_ANALYZED_CHARS = 1_000_000
"""Larger texts are not parsed for context, scopes or the ast match level (about a third of a
second of parsing at this size); they fall back to plain text and line patterns."""
HEADER_MAX = 10
"""Most lines of a definition's header (its signature) that are shown."""

_BODY_TYPES = frozenset(
    {
        "block",
        "class_body",
        "statement_block",
        "declaration_list",
        "field_declaration_list",
        "compound_statement",
        "interface_body",
        "enum_body",
        "enum_variant_list",
        "object_type",
        "keyframe_block_list",
        "enum_body_declarations",
    }
)
_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "generator_function_expression"}
)
_CLASS_VALUES = frozenset({"class", "class_expression"})
_DECLARATOR_PATH = frozenset(
    {
        "pointer_declarator",
        "reference_declarator",
        "function_declarator",
        "parenthesized_declarator",
        "array_declarator",
        "attributed_declarator",
    }
)
_SPACES = re.compile(r"\s+")
_METHOD_PARENTS = CLASS_KINDS - {"namespace", "module"}
_LEAF_DEFINITIONS = frozenset({"type_declaration", "type_definition"})
"""Definitions named by a child that would otherwise be found a second time."""


class SyntaxUnavailable(Exception):
    """No syntax tree can be had for this text: the extra is missing, or the language is unsupported."""


_parsers: dict[str, Any] = {}


def missing() -> str | None:
    """Why syntax support is not installed, or None when it is."""
    try:
        import tree_sitter  # noqa: F401
        import tree_sitter_language_pack  # noqa: F401
    except ImportError as exc:
        return f"syntax support is not installed ({exc.name} is missing; {INSTALL_HINT})"
    return None


def available() -> bool:
    """True when tree-sitter and the grammar pack are installed."""
    return missing() is None


def _parser(language: str) -> Any:
    spec = SPECS.get(language)
    if spec is None:
        raise SyntaxUnavailable(f"no syntax support for {language}")
    return grammar_parser(spec.grammar)


def grammar_parser(grammar: str) -> Any:
    """A tree-sitter parser for the grammar pack's ``grammar`` (cached); raises
    :class:`SyntaxUnavailable` without the ``ast`` extra or when the grammar cannot be loaded."""
    parser = _parsers.get(grammar)
    if parser is not None:
        return parser
    problem = missing()
    if problem:
        raise SyntaxUnavailable(problem)
    from importlib.metadata import PackageNotFoundError, version

    import tree_sitter_language_pack as pack

    try:
        major = int(version("tree-sitter-language-pack").split(".")[0])
    except (PackageNotFoundError, ValueError):
        major = 0
    if major >= 1:
        # Releases from 1.0 on fetch grammars from the network on first use; only use a
        # grammar that is already there.
        try:
            ready = grammar in set(pack.downloaded_languages())  # type: ignore[attr-defined]
        except Exception:
            ready = False
        if not ready:
            raise SyntaxUnavailable(
                f"the installed tree-sitter-language-pack fetches grammars from the network; install "
                f"'tree-sitter-language-pack<1', whose wheels hold them ({INSTALL_HINT})"
            )
    try:
        parser = pack.get_parser(grammar)  # type: ignore[arg-type]
    except Exception as exc:  # a grammar the pack cannot load
        raise SyntaxUnavailable(f"the {grammar} grammar could not be loaded: {exc}") from None
    _parsers[grammar] = parser
    return parser


def parse(text: str, language: str) -> Any:
    """The tree-sitter tree of ``text``; raises :class:`SyntaxUnavailable`."""
    return _parser(language).parse(text.encode("utf-8", "surrogatepass"))


@dataclass(eq=False)
class Definition:
    """A definition in a syntax tree. Rows are 0-based line indexes, inclusive."""

    name: str
    kind: str
    """``class``, ``function``, ``method``, ``struct``, ``interface``, ``rule``, ``key``, ..."""
    qualname: str
    """The name with the enclosing definitions' names: ``Parser.feed``, ``scripts.test``."""
    node_type: str
    first: int
    last: int
    outer_first: int
    """First row including decorators, ``export``, ``template <...>`` and attached attributes."""
    outer_last: int
    header: tuple[int, int]
    """Rows of the signature: from the definition's start to just before its body."""
    parent: Definition | None = None
    wrapper: str | None = None
    """Node type of the wrapping node (``decorated_definition``, ``export_statement``, ...)."""
    qualified: str | None = None
    """The qualifier written in the definition itself: a Go receiver, ``Parser::`` in C++."""
    span: tuple[int, int] = (0, 0)
    """Byte offsets of the definition node (without wrappers)."""
    outer_span: tuple[int, int] = (0, 0)
    broken: bool = False
    """The definition's subtree holds a syntax error."""
    children: list[Definition] = field(default_factory=list)

    @property
    def lines(self) -> tuple[int, int]:
        """First and last line, 1-based, including decorators and wrappers."""
        return self.outer_first + 1, self.outer_last + 1


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def last_row(node: Any) -> int:
    """The last line of ``node`` (a node that ends with its line break ends on the line before)."""
    end_row, end_col = node.end_point
    if end_col == 0 and end_row > node.start_point[0]:
        return int(end_row) - 1
    return int(end_row)


def _declarator_name(node: Any) -> tuple[str, str | None] | None:
    """(name, qualifier) of a C/C++ declarator chain, e.g. ``Parser::flush`` → (flush, Parser)."""
    seen = 0
    while node is not None and seen < 12:
        seen += 1
        t = node.type
        if t in (
            "identifier",
            "field_identifier",
            "type_identifier",
            "destructor_name",
            "operator_name",
            "primitive_type",
        ):
            return _text(node), None
        if t == "qualified_identifier":
            name = node.child_by_field_name("name")
            scope = node.child_by_field_name("scope")
            inner = _declarator_name(name) if name is not None and name.type == "qualified_identifier" else None
            if inner is not None:
                return inner[0], "::".join(p for p in (_text(scope), inner[1]) if p)
            return _text(name), _text(scope) or None
        if t in _DECLARATOR_PATH:
            node = node.child_by_field_name("declarator")
            continue
        return None
    return None


def _has_function_declarator(node: Any) -> bool:
    d = node.child_by_field_name("declarator")
    for _ in range(12):
        if d is None:
            return False
        if d.type == "function_declarator":
            return True
        if d.type not in _DECLARATOR_PATH:
            return False
        d = d.child_by_field_name("declarator")
    return False


def _base_type(node: Any) -> str:
    """``Parser`` of ``*Parser``, ``Parser[T]``, ``Parser<T>``, ``crate::Parser<T>``."""
    text = _text(node)
    text = re.split(r"[<\[]", text, maxsplit=1)[0]
    return text.lstrip("*&").replace("mut ", "").strip().rsplit("::", 1)[-1]


def _prelude(node: Any, stop: Any) -> str:
    """The text of ``node`` before its child ``stop``, on one line."""
    if stop is None:
        raw = _text(node)
    else:
        raw = node.text[: stop.start_byte - node.start_byte].decode("utf-8", "replace")
    return _SPACES.sub(" ", raw).strip()[:80]


def _child_of_type(node: Any, types: frozenset[str] | set[str]) -> Any:
    for child in node.named_children:
        if child.type in types:
            return child
    return None


def _html_name(node: Any) -> str:
    tag = _child_of_type(node, {"start_tag", "self_closing_tag"})
    if tag is None:
        return str(node.type)
    name = _text(_child_of_type(tag, {"tag_name"})) or "?"
    for attr in tag.named_children:
        if attr.type != "attribute":
            continue
        key = _text(_child_of_type(attr, {"attribute_name"})).lower()
        value = _child_of_type(attr, {"quoted_attribute_value", "attribute_value"})
        value_text = _text(value).strip("\"'") if value is not None else ""
        if key == "id" and value_text:
            name += f"#{value_text.split()[0]}"
        elif key == "class" and value_text:
            name += f".{value_text.split()[0]}"
    return name


def _key_text(node: Any) -> str:
    text = _text(node).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    return text


def recognize(node: Any, spec: Spec) -> tuple[str, str, str | None] | None:
    """(name, kind, qualifier written in it) when ``node`` is a definition, else None."""
    t = node.type
    kind = spec.definitions.get(t)
    if kind is None:
        return None
    lang = spec.grammar
    if t in ("lexical_declaration", "variable_declaration"):
        decls = [c for c in node.named_children if c.type == "variable_declarator"]
        if len(decls) != 1:
            return None
        value = decls[0].child_by_field_name("value")
        if value is None or (value.type not in _FUNCTION_VALUES and value.type not in _CLASS_VALUES):
            return None
        name = decls[0].child_by_field_name("name")
        if name is None or name.type != "identifier":
            return None
        return _text(name), "class" if value.type in _CLASS_VALUES else "function", None
    if t == "assignment_expression":
        right = node.child_by_field_name("right")
        left = node.child_by_field_name("left")
        if right is None or left is None or right.type not in _FUNCTION_VALUES | _CLASS_VALUES:
            return None
        kind = "class" if right.type in _CLASS_VALUES else "function"
        if left.type == "identifier":
            return _text(left), kind, None
        if left.type != "member_expression":
            return None
        prop = left.child_by_field_name("property")
        obj = _text(left.child_by_field_name("object"))
        if prop is None:
            return None
        if obj.endswith(".prototype"):
            return _text(prop), "method", obj[: -len(".prototype")]
        if obj in ("module.exports", "exports", "this", "module"):
            return _text(prop), kind, None
        return _text(prop), kind, obj or None
    if lang == "go":
        if t == "type_declaration":
            specs = [c for c in node.named_children if c.type in ("type_spec", "type_alias")]
            if len(specs) != 1:
                return None
            return recognize(specs[0], spec)
        if t in ("type_spec", "type_alias"):
            name = node.child_by_field_name("name")
            typ = node.child_by_field_name("type")
            kind = {"struct_type": "struct", "interface_type": "interface"}.get(
                typ.type if typ is not None else "", "type"
            )
            return (_text(name), kind, None) if name is not None else None
        if t == "method_declaration":
            receiver = node.child_by_field_name("receiver")
            rtype = None
            if receiver is not None:
                param = _child_of_type(receiver, {"parameter_declaration"})
                if param is not None:
                    rtype = param.child_by_field_name("type")
            name = node.child_by_field_name("name")
            return (_text(name), kind, _base_type(rtype) if rtype is not None else None) if name is not None else None
    if lang == "rust" and t == "impl_item":
        typ = node.child_by_field_name("type")
        return (_base_type(typ), kind, None) if typ is not None else None
    if lang in ("c", "cpp"):
        if t in ("function_definition", "declaration", "field_declaration"):
            if t != "function_definition" and not _has_function_declarator(node):
                return None
            named = _declarator_name(node.child_by_field_name("declarator"))
            if named is None:
                return None
            return named[0], kind, named[1]
        if t in ("struct_specifier", "union_specifier", "enum_specifier", "class_specifier"):
            name = node.child_by_field_name("name")
            if node.child_by_field_name("body") is None or name is None:
                return None
            return _text(name), kind, None
        if t == "type_definition":
            decl = node.child_by_field_name("declarator")
            typ = node.child_by_field_name("type")
            named = _declarator_name(decl) if decl is not None else None
            if named is None:
                return None
            if typ is not None and typ.child_by_field_name("body") is not None:
                kind = {
                    "struct_specifier": "struct",
                    "union_specifier": "union",
                    "enum_specifier": "enum",
                    "class_specifier": "class",
                }.get(typ.type, "type")
            return named[0], kind, None
        if t == "namespace_definition":
            name = node.child_by_field_name("name")
            return (_text(name) if name is not None else "(anonymous)"), kind, None
    if lang == "css":
        if t == "keyframe_block":
            first = node.named_children[0] if node.named_child_count else None
            return (_text(first) or "?"), kind, None
        return _prelude(node, _child_of_type(node, {"block", "keyframe_block_list"})) or t, kind, None
    if lang == "html":
        return _html_name(node), kind, None
    if lang in ("json", "yaml"):
        key = node.child_by_field_name("key")
        if key is None:
            return None
        return _key_text(key), kind, None
    if t == "export_statement":
        return None
    name = node.child_by_field_name("name")
    if name is None:
        return None
    return _text(name), kind, None


def _unwrap(node: Any, spec: Spec) -> Any:
    """The definition a wrapper node holds, or None."""
    t = node.type
    if t == "decorated_definition":
        return node.child_by_field_name("definition")
    if t == "export_statement":
        inner = node.child_by_field_name("declaration")
        if inner is not None:
            return inner
    candidates = [
        c
        for c in node.named_children
        if c.type not in spec.comments and c.type not in ("decorator", "template_parameter_list")
    ]
    if t == "template_declaration":
        return candidates[-1] if candidates else None
    if len(candidates) == 1:
        inner = candidates[0]
        if inner.type in spec.wrappers:
            return _unwrap(inner, spec)
        return inner
    return None


def _body(node: Any, spec: Spec) -> Any:
    body = node.child_by_field_name("body")
    if body is not None:
        return body
    t = node.type
    if t in ("lexical_declaration", "variable_declaration"):
        decl = _child_of_type(node, {"variable_declarator"})
        value = decl.child_by_field_name("value") if decl is not None else None
        return _body(value, spec) if value is not None else None
    if t == "assignment_expression":
        right = node.child_by_field_name("right")
        return _body(right, spec) if right is not None else None
    if t == "type_definition":
        typ = node.child_by_field_name("type")
        return typ.child_by_field_name("body") if typ is not None else None
    if spec.structural and spec.grammar in ("json", "yaml"):
        return node.child_by_field_name("value")
    return _child_of_type(node, _BODY_TYPES)


def _header(node: Any, spec: Spec, lines: list[str]) -> tuple[int, int]:
    start = node.start_point[0]
    last = last_row(node)
    if spec.grammar == "html":
        tag = _child_of_type(node, {"start_tag", "self_closing_tag"})
        end = last_row(tag) if tag is not None else start
        return start, min(end, start + HEADER_MAX - 1)
    body = _body(node, spec)
    if body is not None:
        row, col = body.start_point
        # The body's first line belongs to the header when the signature ends on it (``f() {``).
        before = lines[row].encode("utf-8", "surrogatepass")[:col] if row < len(lines) else b""
        end = row if before.strip() or row == start else row - 1
    else:
        end = last
    name = node.child_by_field_name("name")
    name_row = name.start_point[0] if name is not None else start
    # Annotations written inside the node (Java, TypeScript) are not part of the signature.
    while start < min(end, name_row) and start < len(lines) and lines[start].lstrip().startswith("@"):
        start += 1
    return start, max(start, min(end, start + HEADER_MAX - 1))


def definitions(tree: Any, language: str, text: str | None = None, *, deep: bool = True) -> list[Definition]:
    """The definitions of ``tree`` in file order (a parent before its members).

    ``deep`` finds definitions anywhere (functions inside functions, keys of nested objects);
    otherwise only top-level ones and the members of classes, namespaces and the like, which
    is what a summary shows and much faster on large files.
    """
    spec = SPECS[language]
    lines = (text if text is not None else tree.root_node.text.decode("utf-8", "replace")).split("\n")
    out: list[Definition] = []

    def visit(node: Any, parent: Definition | None) -> None:
        pending: Any = None
        for child in node.named_children:
            t = child.type
            if t in spec.attached:
                if pending is None:
                    pending = child
                continue
            inner, wrapper = child, None
            if t in spec.wrappers:
                unwrapped = _unwrap(child, spec)
                if unwrapped is not None and recognize(unwrapped, spec) is not None:
                    inner, wrapper = unwrapped, child
            found = recognize(inner, spec)
            if found is not None:
                name, kind, qualifier = found
                if kind == "function" and parent is not None and parent.kind in _METHOD_PARENTS:
                    kind = "method"
                base = parent.qualname if parent is not None else ""
                if qualifier is not None:
                    base = f"{base}{spec.separator}{qualifier}" if base else qualifier
                outer = wrapper if wrapper is not None else inner
                outer_first = pending.start_point[0] if pending is not None else outer.start_point[0]
                d = Definition(
                    name=name,
                    kind=kind,
                    qualname=f"{base}{spec.separator}{name}" if base else name,
                    node_type=inner.type,
                    first=inner.start_point[0],
                    last=last_row(inner),
                    outer_first=outer_first,
                    outer_last=last_row(outer),
                    header=_header(inner, spec, lines),
                    parent=parent,
                    wrapper=wrapper.type if wrapper is not None else None,
                    qualified=qualifier,
                    span=(inner.start_byte, inner.end_byte),
                    outer_span=(pending.start_byte if pending is not None else outer.start_byte, outer.end_byte),
                    broken=bool(outer.has_error),
                )
                out.append(d)
                if parent is not None:
                    parent.children.append(d)
                if (deep or kind in CLASS_KINDS or spec.structural) and inner.type not in _LEAF_DEFINITIONS:
                    visit(inner, d)
            elif deep or t in spec.containers:
                if not (spec.structural and not deep and child.start_point[0] == last_row(child)):
                    visit(child, parent)
            pending = None

    visit(tree.root_node, None)
    return out


@dataclass
class Analysis:
    """A text's language, tree and definitions."""

    text: str
    language: str
    tree: Any
    definitions: list[Definition]

    @property
    def has_errors(self) -> bool:
        """Whether the tree holds a syntax error."""
        return bool(self.tree.root_node.has_error)


_last = threading.local()
"""The last text analysed, per thread (each apply runs in one thread)."""


def analyze(text: str, language: str) -> Analysis:
    """Parse ``text`` and find all its definitions (the last text analysed is remembered).

    Raises :class:`SyntaxUnavailable` for a text over :data:`MAX_ANALYZED_CHARS`.
    """
    last: Analysis | None = getattr(_last, "analysis", None)
    if last is not None and last.language == language and (last.text is text or last.text == text):
        return last
    if len(text) > MAX_ANALYZED_CHARS:
        raise SyntaxUnavailable(
            f"the file is larger than {MAX_ANALYZED_CHARS // 1_000_000} MB, too large to read its syntax quickly"
        )
    tree = parse(text, language)
    result = Analysis(text, language, tree, definitions(tree, language, text))
    _last.analysis = result
    return result


def innermost(defs: list[Definition], first: int, last: int) -> Definition | None:
    """The smallest definition whose lines (decorators included) hold rows ``first``..``last``."""
    best: Definition | None = None
    for d in defs:
        if d.outer_first <= first and last <= d.outer_last:
            if best is None or (d.outer_last - d.outer_first) <= (best.outer_last - best.outer_first):
                best = d
    return best
