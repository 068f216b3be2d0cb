"""The indexed lines of a file during an apply agree with plain text operations."""

from __future__ import annotations

import random

import pytest

from editblocks.pipeline import lines as lines_module
from editblocks.pipeline.lines import TEXT_SEARCHES, FileLines


def _find(model: list[str], needle: list[str]) -> list[int]:
    n = len(needle)
    return [i for i in range(len(model) - n + 1) if model[i : i + n] == needle] if n else []


@pytest.mark.parametrize("named", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_random_splices_agree_with_a_list(seed: int, named: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Searches, counts and splices agree with a plain list; with ``named``, the index counts
    only some lines at first (those the blocks name) and the others when asked for."""
    monkeypatch.setattr(lines_module, "CHUNK", 4)
    rng = random.Random(seed)
    words = ["a", "b", "c", "", "dd", "e e"]
    model = [rng.choice(words) + str(rng.randrange(8)) for _ in range(rng.randrange(0, 40))]
    doc = FileLines("".join(x + "\n" for x in model))
    if named:
        monkeypatch.setattr(lines_module, "NAMED_SHARE", 0)  # however few lines the file has
        doc.expect(TEXT_SEARCHES, [w + str(d) for w in words[::2] for d in range(0, 8, 2)])
    for _ in range(200):
        op = rng.randrange(5)
        if op == 4:
            doc.replace_text("".join(x + "\n" for x in model))  # not indexed again until searched twice
            continue
        if op == 0:
            a = rng.randrange(len(model) + 1)
            b = rng.randrange(a, min(len(model), a + 12) + 1)
            new = [rng.choice(words) + str(rng.randrange(8)) for _ in range(rng.randrange(0, 15))]
            doc.splice(a, b, new)
            model[a:b] = new
        elif op == 1 and model:
            a = rng.randrange(len(model))
            needle = model[a : a + rng.randrange(1, 4)]
            assert doc.find(needle) == _find(model, needle)
        elif op == 2:
            needle = [rng.choice(words) + str(rng.randrange(8)) for _ in range(rng.randrange(1, 3))]
            assert doc.find(needle) == _find(model, needle)
            assert doc.count(needle[0]) == model.count(needle[0])
        else:
            text = "".join(x + "\n" for x in model)
            assert doc.text == text
            assert len(doc) == len(text)
            k = rng.randrange(len(model) + 1)
            assert doc.offset(k) == len("".join(x + "\n" for x in model[:k]))
            assert doc.lines(k - 2, k + 3) == model[max(0, k - 2) : k + 3]
        assert doc.line_count == len(model)


def test_text_only_until_searched() -> None:
    doc = FileLines("x\ny\n")
    assert not doc.indexed and doc.text == "x\ny\n"
    assert doc.find(["y"]) == [1] and not doc.indexed  # the first searches scan the string
    assert doc.find(["x"]) == [0] and doc.find(["x"]) == [0] and not doc.indexed
    assert doc.find(["x", "y"]) == [0] and doc.find(["y", "x"]) == [] and not doc.indexed
    # two blocks applied again search the text four times (SEARCH and REPLACE each): not indexed yet
    assert doc.find(["x"]) == [0] and doc.indexed
    doc.replace_text("")
    assert doc.find(["y"]) == [] and doc.text == "" and doc.line_count == 0


def test_a_file_many_blocks_will_search_is_indexed_at_the_first_search() -> None:
    few, many = FileLines("x\ny\n"), FileLines("x\ny\n")
    few.expect(2)
    many.expect(3)
    assert few.find(["y"]) == many.find(["y"]) == [1]
    assert not few.indexed and many.indexed
    many.splice(0, 1, ["z"])
    assert many.text == "z\ny\n" and many.find(["z", "y"]) == [0]


def test_long_ranges_before_indexing() -> None:
    model = [f"line {i}" for i in range(3000)]
    doc = FileLines("".join(x + "\n" for x in model))
    assert doc.find(["line 2500"]) == [2500] and not doc.indexed
    assert doc.lines(10, 2000) == model[10:2000] and doc.offset(2999) == len("".join(x + "\n" for x in model[:2999]))
    doc.splice(100, 2900, ["new"])
    model[100:2900] = ["new"]
    assert doc.text == "".join(x + "\n" for x in model) and doc.lines(0, 10**6) == model


@pytest.mark.parametrize("searches", [0, TEXT_SEARCHES + 1])
def test_stripped_lines_and_counts_before_and_after_indexing(searches: int) -> None:
    doc = FileLines("def f():\n    x = 1  \n\tcafé = 2\n")
    for k in range(searches):
        doc.find([f"line {k}"])
    assert doc.indexed == (searches > TEXT_SEARCHES)
    assert doc.has_stripped("x = 1") and doc.has_stripped("café = 2") and not doc.has_stripped("x = 2")
    assert not doc.has_stripped("x =") and not doc.isascii()
    doc.splice(1, 3, ["  y = 3", "z"])
    assert doc.has_stripped("y = 3") and not doc.has_stripped("x = 1") and doc.isascii()
    assert doc.count("z") == 1 and doc.count("x = 1  ") == 0
    doc.replace_text("w\n")
    assert doc.has_stripped("w") and not doc.has_stripped("z")
