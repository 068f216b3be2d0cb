"""Fixtures shared by the test modules."""

from __future__ import annotations

from pathlib import Path

import pytest

# Scenario folders hold project files (some named test_*.py) that are data, not tests.
collect_ignore = ["scenarios"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty project folder with a sibling folder to detect writes outside it."""
    r = tmp_path / "outer" / "project"
    r.mkdir(parents=True)
    return r
