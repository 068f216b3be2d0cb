"""The review page's JSON API (``editblocks serve``), through Starlette's test client."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the review page needs the web extra: pip install 'editblocks[web]'")
pytest.importorskip("uvicorn", reason="the review page needs the web extra: pip install 'editblocks[web]'")

from starlette.testclient import TestClient

import editblocks
from editblocks import ApplyOptions
from editblocks.pipeline.feedback import feedback_message
from editblocks.web import create_app, missing_dependency
from editblocks.web.highlight import char_changes, diff_rows, render_line, token_lines
from editblocks.web.server import ReviewServer

from .helpers import sr, write_tree
from .webdata import (
    CART,
    FIXED_README_BLOCK,
    LAZY_PARTS,
    LAZY_REPLY,
    LAZY_SKETCH,
    README,
    REPLY,
    SCRIPT_REPLY,
    STALE_README_BLOCK,
    TOTAL_BLOCK,
    make_project,
    tree,
)


@pytest.fixture
def project(root: Path) -> Path:
    make_project(root)
    return root


@pytest.fixture
def client(project: Path) -> TestClient:
    app = create_app(project, allowed_hosts=["testserver"])
    return TestClient(app, base_url="http://testserver")


def new_review(client: TestClient, reply: str = REPLY, **options: str) -> dict:
    response = client.post("/api/reviews", json={"reply": reply, **options})
    assert response.status_code == 201, response.text
    return response.json()


def by_status(view: dict) -> list[str]:
    return [b["status"] for b in view["blocks"]]


# -- the page and its files ----------------------------------------------------------------


def test_page_and_assets_are_served_with_a_strict_content_security_policy(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert "editblocks review" in page.text
    assert 'src="/static/app.js"' in page.text
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/app.css").status_code == 200
    css = client.get("/pygments.css")
    assert css.status_code == 200 and ".hl .k" in css.text


def test_state_names_the_root_and_the_options(client: TestClient, project: Path) -> None:
    state = client.get("/api/state").json()
    assert state["root"] == str(project.resolve())
    assert state["formats"] == list(editblocks.FORMATS)
    assert state["match_levels"] == ["exact", "tolerant", "fuzzy", "ast"]
    assert state["undo"]["available"] is False
    assert state["live"]["active"] is False


def test_web_extra_is_installed() -> None:
    assert missing_dependency() is None


# -- preview ------------------------------------------------------------------------------------


def test_preview_shows_every_block_and_writes_nothing(client: TestClient, project: Path) -> None:
    before = tree(project)
    view = new_review(client)
    assert tree(project) == before
    assert by_status(view) == ["will_apply", "will_apply", "will_apply", "failed"]
    counts = view["summary"]["counts"]
    assert counts == {"will_apply": 3, "applied": 0, "failed": 1, "skipped": 0, "already_applied": 0}
    assert view["summary"]["files_pending"] == ["shop/cart.py", "tests/test_cart.py"]
    assert view["summary"]["files_applied"] == []
    first, second, create, stale = view["blocks"]
    assert first["strategy"] == "exact" and first["strategy_label"] == "Exact match" and first["confidence"] == "high"
    assert first["line"] == 11
    assert create["strategy_label"] == "New file" and create["is_create"]
    # Each block's diff is its own change, placed in the file with line numbers.
    assert first["diff_kind"] == "file"
    assert any(r["t"] == "del" and "total" in r["h"] for r in first["diff"])
    assert not any("format_price" in r["h"] and r["t"] != "ctx" for r in first["diff"])
    assert any(r["t"] == "add" and "currency" in r["h"] for r in second["diff"])
    # The same rows as the whole-file diff of the dry run.
    dry = editblocks.apply_edits(REPLY, project, dry_run=True)
    assert [b["file_path"] for b in view["blocks"]] == [r.file_path for r in dry.results]


def test_failed_block_carries_its_diagnosis_and_the_similar_lines(client: TestClient) -> None:
    view = new_review(client)
    stale = view["blocks"][3]
    assert stale["status"] == "failed"
    assert "not found" in stale["reason"]
    assert stale["closest_region"] == [3, 3]
    assert stale["closest"][0]["n"] == 3
    assert "A tiny shopping cart used by the editblocks demo." in stale["closest"][0]["h"]
    assert stale["diff_kind"] == "block"  # not placed in the file: its own text
    assert stale["places"] == []  # not found is not ambiguous: no places to choose
    [failure] = view["summary"]["failures"]
    assert failure["index"] == 3 and failure["similar_line"] == 3 and failure["file_path"] == "README.md"


def test_feedback_message_says_what_is_written_and_what_only_will_be(client: TestClient, project: Path) -> None:
    view = new_review(client)
    dry = editblocks.apply_edits(REPLY, project, dry_run=True)
    waiting = [i for i, r in enumerate(dry.results) if r.status is editblocks.EditStatus.APPLIED]
    assert view["feedback"] == feedback_message(dry, pending=waiting)
    assert "Block 4 for README.md failed" in view["feedback"]
    assert "Applied, do not send" not in view["feedback"]
    assert "will apply as they are (not written yet)" in view["feedback"]
    assert "the file contents below are current" in view["feedback"]
    assert client.get(f"/api/reviews/{view['id']}/feedback").json()["feedback"] == view["feedback"]
    one = client.get(f"/api/reviews/{view['id']}/feedback?block=3").json()["feedback"]
    assert "Block 4 for README.md failed" in one and "block 1 (" not in one
    assert "A tiny shopping cart used by the editblocks demo." in one
    first = client.get(f"/api/reviews/{view['id']}/feedback?block=0").json()["feedback"]
    assert first == "Block 1 (shop/cart.py, line 11) will apply as it is (not written yet); do not send it again.\n"
    client.post(f"/api/reviews/{view['id']}/apply", json={"all": True})
    after = client.get(f"/api/reviews/{view['id']}/feedback").json()["feedback"]
    assert "Applied, do not send these again:\n- block 1 (shop/cart.py, line 11)" in after
    assert "not written yet" not in after
    assert client.get(f"/api/reviews/{view['id']}/feedback?block=9").status_code == 404


def test_feedback_promises_file_contents_only_when_it_holds_them(client: TestClient) -> None:
    view = new_review(client, sr("missing.py", "x = 1\n", "x = 2\n"))
    assert view["blocks"][0]["status"] == "failed"
    assert "file contents below" not in view["feedback"]
    assert "Send corrected blocks for these only." in view["feedback"]


def test_strategy_indicators_for_tolerant_and_fuzzy_matches(client: TestClient, project: Path) -> None:
    write_tree(project, {"w.py": "def f():\n    a = 1   \n    return a\n"})
    reply = sr("w.py", "def f():\n    a = 1\n    return a\n", "def f():\n    a = 2\n    return a\n")
    [block] = new_review(client, reply)["blocks"]
    assert block["status"] == "will_apply"
    assert block["strategy"] == "whitespace"
    assert block["strategy_label"] == "Whitespace adjusted" and block["confidence"] == "medium"
    lines = [f"    value_{i} = compute_something({i}, factor={i * 3})\n" for i in range(12)]
    write_tree(project, {"f.py": "def g():\n" + "".join(lines)})
    wrong = lines[:]
    wrong[5] = wrong[5].replace("factor=15", "factr=15")
    new = wrong[:]
    new[2] = "    value_2 = compute_something(2, factor=60)\n"
    [fuzzy] = new_review(client, sr("f.py", "".join(wrong), "".join(new)))["blocks"]
    assert fuzzy["strategy"] == "fuzzy", fuzzy
    assert fuzzy["confidence"] == "low"
    assert re.search(r"Fuzzy match \(\d+%\)", fuzzy["strategy_label"])


def test_skipped_and_already_applied_blocks(client: TestClient, project: Path) -> None:
    bad_then_good = (
        sr("shop/cart.py", "no such line\n", "x\n")
        + "\n"
        + sr("shop/cart.py", "class Cart:\n", "class ShoppingCart:\n")
    )
    assert by_status(new_review(client, bad_then_good)) == ["failed", "skipped"]
    done = sr("README.md", "A small cart.\n", "A tiny shopping cart used by the editblocks demo.\n")
    [block] = new_review(client, done)["blocks"]
    assert block["status"] == "already_applied"
    assert "already" in block["reason"]


def test_reply_without_blocks_and_empty_reply(client: TestClient) -> None:
    view = new_review(client, "Just prose, no edits.\n")
    assert view["blocks"] == [] and view["summary"]["total"] == 0
    truncated = new_review(client, REPLY + "\nshop/cart.py\n<<<<<<< SEARCH\nclass Cart:\n")
    assert len(truncated["blocks"]) == 4
    assert any("truncated" in w["message"] for w in truncated["warnings"])
    response = client.post("/api/reviews", json={"reply": "  \n"})
    assert response.status_code == 400
    assert "empty" in response.json()["error"]
    assert client.post("/api/reviews", json={"reply": REPLY, "format": "nope"}).status_code == 400
    assert client.post("/api/reviews", json={"reply": REPLY, "match": "loose"}).status_code == 400


def test_format_and_match_options_are_used(client: TestClient, project: Path) -> None:
    write_tree(project, {"w.py": "def f():\n    a = 1   \n    return a\n"})
    reply = sr("w.py", "def f():\n    a = 1\n    return a\n", "def f():\n    a = 2\n    return a\n")
    [block] = new_review(client, reply, match="exact")["blocks"]
    assert block["status"] == "failed"
    view = new_review(client, reply, format="edit-v3")
    assert view["blocks"] == [] and view["format"] == "edit-v3"


def test_a_lazy_sketch_shows_its_runs_beside_the_files_lines(client: TestClient, project: Path) -> None:
    before = (project / "shop/cart.py").read_text()
    view = new_review(client, LAZY_REPLY, format="lazy")
    [block] = view["blocks"]
    assert block["status"] == "will_apply", block["reason"]
    parts = [
        (a["kind"], a["sketch_first"], a["sketch_last"], a["file_first"], a["file_last"]) for a in block["anchors"]
    ]
    assert parts == LAZY_PARTS
    lines = before.split("\n")
    sketch = LAZY_SKETCH.split("\n")
    for a in block["anchors"]:
        assert [r["n"] for r in a["sketch"]] == list(range(a["sketch_first"], a["sketch_last"] + 1))
        assert [_text(r["h"]) for r in a["sketch"]] == sketch[a["sketch_first"] - 1 : a["sketch_last"]]
        numbered = [(r["n"], _text(r["h"])) for r in a["file"] if r["t"] != "hunk"]
        assert numbered == [(n, lines[n - 1]) for n, _ in numbered]
        if a["kind"] == "run":
            assert a["changed"] and [n for n, _ in numbered] == list(range(a["file_first"], a["file_last"] + 1))
    # The first elision keeps 3 lines: all shown; a longer one shows its ends and how many are between.
    assert [r["t"] for r in block["anchors"][0]["file"]] == ["ctx"] * 3
    applied = client.post(f"/api/reviews/{view['id']}/apply", json={"all": True}).json()
    [done] = applied["view"]["blocks"]
    assert done["status"] == "applied"
    assert [(a["kind"], a["file_first"], a["file_last"]) for a in done["anchors"]] == [
        (k, f, last) for k, _, _, f, last in LAZY_PARTS
    ]
    assert "self.discount = 0.0" in (project / "shop/cart.py").read_text()


def test_a_long_elision_shows_its_first_and_last_lines(client: TestClient, project: Path) -> None:
    write_tree(project, {"long.py": "".join(f"x{i} = {i}\n" for i in range(1, 31))})
    sketch = "# ... existing code ...\nx20 = 20\nx21 = 210\nx22 = 22\n# ... existing code ...\n"
    [block] = new_review(client, f"long.py\n```python\n{sketch}```\n", format="lazy")["blocks"]
    assert block["status"] == "will_apply", block["reason"]
    first = block["anchors"][0]
    assert (first["kind"], first["file_first"], first["file_last"]) == ("elision", 1, 19)
    rows = first["file"]
    assert [r["n"] for r in rows] == [1, 2, None, 18, 19]
    assert "15 more lines kept" in rows[2]["h"]


def _text(html: str) -> str:
    return (
        re.sub(r"<[^>]+>", "", html)
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", '"')
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
    )


# -- escaping -------------------------------------------------------------------------------------


def test_html_in_replies_and_files_is_escaped(client: TestClient, project: Path) -> None:
    write_tree(project, {"README.md": "<script>alert('file')</script>\n" + README})
    view = new_review(client, SCRIPT_REPLY)
    html = json.dumps([r["h"] for b in view["blocks"] for r in b["diff"] + b["closest"]])
    assert "<script" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;window.__pwned = 3&lt;/script&gt;" in html
    file_rows = client.get(f"/api/reviews/{view['id']}/file", params={"path": "README.md"}).json()["rows"]
    assert (
        "&lt;script&gt;alert(&#x27;file&#x27;)&lt;/script&gt;" in file_rows[0]["h"]
        or "&lt;script&gt;" in file_rows[0]["h"]
    )
    assert "<script" not in json.dumps(file_rows)


def test_highlighted_rows_keep_the_text_and_mark_changed_characters() -> None:
    rows = diff_rows("x = 1 < 2\n", "x = 1 <= 3\n", "a.py")
    assert [r["t"] for r in rows] == ["hunk", "del", "add"]
    added = rows[2]["h"]
    assert "eb-chg" in added and "&lt;" in added
    plain = re.sub(r"<[^>]+>", "", added).replace("&lt;", "<")
    assert plain == "x = 1 <= 3"
    old, new = char_changes("return total", "return round(total)")
    assert old == [] and new
    assert char_changes("abc", "xyz") is None  # wholly different lines get no marks
    # Whole word tokens are marked, never fragments of one.
    old, new = char_changes("        return self.total", "        return self.subtotal")
    assert ["        return self.total"[a:b] for a, b in old] == ["total"]
    assert ["        return self.subtotal"[a:b] for a, b in new] == ["subtotal"]
    assert (
        render_line([("k", "if"), ("", " a<b")], [(3, 5)])
        == '<span class="k">if</span> <span class="eb-chg">a&lt;</span>b'
    )
    assert token_lines("", "x.py") == []
    assert ["".join(t for _, t in line) for line in token_lines("a\n\tb\n\n", "Makefile")] == ["a", "\tb", ""]


# -- writing, cancelling, undo --------------------------------------------------------------------


def test_apply_one_file_then_undo(client: TestClient, project: Path) -> None:
    before = tree(project)
    view = new_review(client)
    response = client.post(f"/api/reviews/{view['id']}/apply", json={"file": "shop/cart.py"})
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["applied"]["files"] == ["shop/cart.py"]
    assert data["applied"]["blocks"] == [0, 1]
    cart = (project / "shop/cart.py").read_text()
    assert "def total(self, discount=0.0):" in cart and 'currency="$"' in cart
    assert not (project / "tests/test_cart.py").exists()
    after = data["view"]
    assert by_status(after) == ["applied", "applied", "will_apply", "failed"]
    assert after["summary"]["files_applied"] == ["shop/cart.py"]
    assert after["summary"]["files_pending"] == ["tests/test_cart.py"]
    assert after["undo"]["available"] and after["undo"]["files"] == ["shop/cart.py"]
    assert after["blocks"][0]["diff"] == view["blocks"][0]["diff"]  # the applied change, as previewed
    # The file view shows what was written.
    shown = client.get(f"/api/reviews/{view['id']}/file", params={"path": "shop/cart.py"}).json()
    assert shown["kind"] == "applied"
    # Re-reading the review keeps the state.
    assert by_status(client.get(f"/api/reviews/{view['id']}").json())[:2] == ["applied", "applied"]

    undone = client.post("/api/undo", json={"review": view["id"]})
    assert undone.status_code == 200, undone.text
    assert undone.json()["undone"]["restored"] == ["shop/cart.py"]
    assert tree(project) == before
    assert by_status(undone.json()["view"]) == ["will_apply", "will_apply", "will_apply", "failed"]
    nothing = client.post("/api/undo", json={})
    assert nothing.status_code == 409 and "nothing to undo" in nothing.json()["error"]


def test_apply_all_and_block_by_block(client: TestClient, project: Path) -> None:
    view = new_review(client)
    one = client.post(f"/api/reviews/{view['id']}/apply", json={"blocks": [2]}).json()
    assert one["applied"]["files"] == ["tests/test_cart.py"]
    assert (project / "tests/test_cart.py").read_text().startswith("from shop.cart import Cart")
    assert (project / "shop/cart.py").read_text() == CART
    again = client.post(f"/api/reviews/{view['id']}/apply", json={"blocks": [2]})
    assert again.status_code == 409
    rest = client.post(f"/api/reviews/{view['id']}/apply", json={"all": True}).json()
    assert rest["applied"]["files"] == ["shop/cart.py"]
    assert rest["applied"]["counts"] == {"applied": 2, "failed": 1, "skipped": 0, "already_applied": 0}
    assert by_status(rest["view"]) == ["applied", "applied", "applied", "failed"]
    assert (project / "README.md").read_text() == README
    # Two applies, undone newest first.
    assert client.post("/api/undo", json={}).json()["undone"]["restored"] == ["shop/cart.py"]
    assert client.post("/api/undo", json={}).json()["undone"]["deleted"] == ["tests/test_cart.py"]
    assert (project / "shop/cart.py").read_text() == CART and not (project / "tests").exists()


def test_apply_requests_that_make_no_sense(client: TestClient) -> None:
    view = new_review(client)
    rid = view["id"]
    assert client.post(f"/api/reviews/{rid}/apply", json={}).status_code == 400
    assert client.post(f"/api/reviews/{rid}/apply", json={"blocks": [9]}).status_code == 404
    assert client.post(f"/api/reviews/{rid}/apply", json={"blocks": "0"}).status_code == 400
    assert client.post(f"/api/reviews/{rid}/apply", json={"file": "nothing.py"}).status_code == 409
    assert client.post("/api/reviews/nope/apply", json={"all": True}).status_code == 404


def test_cancel_leaves_the_tree_untouched(client: TestClient, project: Path) -> None:
    before = tree(project)
    view = new_review(client)
    response = client.post(f"/api/reviews/{view['id']}/cancel", json={})
    assert response.status_code == 200 and response.json() == {"cancelled": True}
    assert tree(project) == before
    assert not (project / ".editblocks" / "journal").exists() or not os.listdir(project / ".editblocks" / "journal")
    assert client.get(f"/api/reviews/{view['id']}").status_code == 404


# -- editing a failed block by hand -----------------------------------------------------------


def test_edit_manually_is_rechecked_and_applies_the_edited_text(client: TestClient, project: Path) -> None:
    view = new_review(client)
    rid = view["id"]
    stale = view["blocks"][3]
    assert stale["text"].startswith("README.md\n")
    assert (
        editblocks.parse_reply(stale["text"]).blocks[0].same_edit(editblocks.parse_reply(STALE_README_BLOCK).blocks[0])
    )

    broken = client.post(f"/api/reviews/{rid}/blocks/3", json={"text": "README.md\n<<<<<<< SEARCH\nA tiny"}).json()
    block = broken["blocks"][3]
    assert block["status"] == "failed" and block["edit_error"].startswith("no complete edit block")
    assert block["edited"] is True

    fixed = client.post(f"/api/reviews/{rid}/blocks/3", json={"text": FIXED_README_BLOCK}).json()
    block = fixed["blocks"][3]
    assert block["status"] == "will_apply" and block["edit_error"] is None and block["edited"]
    assert fixed["summary"]["counts"]["failed"] == 0
    assert fixed["feedback"] == ""

    two = client.post(f"/api/reviews/{rid}/blocks/3", json={"text": FIXED_README_BLOCK * 2}).json()
    assert "keep exactly one" in two["blocks"][3]["edit_error"]

    client.post(f"/api/reviews/{rid}/blocks/3", json={"text": FIXED_README_BLOCK})
    applied = client.post(f"/api/reviews/{rid}/apply", json={"blocks": [3]}).json()
    assert applied["applied"]["files"] == ["README.md"]
    assert "with discounts" in (project / "README.md").read_text()
    refused = client.post(f"/api/reviews/{rid}/blocks/3", json={"text": STALE_README_BLOCK})
    assert refused.status_code == 409

    reverted = client.post(f"/api/reviews/{rid}/blocks/0", json={"text": None}).json()
    assert reverted["blocks"][0]["edited"] is False


# -- shell suggestions ------------------------------------------------------------------------


def test_shell_suggestions_are_listed_and_never_run(client: TestClient, project: Path) -> None:
    reply = REPLY + "\n```sh\ntouch pwned-by-reply\n```\n"
    view = new_review(client, reply)
    assert view["shell_suggestions"] == ["git rm shop/old_cart.py", "touch pwned-by-reply"]
    client.post(f"/api/reviews/{view['id']}/apply", json={"all": True})
    assert not (project / "pwned-by-reply").exists()


# -- files under the root only -------------------------------------------------------------------


def test_file_view_serves_only_files_under_the_root(client: TestClient, project: Path) -> None:
    (project.parent / "secret.txt").write_text("TOP-SECRET\n")
    os.symlink(project.parent / "secret.txt", project / "link.txt")
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text("[core]\n")
    view = new_review(client)
    url = f"/api/reviews/{view['id']}/file"
    assert client.get(url, params={"path": "notes.txt"}).json()["rows"][0]["h"] == "keep me"
    pending = client.get(url, params={"path": "shop/cart.py"}).json()
    assert pending["kind"] == "pending" and any(r["t"] == "add" for r in pending["rows"])
    for bad in [
        "../secret.txt",
        str(project.parent / "secret.txt"),
        "link.txt",
        ".git/config",
        "shop/../../secret.txt",
        "~/x",
        "",
    ]:
        response = client.get(url, params={"path": bad})
        assert response.status_code in (400, 403), (bad, response.text)
        assert "TOP-SECRET" not in response.text
    assert client.get(url, params={"path": "nothing/here.py"}).json()["kind"] == "missing"
    write_tree(project, {"blob.bin": b"\x00\x01\x02binary"})
    assert client.get(url, params={"path": "blob.bin"}).status_code == 415


# -- cross-site requests ---------------------------------------------------------------------


def test_write_requests_from_other_origins_are_refused(client: TestClient, project: Path) -> None:
    view = new_review(client)
    before = tree(project)
    url = f"/api/reviews/{view['id']}/apply"
    refused = [
        client.post(url, json={"all": True}, headers={"Origin": "http://evil.example"}),
        client.post(url, json={"all": True}, headers={"Origin": "null"}),
        client.post(url, json={"all": True}, headers={"Origin": "http://testserver.evil.example"}),
        client.post(url, json={"all": True}, headers={"Sec-Fetch-Site": "cross-site"}),
        client.post(url, content=b'{"all": true}', headers={"Content-Type": "text/plain"}),
        client.post(url, data={"all": "true"}),
        client.post(url, json={"all": True}, headers={"Host": "evil.example", "Origin": "http://evil.example"}),
        client.post("/api/undo", json={}, headers={"Origin": "http://evil.example"}),
        client.post("/api/live", json={"chunk": "x"}, headers={"Origin": "http://evil.example"}),
    ]
    for response in refused:
        assert response.status_code == 403, response.text
        assert "error" in response.json()
    assert tree(project) == before
    ok = client.post(url, json={"all": True}, headers={"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"})
    assert ok.status_code == 200
    assert tree(project) != before


def test_other_host_names_are_refused_for_reads_too(client: TestClient) -> None:
    # A page on another domain that resolves to 127.0.0.1 (DNS rebinding) sends its own Host.
    for path in ["/", "/api/state", "/static/app.js"]:
        assert client.get(path, headers={"Host": "attacker.example:8765"}).status_code == 403


# -- refusing deletes and moves (--no-delete) ---------------------------------------------------------


DELETE_AND_MOVE = (
    TOTAL_BLOCK
    + "\nThe notes are obsolete, and the readme belongs in docs/.\n\n"
    + "*** Begin Patch\n*** Delete File: notes.txt\n*** Update File: README.md\n*** Move to: docs/README.md\n"
    + "@@\n-# shop\n+# the shop\n*** End Patch\n"
)


def test_no_delete_previews_deletes_and_moves_as_failed_and_apply_keeps_the_files(
    client: TestClient, project: Path
) -> None:
    # The page without the option proposes to delete and to move.
    assert by_status(new_review(client, DELETE_AND_MOVE)) == ["will_apply", "will_apply", "will_apply"]
    refusing = TestClient(
        create_app(project, options=ApplyOptions(allow_delete=False), allowed_hosts=["testserver"]),
        base_url="http://testserver",
    )
    assert refusing.get("/api/state").json()["allow_delete"] is False
    view = new_review(refusing, DELETE_AND_MOVE)
    assert by_status(view) == ["will_apply", "failed", "failed"]
    _, delete, move = view["blocks"]
    assert delete["reason"] == "deleting files is not allowed in this apply (no-delete); notes.txt is left where it is"
    assert move["reason"] == "moving files is not allowed in this apply (no-delete); README.md is left where it is"
    assert view["summary"]["files_pending"] == ["shop/cart.py"]
    # Accepting the deletion on its own, or everything, writes no deletion or move.
    one = refusing.post(f"/api/reviews/{view['id']}/apply", json={"blocks": [1]})
    assert one.status_code == 200 and one.json()["applied"]["counts"] == {
        "applied": 0,
        "failed": 1,
        "skipped": 0,
        "already_applied": 0,
    }
    rest = refusing.post(f"/api/reviews/{view['id']}/apply", json={"all": True}).json()
    assert rest["applied"]["files"] == ["shop/cart.py"]
    assert by_status(rest["view"]) == ["applied", "failed", "failed"]
    assert sorted(tree(project)) == ["README.md", "notes.txt", "shop/cart.py"]  # nothing deleted or moved
    assert (project / "README.md").read_text() == README and "discount=0.0" in (project / "shop/cart.py").read_text()


# -- the live reply ------------------------------------------------------------------------------


def test_live_reply_grows_block_by_block(client: TestClient, project: Path) -> None:
    assert client.post("/api/live", json={"reset": True}).status_code == 200
    cut = REPLY.index('def format_price(amount, currency="$")')  # inside the second block
    client.post("/api/live", json={"chunk": REPLY[:cut]})
    state = client.app.state.editblocks  # type: ignore[attr-defined]
    live = state.live_view()
    assert live["active"] and not live["done"]
    assert [b["status"] for b in live["review"]["blocks"]] == ["will_apply"]
    progress = live["in_progress"]
    assert progress["path"] == "shop/cart.py" and "format_price(amount)" in progress["old"]
    refused = client.post("/api/reviews/live/apply", json={"all": True})
    assert refused.status_code == 409 and "still arriving" in refused.json()["error"]

    client.post("/api/live", json={"chunk": REPLY[cut:], "done": True})
    live = state.live_view()
    assert live["done"] and live["in_progress"] is None
    assert [b["status"] for b in live["review"]["blocks"]] == ["will_apply", "will_apply", "will_apply", "failed"]
    assert live["review"]["shell_suggestions"] == ["git rm shop/old_cart.py"]
    applied = client.post("/api/reviews/live/apply", json={"file": "tests/test_cart.py"})
    assert applied.status_code == 200
    assert (project / "tests/test_cart.py").exists()
    assert client.post("/api/live", json={"chunk": "more"}).status_code == 409


def test_events_stream_sends_the_live_reply(project: Path) -> None:
    server = ReviewServer(project, port=0).start()
    try:
        server.feed(REPLY[: REPLY.index("tests/test_cart.py")])
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/api/live/events", headers={"Authorization": f"Bearer {server.token}"})
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("content-type").startswith("text/event-stream")
        first = _read_event(response)
        assert first["active"] and not first["done"]
        assert len(first["review"]["blocks"]) == 2
        server.feed(REPLY[REPLY.index("tests/test_cart.py") :])
        server.finish()
        for _ in range(10):
            event = _read_event(response)
            if event["done"]:
                break
        assert event["done"] and len(event["review"]["blocks"]) == 4
        conn.close()
        # A request for another host name is refused by the real server too.
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/api/state", headers={"Host": "evil.example"})
        assert conn.getresponse().status == 403
        conn.close()
    finally:
        server.stop()


def _read_event(response: http.client.HTTPResponse) -> dict:
    data = []
    while True:
        line = response.readline().decode("utf-8")
        if line.startswith("data: "):
            data.append(line[6:])
        elif line == "\n" and data:
            return json.loads("".join(data))


# -- the command line ----------------------------------------------------------------------------


_TOKENS: dict[str, str] = {}
"""The token each started server printed in its link, by its address."""


def _start_cli(args: list[str], stdin: bytes | None, cwd: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = {**os.environ, "EDITBLOCKS_NO_BROWSER": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "editblocks", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
    )
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    url = None
    while url is None and time.monotonic() < deadline:
        line = proc.stdout.readline().decode("utf-8")
        if not line:
            break
        m = re.search(r"(http://127\.0\.0\.1:\d+/)(?:\?token=(\S+))?", line)
        if m:
            url = m.group(1)
            if m.group(2):
                _TOKENS[url] = m.group(2)
    if url is None:
        proc.kill()
        raise AssertionError(f"no address printed; stderr: {proc.stderr.read().decode() if proc.stderr else ''}")
    return proc, url


def _get_json(url: str) -> dict:
    m = re.match(r"http://([^:/]+):(\d+)(/.*)", url)
    assert m
    conn = http.client.HTTPConnection(m.group(1), int(m.group(2)), timeout=10)
    token = next((t for base, t in _TOKENS.items() if url.startswith(base)), None)
    conn.request("GET", m.group(3), headers={} if token is None else {"Authorization": f"Bearer {token}"})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    assert response.status == 200, body
    return json.loads(body)


def test_apply_review_serves_the_piped_reply_and_writes_nothing(project: Path) -> None:
    before = tree(project)
    proc, url = _start_cli(["apply", "--review", "-", "--root", str(project)], REPLY.encode(), project)
    try:
        deadline = time.monotonic() + 20
        while True:
            state = _get_json(url + "api/state")
            if state["live"]["done"] or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert state["root"] == str(project.resolve())
        view = _get_json(url + "api/reviews/live")
        assert [b["status"] for b in view["blocks"]] == ["will_apply", "will_apply", "will_apply", "failed"]
        assert tree(project) == before
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_apply_review_listens_on_the_port_asked_for_and_refuses_a_busy_one(project: Path) -> None:
    from click.testing import CliRunner

    from editblocks.cli import main

    (project / "reply.md").write_text(REPLY)
    busy = ReviewServer(project, port=0)  # holds a free port
    try:
        args = ["apply", "--review", str(project / "reply.md"), "--root", str(project), "--port", str(busy.port)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2 and f"cannot start the review page on 127.0.0.1:{busy.port}" in result.output
    finally:
        busy.socket.close()
    port = busy.port  # free again
    proc, url = _start_cli(
        ["apply", "--review", "reply.md", "--root", str(project), "--port", str(port)], None, project
    )
    try:
        assert url == f"http://127.0.0.1:{port}/"
        assert _get_json(url + "api/state")["root"] == str(project.resolve())
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_port_is_only_for_the_review_page(project: Path) -> None:
    from click.testing import CliRunner

    from editblocks.cli import main

    (project / "reply.md").write_text(REPLY)
    before = tree(project)
    result = CliRunner().invoke(main, ["apply", str(project / "reply.md"), "--root", str(project), "--port", "8123"])
    assert result.exit_code == 2 and "--port is the review page's port: use it with --review" in result.output
    assert tree(project) == before


def test_serve_command_prints_its_address_and_serves_the_page(project: Path) -> None:
    (project / "reply.md").write_text(REPLY)
    proc, url = _start_cli(["serve", "--root", str(project), "--port", "0", "reply.md"], None, project)
    try:
        m = re.match(r"http://([^:/]+):(\d+)/", url)
        assert m
        conn = http.client.HTTPConnection(m.group(1), int(m.group(2)), timeout=10)
        conn.request("GET", "/", headers={"Authorization": f"Bearer {_TOKENS[url]}"})
        assert b"editblocks review" in conn.getresponse().read()
        conn.close()
        deadline = time.monotonic() + 20
        while not _get_json(url + "api/state")["live"]["done"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(_get_json(url + "api/reviews/live")["blocks"]) == 4
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_serve_refuses_a_missing_root_and_a_busy_port(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from editblocks.cli import main

    result = CliRunner().invoke(main, ["serve", "--root", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "root folder not found" in result.output
    server = ReviewServer(tmp_path, port=0)
    try:
        result = CliRunner().invoke(main, ["serve", "--root", str(tmp_path), "--port", str(server.port)])
        assert result.exit_code == 2 and "cannot start the review page" in result.output
    finally:
        server.socket.close()


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """The options ``run_review`` is started with by the commands; no server is started."""
    calls: list[dict] = []
    monkeypatch.setattr("editblocks.web.server.run_review", lambda root, **options: calls.append(options))
    return calls


@pytest.mark.parametrize(
    "options, refused",
    [
        (["--json"], "--json"),
        (["--atomic", "--dry-run"], "--dry-run, --atomic"),
        (["--base-dir", "{project}", "--refuse-drift", "--no-diff"], "--no-diff, --base-dir, --refuse-drift"),
        (["--max-reply-mb", "1"], "--max-reply-mb"),
    ],
)
def test_apply_review_refuses_the_options_the_page_would_ignore(
    project: Path, served: list[dict], options: list[str], refused: str
) -> None:
    from click.testing import CliRunner

    from editblocks.cli import main

    (project / "reply.md").write_text(REPLY)
    args = ["apply", "--review", str(project / "reply.md"), "--root", str(project)]
    result = CliRunner().invoke(main, [*args, *(o.format(project=project) for o in options)])
    assert result.exit_code == 2, result.output
    assert f"--review cannot be combined with {refused}" in result.stderr
    assert served == []  # no page was started


def test_apply_review_starts_with_settings_it_does_not_honour(project: Path, served: list[dict]) -> None:
    """A setting of the project (``atomic = true``) is a default, not an option given: the page
    starts, where the same option typed with ``--review`` is refused."""
    from click.testing import CliRunner

    from editblocks.cli import main

    (project / "reply.md").write_text(REPLY)
    (project / ".editblocks.toml").write_text("atomic = true\n")
    args = ["apply", "--review", str(project / "reply.md"), "--root", str(project)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert len(served) == 1


def test_review_commands_pass_no_delete_and_their_other_options_to_the_page(project: Path, served: list[dict]) -> None:
    from click.testing import CliRunner

    from editblocks.cli import main

    (project / "reply.md").write_text(REPLY)
    reply, root = str(project / "reply.md"), str(project)
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "apply",
            "--review",
            reply,
            "--root",
            root,
            "--no-delete",
            "--match",
            "exact",
            "--git-add",
            "--continue-after-failure",
        ],
    )
    assert result.exit_code == 0, result.output
    assert runner.invoke(main, ["apply", "--review", reply, "--root", root]).exit_code == 0
    assert runner.invoke(main, ["serve", reply, "--root", root, "--no-delete"]).exit_code == 0
    options = [c["options"] for c in served]
    assert [(o.allow_delete, o.match, o.git_add, o.continue_after_failure) for o in options] == [
        (False, "exact", True, True),
        (True, None, False, False),
        (False, None, False, False),
    ]
    assert all(c["reply_text"] == REPLY for c in served)


def test_live_reply_decodes_bytes_split_inside_a_character() -> None:
    from editblocks.web.live import LiveReply

    text = "Ändere die Datei.\n" + sr("a.py", "x = 'ü'\n", "x = 'é'\n")
    data = text.encode("utf-8")
    live = LiveReply()
    for i in range(0, len(data), 3):
        live.feed(data[i : i + 3])
    live.finish()
    snap = live.snapshot()
    assert snap.text == text
    assert [b.new_lines for b in snap.blocks] == ["x = 'é'\n"]


def test_live_reply_without_the_streaming_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    # An older build without editblocks.StreamParser: the reply so far is parsed again.
    from editblocks.web import live as live_module

    monkeypatch.setattr(live_module, "StreamParser", None)
    live = live_module.LiveReply()
    cut = REPLY.index('def format_price(amount, currency="$")')
    live.feed(REPLY[:cut])
    snap = live.snapshot()
    assert len(snap.blocks) == 1 and not snap.done
    assert snap.in_progress is not None and snap.in_progress["path"] is None
    assert "def format_price(amount):" in snap.in_progress["tail"]
    live.feed(REPLY[cut:])
    live.finish()
    snap = live.snapshot()
    assert snap.done and snap.in_progress is None
    assert [b.file_path for b in snap.blocks] == ["shop/cart.py", "shop/cart.py", "tests/test_cart.py", "README.md"]


def test_editblocks_undo_undoes_an_apply_made_on_the_page(client: TestClient, project: Path) -> None:
    before = tree(project)
    view = new_review(client)
    client.post(f"/api/reviews/{view['id']}/apply", json={"all": True})
    assert tree(project) != before
    done = editblocks.undo(project)
    assert sorted(done.restored + done.deleted) == ["shop/cart.py", "tests/test_cart.py"]
    assert tree(project) == before
    # The page learns of it when it looks again: the blocks would apply again.
    again = client.get(f"/api/reviews/{view['id']}").json()
    assert by_status(again) == ["will_apply", "will_apply", "will_apply", "failed"]
    assert again["summary"]["files_applied"] == [] and again["undo"]["available"] is False


# -- bodies that are too large or never end, on the real server ------------------------------


def _raw_post(port: int, head: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(head.encode())
    return sock


def test_a_chunked_body_is_refused_at_the_limit_while_it_arrives(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No Content-Length: the body is counted as it arrives and refused (413) once past the limit,
    long before the client has sent it all."""
    monkeypatch.setattr("editblocks.web.app.MAX_BODY_BYTES", 1_000_000)
    before = tree(project)
    server = ReviewServer(project, port=0).start()
    try:
        sock = _raw_post(
            server.port,
            f"POST /api/reviews HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
            f"Origin: http://127.0.0.1:{server.port}\r\nAuthorization: Bearer {server.token}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n",
        )
        chunk = b"x" * 65536
        sent = 0
        answer = b""
        sock.settimeout(0.05)
        while sent < 20_000_000 and not answer:
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:
                break
            sent += len(chunk)
            try:
                answer = sock.recv(4096)
            except (TimeoutError, OSError):
                pass
        sock.settimeout(5)
        answer = answer or sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert sent < 5_000_000
        sock.close()
        assert tree(project) == before
    finally:
        server.stop()


