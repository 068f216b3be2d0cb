"""Defaults for the command line from the project's configuration and the environment.

``[tool.editblocks]`` in the project's ``pyproject.toml`` or a ``.editblocks.toml`` (found in the
current folder or the nearest parent holding one) sets defaults; ``EDITBLOCKS_*`` variables
override them, and options given on the command line override both.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from editblocks.errors import UsageError

KEYS = ("root", "format", "match", "atomic", "continue-after-failure", "model", "base-url")
"""The settings, as written in the files (``EDITBLOCKS_`` + upper case with ``_`` in the environment)."""

MATCH_LEVELS = ("exact", "tolerant", "fuzzy", "ast")
BOOLEANS = ("atomic", "continue-after-failure")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")

# Each setting's option (parameter name) in the commands that take it.
_PARAMS: dict[str, dict[str, str]] = {
    "apply": {
        "root": "root",
        "format": "fmt",
        "match": "match_level",
        "atomic": "atomic",
        "continue-after-failure": "continue_after_failure",
    },
    "check": {"format": "fmt"},
    "serve": {"root": "root", "format": "fmt", "match": "match_level"},
    "undo": {"root": "root"},
    "run": {"root": "root", "format": "fmt", "match": "match_level", "model": "model", "base-url": "base_url"},
    "prompt": {"root": "root", "format": "fmt"},
    "mcp": {"root": "root"},
}


def env_name(key: str) -> str:
    return "EDITBLOCKS_" + key.upper().replace("-", "_")


@dataclass
class Settings:
    """The effective settings and where each came from (a file's path, or a variable's name)."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def default_map(self) -> dict[str, dict[str, Any]]:
        """Click's ``default_map``: each command's option defaults."""
        return {
            command: {param: self.values[key] for key, param in params.items() if key in self.values}
            for command, params in _PARAMS.items()
        }


def find_files(start: Path | None = None) -> list[Path]:
    """The configuration files that apply: in the nearest folder (from ``start`` up) that has a
    ``.editblocks.toml`` or a ``pyproject.toml`` with ``[tool.editblocks]``; ``pyproject.toml`` first."""
    here = (start or Path.cwd()).resolve()
    for folder in [here, *here.parents]:
        found = []
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and _mentions_editblocks(pyproject) and "editblocks" in _read(pyproject).get("tool", {}):
            found.append(pyproject)
        if (folder / ".editblocks.toml").is_file():
            found.append(folder / ".editblocks.toml")
        if found:
            return found
    return []


def _mentions_editblocks(path: Path) -> bool:
    """Whether the file's text names editblocks at all (a file that does not is not parsed)."""
    try:
        return b"editblocks" in path.read_bytes()
    except OSError:
        return True  # read again by _read, which says why it cannot be


def _read(path: Path) -> dict[str, Any]:
    import tomllib  # loaded only where a settings file is there

    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read the configuration in {path}: {exc}") from None


def _check(key: str, value: Any, where: str) -> Any:
    if key in BOOLEANS:
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        if not isinstance(value, bool):
            raise UsageError(f"{key} in {where} must be true or false, not {value!r}")
        return value
    if not isinstance(value, str):
        raise UsageError(f"{key} in {where} must be a string, not {value!r}")
    if key == "format":
        from editblocks.formats import FORMATS

        if value not in FORMATS:
            raise UsageError(f"format in {where} is {value!r}; use one of {', '.join(FORMATS)}")
    if key == "match" and value not in MATCH_LEVELS:
        raise UsageError(f"match in {where} is {value!r}; use one of {', '.join(MATCH_LEVELS)}")
    return value


def load(start: Path | None = None, environ: dict[str, str] | None = None) -> Settings:
    """The settings from the configuration files, then the environment."""
    settings = Settings()
    for path in find_files(start):
        data = _read(path)
        table = data.get("tool", {}).get("editblocks", {}) if path.name == "pyproject.toml" else data
        if not isinstance(table, dict):
            raise UsageError(f"[tool.editblocks] in {path} must be a table")
        for key, value in table.items():
            if key not in KEYS:
                raise UsageError(f"unknown setting {key!r} in {path}; the settings are {', '.join(KEYS)}")
            value = _check(key, value, str(path))
            if key == "root":
                value = str((path.parent / value).resolve()) if not Path(value).is_absolute() else value
            settings.values[key] = value
            settings.sources[key] = str(path)
    env = os.environ if environ is None else environ
    for key in KEYS:
        name = env_name(key)
        if env.get(name):
            settings.values[key] = _check(key, env[name], name)
            settings.sources[key] = name
    return settings
