"""Which language a file is written in, and what its syntax tree's definitions look like.

Plain data: importing this module needs no parser. The node type names are those of the
tree-sitter grammars in ``tree-sitter-language-pack``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
    ".inl": "cpp",
    ".css": "css",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".json": "json",
    ".jsonc": "json",
    ".json5": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
}
"""File name extension (lower case) → language."""

_SHEBANG = re.compile(r"^#!\S*?(?:/env(?:\s+-\S+)*)?\s*\S*?(python|node|deno|bun)[\d.]*\b")
_SHEBANG_LANGUAGES = {"python": "python", "node": "javascript", "deno": "typescript", "bun": "javascript"}
_CPP_IN_HEADER = re.compile(
    r"^\s*(?:class\s+\w+\s*[:{]|namespace\s+\w*\s*\{|template\s*<|using\s+namespace\b)", re.MULTILINE
)


def language_for(path: str, text: str | None = None) -> str | None:
    """The language of file ``path`` by its extension (``"python"``, ``"tsx"``, ...), or None.

    With ``text``: a file without a known extension is recognised by its ``#!`` line, and a
    ``.h`` header holding classes, namespaces or templates is read as C++.
    """
    name = PurePosixPath(path.replace("\\", "/")).name.lower()
    suffix = PurePosixPath(name).suffix
    language = EXTENSIONS.get(suffix)
    if language == "c" and suffix == ".h" and text and _CPP_IN_HEADER.search(text[:200_000]):
        return "cpp"
    if language is None and text and not suffix:
        m = _SHEBANG.match(text[:200])
        if m:
            return _SHEBANG_LANGUAGES[m.group(1)]
    return language


@dataclass(frozen=True)
class Spec:
    """How a language's syntax tree shows its definitions.

    ``definitions`` maps a node type to its kind. Some node types are definitions only in
    some shapes (a ``const`` bound to an arrow function, a ``type`` declaration with one
    type); :mod:`.tree` decides those. ``wrappers`` hold one definition and belong to it
    (decorators, ``export``, ``template <...>``). ``containers`` are walked through to find
    the members of a class or namespace. ``attached`` are siblings that belong to the
    definition after them (Rust's ``#[...]`` attributes).
    """

    grammar: str
    definitions: dict[str, str]
    wrappers: frozenset[str] = frozenset()
    containers: frozenset[str] = frozenset()
    attached: frozenset[str] = frozenset()
    separator: str = "."
    structural: bool = False
    """Markup and data (CSS, HTML, JSON, YAML): the "definitions" are rules, elements and keys."""
    member_wrapper: tuple[str, str] | None = None
    """Text around a lone class member so that it parses as one (``class _ {`` ... ``}``)."""
    comments: frozenset[str] = frozenset({"comment"})


CLASS_KINDS = frozenset(
    {"class", "interface", "struct", "union", "enum", "trait", "impl", "namespace", "module", "record"}
)
"""Kinds whose members are methods, and whose bodies a summary walks into."""

CODE_KINDS = CLASS_KINDS | {"function", "method", "constructor", "type"}
"""Kinds the syntax fallback of the matching chain replaces as a whole."""

_JS_DEFS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
    "lexical_declaration": "function",
    "variable_declaration": "function",
    "assignment_expression": "function",
}
_TS_DEFS = {
    **_JS_DEFS,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "internal_module": "namespace",
    "module": "module",
    "function_signature": "function",
    "method_signature": "method",
    "abstract_method_signature": "method",
}
_JS_CONTAINERS = frozenset({"class_body", "program"})
_TS_CONTAINERS = _JS_CONTAINERS | {"statement_block", "interface_body", "object_type", "ambient_declaration"}
_C_DEFS = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "union",
    "enum_specifier": "enum",
    "type_definition": "type",
    "declaration": "declaration",
    "preproc_function_def": "macro",
}
_C_CONTAINERS = frozenset(
    {
        "translation_unit",
        "preproc_ifdef",
        "preproc_if",
        "preproc_else",
        "preproc_elif",
        "preproc_elifdef",
        "linkage_specification",
        "declaration_list",
    }
)

SPECS: dict[str, Spec] = {
    "python": Spec(
        "python",
        {"function_definition": "function", "class_definition": "class"},
        wrappers=frozenset({"decorated_definition"}),
        containers=frozenset({"module", "block"}),
    ),
    "javascript": Spec(
        "javascript",
        _JS_DEFS,
        wrappers=frozenset({"export_statement", "expression_statement"}),
        containers=_JS_CONTAINERS,
        member_wrapper=("class _ {\n", "\n}\n"),
    ),
    "typescript": Spec(
        "typescript",
        _TS_DEFS,
        wrappers=frozenset({"export_statement", "expression_statement", "ambient_declaration"}),
        containers=_TS_CONTAINERS,
        member_wrapper=("class _ {\n", "\n}\n"),
    ),
    "tsx": Spec(
        "tsx",
        _TS_DEFS,
        wrappers=frozenset({"export_statement", "expression_statement", "ambient_declaration"}),
        containers=_TS_CONTAINERS,
        member_wrapper=("class _ {\n", "\n}\n"),
    ),
    "go": Spec(
        "go",
        {
            "function_declaration": "function",
            "method_declaration": "method",
            "type_declaration": "type",
            "type_spec": "type",
            "type_alias": "type",
        },
        containers=frozenset({"source_file", "type_declaration"}),
    ),
    "rust": Spec(
        "rust",
        {
            "function_item": "function",
            "function_signature_item": "function",
            "struct_item": "struct",
            "union_item": "union",
            "enum_item": "enum",
            "trait_item": "trait",
            "impl_item": "impl",
            "mod_item": "module",
            "macro_definition": "macro",
            "type_item": "type",
        },
        containers=frozenset({"source_file", "declaration_list"}),
        attached=frozenset({"attribute_item"}),
        separator="::",
        comments=frozenset({"line_comment", "block_comment"}),
    ),
    "java": Spec(
        "java",
        {
            "class_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "record_declaration": "record",
            "annotation_type_declaration": "interface",
            "method_declaration": "method",
            "constructor_declaration": "constructor",
            "compact_constructor_declaration": "constructor",
        },
        containers=frozenset(
            {"program", "class_body", "interface_body", "enum_body", "enum_body_declarations", "annotation_type_body"}
        ),
        member_wrapper=("class _ {\n", "\n}\n"),
        comments=frozenset({"line_comment", "block_comment"}),
    ),
    "c": Spec("c", _C_DEFS, containers=_C_CONTAINERS),
    "cpp": Spec(
        "cpp",
        {
            **_C_DEFS,
            "class_specifier": "class",
            "namespace_definition": "namespace",
            "field_declaration": "declaration",
        },
        wrappers=frozenset({"template_declaration"}),
        containers=_C_CONTAINERS | {"field_declaration_list"},
        separator="::",
        member_wrapper=("class _ {\n", "\n};\n"),
    ),
    "css": Spec(
        "css",
        {
            "rule_set": "rule",
            "media_statement": "at-rule",
            "keyframes_statement": "at-rule",
            "supports_statement": "at-rule",
            "at_rule": "at-rule",
            "keyframe_block": "rule",
        },
        containers=frozenset({"stylesheet", "block", "keyframe_block_list"}),
        separator=" ",
        structural=True,
        comments=frozenset({"comment", "js_comment"}),
    ),
    "html": Spec(
        "html",
        {"element": "element", "script_element": "element", "style_element": "element"},
        containers=frozenset({"document", "fragment"}),
        separator=" > ",
        structural=True,
    ),
    "json": Spec(
        "json",
        {"pair": "key"},
        containers=frozenset({"document", "object", "array"}),
        structural=True,
    ),
    "yaml": Spec(
        "yaml",
        {"block_mapping_pair": "key", "flow_pair": "key"},
        containers=frozenset(
            {
                "stream",
                "document",
                "block_node",
                "flow_node",
                "block_mapping",
                "block_sequence",
                "block_sequence_item",
                "flow_mapping",
                "flow_sequence",
            }
        ),
        structural=True,
    ),
}

LANGUAGES: tuple[str, ...] = tuple(SPECS)
"""Every language with syntax support."""

CODE_LANGUAGES: tuple[str, ...] = tuple(name for name, spec in SPECS.items() if not spec.structural)
"""The languages whose definitions a repository summary lists."""

__all__ = ["CLASS_KINDS", "CODE_KINDS", "CODE_LANGUAGES", "EXTENSIONS", "LANGUAGES", "SPECS", "Spec", "language_for"]


DOCUMENT_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".org")
"""Prose documents: an elision comment inside one of their fenced code examples is the example's
content, not a line standing for left-out lines."""


def is_document(path: str) -> bool:
    """True for a Markdown, reStructuredText, AsciiDoc, Org or plain-text file."""
    return path.lower().endswith(DOCUMENT_SUFFIXES)