def test_a_body_that_stops_arriving_is_given_up(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("editblocks.web.app.BODY_IDLE_SECONDS", 0.5)
    server = ReviewServer(project, port=0).start()
    try:
        sock = _raw_post(
            server.port,
            f"POST /api/reviews HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
            f"Origin: http://127.0.0.1:{server.port}\r\nAuthorization: Bearer {server.token}\r\n"
            "Content-Length: 1000\r\n\r\n" + '{"reply": "',
        )
        started = time.monotonic()
        answer = sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert time.monotonic() - started < 5
        sock.close()
    finally:
        server.stop()


# -- the run's secret token ----------------------------------------------------------------------


def _http(
    server: ReviewServer, method: str, path: str, body: dict | None = None, headers: dict | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    sent = {"Host": f"127.0.0.1:{server.port}", **(headers or {})}
    if body is not None:
        sent |= {"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{server.port}"}
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=sent)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data


def test_without_the_token_nothing_is_read_or_written(project: Path) -> None:
    """Another program on the machine that finds the port cannot preview, apply or undo: 401, and
    the files stay as they were; the page itself says where to find the link."""
    before = tree(project)
    server = ReviewServer(project, port=0).start()
    try:
        assert server.token and len(server.token) >= 32 and server.url.endswith(f"?token={server.token}")
        assert server.token not in server.base_url
        wrong = {"Authorization": "Bearer " + "x" * len(server.token)}
        for headers in ({}, wrong, {"Cookie": "editblocks_token_000000000000=nope"}):
            status, _, body = _http(server, "POST", "/api/reviews", {"reply": REPLY}, headers)
            assert status == 401 and b"token" in body
            for path in ("/api/state", "/api/reviews/live", "/api/live/events", "/static/app.js"):
                assert _http(server, "GET", path, headers=headers)[0] == 401, path
            status, _, page = _http(server, "GET", "/", headers=headers)
            assert status == 401 and b"link" in page and b"editblocks review" not in page
        # Even with a review made by the page, an apply without the token writes nothing.
        status, _, body = _http(
            server, "POST", "/api/reviews", {"reply": REPLY}, {"Authorization": f"Bearer {server.token}"}
        )
        assert status == 201
        review_id = json.loads(body)["id"]
        assert _http(server, "POST", f"/api/reviews/{review_id}/apply", {"all": True})[0] == 401
        assert (
            _http(server, "POST", f"/api/reviews/{review_id}/apply", {"all": True}, {"Authorization": "Bearer "})[0]
            == 401
        )
        assert tree(project) == before
        status, _, body = _http(
            server,
            "POST",
            f"/api/reviews/{review_id}/apply",
            {"all": True},
            {"Authorization": f"Bearer {server.token}"},
        )
        assert status == 200 and tree(project) != before
    finally:
        server.stop()


def test_the_link_sets_a_cookie_that_the_page_then_uses(project: Path) -> None:
    server = ReviewServer(project, port=0).start()
    try:
        status, headers, _ = _http(server, "GET", f"/?token={server.token}")
        assert status == 303 and headers["location"] == "/"  # the token leaves the address bar
        cookie = headers["set-cookie"]
        assert "HttpOnly" in cookie and "samesite=strict" in cookie.lower() and server.token in cookie
        pair = cookie.split(";", 1)[0]
        status, _, page = _http(server, "GET", "/", headers={"Cookie": pair})
        assert status == 200 and b"editblocks review" in page
        assert _http(server, "GET", "/api/state", headers={"Cookie": pair})[0] == 200
        # A second server on the same machine has its own cookie name (cookies ignore ports).
        other = ReviewServer(project, port=0)
        try:
            assert other.token != server.token
            from editblocks.web.app import token_cookie_name

            assert token_cookie_name(other.token) != token_cookie_name(server.token)  # type: ignore[arg-type]
        finally:
            other.socket.close()
    finally:
        server.stop()


def test_token_from_the_environment_and_no_token(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDITBLOCKS_TOKEN", "a-fixed-secret-for-a-bookmark")
    server = ReviewServer(project, port=0)
    try:
        assert server.token == "a-fixed-secret-for-a-bookmark"
    finally:
        server.socket.close()
    server = ReviewServer(project, port=0, token=False).start()
    try:
        assert server.url == server.base_url
        assert _http(server, "GET", "/api/state")[0] == 200
    finally:
        server.stop()


def test_serve_prints_a_link_with_the_token_and_no_token_warns(project: Path) -> None:
    (project / "reply.md").write_text(REPLY)
    proc, url = _start_cli(["serve", "--root", str(project), "--port", "0", "reply.md"], None, project)
    try:
        token = _TOKENS[url]
        m = re.match(r"http://([^:/]+):(\d+)/", url)
        assert m and len(token) >= 32
        conn = http.client.HTTPConnection(m.group(1), int(m.group(2)), timeout=10)
        conn.request("GET", "/api/state")
        assert conn.getresponse().status == 401
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    proc = subprocess.Popen(
        [sys.executable, "-m", "editblocks", "serve", "--root", str(project), "--port", "0", "--no-token"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "EDITBLOCKS_NO_BROWSER": "1", "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline().decode() for _ in range(4)]
        text = "".join(lines)
        assert "no token" in text and "?token=" not in text
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    from click.testing import CliRunner

    from editblocks.cli import main

    result = CliRunner().invoke(main, ["apply", str(project / "reply.md"), "--root", str(project), "--no-token"])
    assert result.exit_code == 2 and "--no-token is for the review page" in result.output


def test_choosing_a_place_for_an_ambiguous_block(client: TestClient, project: Path) -> None:
    text = "a\nx\ny\nb\nx\ny\nc\n"
    write_tree(project, {"n.py": text})
    view = new_review(client, sr("n.py", "x\ny\n", "X\ny\n"))
    [block] = view["blocks"]
    assert block["status"] == "failed" and block["candidates"] == [2, 5]
    assert [p["line"] for p in block["places"]] == [2, 5]
    assert [r["n"] for r in block["places"][1]["rows"] if r["m"]] == [5, 6]
    url = f"/api/reviews/{view['id']}/blocks/0/choose"
    digest = block["places"][1]["digest"]
    refused = client.post(url, json={"line": 3, "digest": digest})
    assert refused.status_code == 409 and "not one of the places" in refused.json()["error"]
    assert client.post(url, json={"line": "5"}).status_code == 400
    (project / "n.py").write_text(text + "d\n")
    changed = client.post(url, json={"line": 5, "digest": digest})
    assert changed.status_code == 409 and "changed since" in changed.json()["error"]
    (project / "n.py").write_text(text)
    done = client.post(url, json={"line": 5, "digest": digest})
    assert done.status_code == 200, done.text
    assert done.json()["view"]["blocks"][0]["status"] == "applied"
    assert (project / "n.py").read_text() == "a\nx\ny\nb\nX\ny\nc\n"
    assert client.post(url, json={"line": 2}).status_code == 409


def test_each_of_many_blocks_in_one_file_shows_its_own_change_at_its_line(client: TestClient, project: Path) -> None:
    """Blocks of one file, each shown with its own change numbered as in the file: taken from
    what the placer recorded for each block, in order (a later block sees the earlier changes)."""
    lines = [f"value_{i} = {i}\n" for i in range(1, 61)]
    (project / "many.py").write_text("".join(lines))
    reply = "".join(sr("many.py", f"value_{i} = {i}\n", f"value_{i} = {i * 10}\n") for i in (5, 30, 55)) + sr(
        "many.py", "value_30 = 300\n", "value_30 = 3000\n"
    )
    view = new_review(client, reply)
    blocks = view["blocks"]
    assert [b["status"] for b in blocks] == ["will_apply"] * 4
    for b, (line, old, new) in zip(
        blocks, [(5, "= 5", "= 50"), (30, "= 30", "= 300"), (55, "= 55", "= 550"), (30, "= 300", "= 3000")]
    ):
        changed = [r for r in b["diff"] if r["t"] in ("del", "add")]
        assert [(r["t"], r["o"] if r["t"] == "del" else r["n"]) for r in changed] == [("del", line), ("add", line)], b[
            "diff"
        ]
        assert old in changed[0]["h"].replace("<span", " <span") or old.split()[-1] in changed[0]["h"]
        assert new.split()[-1] in changed[1]["h"]
        # Three lines of context at most on each side: the block's change, not the whole file.
        assert len(b["diff"]) <= 2 + 6 + 1
