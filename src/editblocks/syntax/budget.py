"""The token budget of summaries: how many tokens by default, and how a token is counted."""

from __future__ import annotations

DEFAULT_MAX_TOKENS = 1024
"""The default budget of a repository summary."""
CHARS_PER_TOKEN = 4
"""A token is counted as this many characters."""
