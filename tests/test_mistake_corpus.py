"""A small fixed slice of the mistake corpus (``benchmarks/mistakes.py``): replies made from real
standard library files, each with one known model mistake, must never produce a wrong edit, in
any of the formats the corpus writes (SEARCH/REPLACE, apply_patch, unified diff, Cline).

The generator lives in ``benchmarks/`` next to the benchmark that runs the full corpus; it is
loaded here from its file, so neither folder has to be a package on ``sys.path``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

GENERATOR = Path(__file__).resolve().parent.parent / "benchmarks" / "mistakes.py"
SEED = 0
"""The benchmark's default seed (not chosen for its outcome)."""
PER_CATEGORY = 5


def _load() -> ModuleType:
    if not GENERATOR.is_file():
        pytest.skip("benchmarks/mistakes.py is not part of this installation")
    name = "editblocks_mistake_corpus"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, GENERATOR)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the class is built
        spec.loader.exec_module(module)
    return module


FORMATS = ("diff", "patch", "udiff", "cline")


@pytest.fixture(scope="module", params=FORMATS)
def outcomes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> list:
    corpus = _load()
    if not any(s.python for s in corpus.load_sources()):
        pytest.skip("no standard library sources on this machine")
    assert set(corpus.FORMATS) == set(FORMATS)
    cases = corpus.generate(SEED, PER_CATEGORY, format=request.param)
    # Every apply syncs its writes to disk; a memory-backed folder keeps the slice fast.
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        with tempfile.TemporaryDirectory(prefix="mistakes-", dir=shm) as tmp:
            return [corpus.run_case(case, Path(tmp)) for case in cases]
    work = tmp_path_factory.mktemp("mistakes")
    return [corpus.run_case(case, work) for case in cases]


def _describe(o) -> str:
    results = "; ".join(f"{s} via {st}: {r}" for s, st, r in [*o.results, *o.second])
    return f"{o.case.name} ({o.case.variant}, {o.case.path}): {o.detail} [{results}]\n{o.case.reply}"


def test_every_category_is_generated(outcomes: list) -> None:
    corpus = _load()
    counts = Counter(o.case.category for o in outcomes)
    fmt = outcomes[0].case.format
    expected = {cat: PER_CATEGORY for cat in corpus.CATEGORIES if fmt in corpus.ONLY_IN.get(cat, {fmt})}
    assert counts == expected and "misremembered-changed" in expected


def test_no_wrong_edit(outcomes: list) -> None:
    bad = [o for o in outcomes if o.verdict in ("wrong", "error")]
    assert not bad, "wrong edits:\n\n" + "\n\n".join(_describe(o) for o in bad)


def test_hallucinated_and_ambiguous_are_refused(outcomes: list) -> None:
    corpus = _load()
    for o in outcomes:
        if o.case.category in corpus.REFUSE_CATEGORIES:
            assert o.verdict == "refused", _describe(o)


def test_correct_replies_apply_exactly(outcomes: list) -> None:
    """The control: a correct reply applies byte for byte (guards the generator itself)."""
    for o in outcomes:
        if o.case.category in ("none", "decorated-path", "marker-length", "no-fences", "crlf"):
            assert o.verdict == "exact", _describe(o)


def test_truncated_block_is_reported_not_applied(outcomes: list) -> None:
    for o in outcomes:
        if o.case.category == "truncated":
            assert o.verdict == "exact", _describe(o)
            assert o.warnings, _describe(o)
