"""The review page in a real browser: Debian's Chromium, headless, driven by Playwright.

Each test starts a real uvicorn server on 127.0.0.1 (a free port) for a fresh project. Without
a Chromium (``apt-get install chromium``) or without Playwright (``pip install -e '.[test]'``)
these tests are skipped; every other test still runs.

Screenshots of the main states go to a temporary folder that is removed afterwards; set
``EDITBLOCKS_SCREENSHOTS=DIR`` to keep them in DIR. ``EDITBLOCKS_CHROMIUM`` names another
Chromium binary.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

INSTALL_HINT = (
    "the browser tests need Debian's Chromium (apt-get install chromium) and Playwright "
    "(pip install -e '.[test]'); no browser download is used"
)


def _chromium() -> str | None:
    named = os.environ.get("EDITBLOCKS_CHROMIUM")
    for candidate in [named] if named else ["/usr/bin/chromium", shutil.which("chromium")]:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


CHROMIUM = _chromium()
if CHROMIUM is None:
    pytest.skip(f"no Chromium found: {INSTALL_HINT}", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason=f"Playwright is not installed: {INSTALL_HINT}")
pytest.importorskip("starlette", reason="the review page needs the web extra: pip install 'editblocks[web]'")

from editblocks.web.server import ReviewServer  # noqa: E402

from .helpers import sr  # noqa: E402
from .webdata import (  # noqa: E402
    CART,
    FIXED_README_BLOCK,
    LAZY_PARTS,
    LAZY_REPLY,
    README,
    REPLY,
    SCRIPT_REPLY,
    TOTAL_BLOCK,
    make_project,
    tree,
)

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 10_000


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as playwright:
        try:
            instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=30_000)
        except Exception as exc:  # a Chromium that cannot start here
            pytest.skip(f"Chromium at {CHROMIUM} did not start ({exc}); {INSTALL_HINT}")
        yield instance
        instance.close()


@pytest.fixture(scope="module")
def shots() -> Iterator[Path]:
    keep = os.environ.get("EDITBLOCKS_SCREENSHOTS")
    if keep:
        folder = Path(keep)
        folder.mkdir(parents=True, exist_ok=True)
        yield folder
        return
    folder = Path(tempfile.mkdtemp(prefix="editblocks-screenshots-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def project(root: Path) -> Path:
    make_project(root)
    return root


@pytest.fixture
def server(project: Path) -> Iterator[ReviewServer]:
    srv = ReviewServer(project, port=0).start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def page(browser: object, server: ReviewServer) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url.rstrip("/"))
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.goto(server.url)
    pg.wait_for_selector("body[data-ready=true]")
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def paste_and_preview(page: object, reply: str) -> None:
    page.fill("#reply-input", reply)  # type: ignore[attr-defined]
    page.click("#preview-button")  # type: ignore[attr-defined]
    page.wait_for_selector("#files .block")  # type: ignore[attr-defined]


def statuses(page: object) -> list[str]:
    return page.eval_on_selector_all("#files .block", "els => els.map(e => e.dataset.status)")  # type: ignore[attr-defined]


def wait_statuses(page: object, expected: list[str]) -> None:
    page.wait_for_function(  # type: ignore[attr-defined]
        "expected => JSON.stringify([...document.querySelectorAll('#files .block')].map(e => e.dataset.status))"
        " === JSON.stringify(expected)",
        arg=expected,
    )


def marked(page: object) -> list[str]:
    """The texts of the rows marked in the file view (the block's lines)."""
    return page.eval_on_selector_all("#file-panel-body tr.target td.line", "els => els.map(e => e.textContent)")  # type: ignore[attr-defined]


def snap(page: object, path: Path) -> None:
    """A screenshot of the whole page, taken from the top (as a person first sees it)."""
    page.evaluate("window.scrollTo(0, 0)")  # type: ignore[attr-defined]
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]


def post(server: ReviewServer, path: str, body: dict) -> dict:
    """A request from another program on this machine (no Origin header), as `editblocks run` would send."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {server.token}"}
    conn.request("POST", path, body=json.dumps(body), headers=headers)
    response = conn.getresponse()
    data = json.loads(response.read())
    conn.close()
    assert response.status == 200, data
    return data


# -- the tests -------------------------------------------------------------------------------


def test_preview_apply_one_file_and_undo(page: object, server: ReviewServer, project: Path, shots: Path) -> None:
    before = tree(project)
    page.screenshot(path=str(shots / "01-empty.png"))  # type: ignore[attr-defined]
    paste_and_preview(page, REPLY)
    assert statuses(page) == ["will_apply", "will_apply", "will_apply", "failed"]
    badges = page.locator("#files .block .block-head .badge").all_inner_texts()  # type: ignore[attr-defined]
    assert badges == ["will apply", "will apply", "will apply", "failed"]
    summary = page.inner_text("#summary")  # type: ignore[attr-defined]
    assert "Preview: nothing has been written yet." in summary
    assert "3 will apply" in summary and "1 failed" in summary
    assert "Similar code found at line 3:" in summary
    assert "Exact match" in page.inner_text("#block-0 .block-head")  # type: ignore[attr-defined]
    # The diff: removed and added lines, highlighted, with the changed characters marked.
    first = page.locator("#block-0")  # type: ignore[attr-defined]
    assert first.locator("tr.row-del").count() == 2 and first.locator("tr.row-add").count() == 2
    assert "discount=0.0" in first.locator("tr.row-add").first.inner_text()
    assert first.locator("tr.row-add .eb-chg").count() >= 1
    assert first.locator("td.line .k").count() >= 1  # keywords coloured
    assert tree(project) == before
    snap(page, shots / "02-preview.png")

    # Clicking the path opens the file's diff at the edit.
    page.click("#block-1 .block-path")  # type: ignore[attr-defined]
    page.wait_for_selector("#file-panel:not([hidden]) tr.target")  # type: ignore[attr-defined]
    assert page.inner_text("#file-panel-title") == "shop/cart.py"  # type: ignore[attr-defined]
    assert 'currency="$"' in page.inner_text("#file-panel tr.target.row-add")  # type: ignore[attr-defined]
    assert not any("def total" in t for t in marked(page))
    page.screenshot(path=str(shots / "03-file-diff.png"))  # type: ignore[attr-defined]
    page.click("#file-panel-close")  # type: ignore[attr-defined]

    # Apply one file: only that file is written.
    page.click('.apply-file[data-path="shop/cart.py"]')  # type: ignore[attr-defined]
    wait_statuses(page, ["applied", "applied", "will_apply", "failed"])
    cart = (project / "shop/cart.py").read_text()
    assert "def total(self, discount=0.0):" in cart and 'def format_price(amount, currency="$"):' in cart
    assert not (project / "tests").exists() and (project / "README.md").read_text() == README
    assert "Modified:" in page.inner_text("#summary")  # type: ignore[attr-defined]
    page.wait_for_selector("#undo-button:not([disabled])")  # type: ignore[attr-defined]
    snap(page, shots / "04-applied-one-file.png")

    # Undo puts the file back.
    page.click("#undo-button")  # type: ignore[attr-defined]
    wait_statuses(page, ["will_apply", "will_apply", "will_apply", "failed"])
    assert (project / "shop/cart.py").read_text() == CART
    assert tree(project) == before
    page.wait_for_selector("#toast.show")  # type: ignore[attr-defined]
    assert "Undid apply" in page.inner_text("#toast")  # type: ignore[attr-defined]
    page.screenshot(path=str(shots / "05-undone.png"))  # type: ignore[attr-defined]


def test_cancel_leaves_the_tree_untouched(page: object, project: Path) -> None:
    before = tree(project)
    paste_and_preview(page, REPLY)
    page.click("#cancel-review")  # type: ignore[attr-defined]
    page.wait_for_selector("#input-panel:not([hidden])")  # type: ignore[attr-defined]
    assert page.is_hidden("#review")  # type: ignore[attr-defined]
    assert "no file was written" in page.inner_text("#toast")  # type: ignore[attr-defined]
    assert tree(project) == before


def test_apply_all_and_block_by_block(page: object, project: Path) -> None:
    paste_and_preview(page, REPLY)
    page.click("#block-2 .apply-block")  # type: ignore[attr-defined]
    wait_statuses(page, ["will_apply", "will_apply", "applied", "failed"])
    assert (project / "tests/test_cart.py").exists() and (project / "shop/cart.py").read_text() == CART
    page.click("#apply-all")  # type: ignore[attr-defined]
    wait_statuses(page, ["applied", "applied", "applied", "failed"])
    assert "def total(self, discount=0.0):" in (project / "shop/cart.py").read_text()
    assert page.is_disabled("#apply-all")  # type: ignore[attr-defined]


def test_failed_block_copy_feedback_and_edit_manually(page: object, project: Path, shots: Path) -> None:
    paste_and_preview(page, REPLY)
    stale = page.locator("#block-3")  # type: ignore[attr-defined]
    assert "not found" in stale.locator(".reason-box").inner_text()
    stale.locator(".copy-feedback").click()
    page.wait_for_selector("#toast.show")  # type: ignore[attr-defined]
    assert page.inner_text("#toast") == "Feedback for the model copied"  # type: ignore[attr-defined]
    copied = page.evaluate("navigator.clipboard.readText()")  # type: ignore[attr-defined]
    assert "Block 4 for README.md failed" in copied
    assert "A tiny shopping cart used by the editblocks demo." in copied

    stale.locator(".edit-manually").click()
    editor = stale.locator("textarea.block-editor")
    assert editor.input_value().startswith("README.md\n")
    editor.fill(FIXED_README_BLOCK.replace("with discounts", "with discount"))
    page.wait_for_function("() => document.querySelector('#block-3').dataset.status === 'will_apply'")  # type: ignore[attr-defined]
    assert "will apply" in stale.locator(".editor-status").inner_text()
    # Typing goes on in the same editor, still focused, and is re-checked.
    editor.press("End")
    page.keyboard.type("s")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.activeElement && document.activeElement.classList.contains('block-editor')")  # type: ignore[attr-defined]
    editor.fill("README.md\n<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n")
    page.wait_for_function("() => document.querySelector('#block-3').dataset.status === 'failed'")  # type: ignore[attr-defined]
    assert "\u2717" in stale.locator(".editor-status").inner_text()
    editor.fill(FIXED_README_BLOCK)
    page.wait_for_function("() => document.querySelector('#block-3').dataset.status === 'will_apply'")  # type: ignore[attr-defined]
    snap(page, shots / "06-edit-manually.png")
    stale.locator(".apply-block").click()
    wait_statuses(page, ["will_apply", "will_apply", "will_apply", "applied"])
    assert (project / "README.md").read_text() == README.replace(
        "A tiny shopping cart used", "A tiny shopping cart with discounts, used"
    )


def test_shell_suggestions_have_a_copy_button_and_are_not_run(page: object, project: Path) -> None:
    paste_and_preview(page, REPLY + "\n```sh\ntouch pwned-by-reply\n```\n")
    commands = page.locator(".shell-cmd").all_inner_texts()  # type: ignore[attr-defined]
    assert commands == ["$ git rm shop/old_cart.py", "$ touch pwned-by-reply"]
    page.locator(".copy-shell").nth(1).click()  # type: ignore[attr-defined]
    page.wait_for_selector("#toast.show")  # type: ignore[attr-defined]
    assert page.evaluate("navigator.clipboard.readText()") == "touch pwned-by-reply"  # type: ignore[attr-defined]
    page.click("#apply-all")  # type: ignore[attr-defined]
    wait_statuses(page, ["applied", "applied", "applied", "failed"])
    assert not (project / "pwned-by-reply").exists()


def test_a_reply_with_script_tags_shows_them_as_text(page: object, project: Path, shots: Path) -> None:
    (project / "README.md").write_text('<script>document.title = "pwned by the file"</script>\n' + README)
    paste_and_preview(page, SCRIPT_REPLY)
    assert page.evaluate("window.__pwned === undefined")  # type: ignore[attr-defined]
    assert statuses(page) == ["will_apply", "failed"]
    assert page.locator("#review script, #review img").count() == 0  # type: ignore[attr-defined]
    shown = page.inner_text("#block-0")  # type: ignore[attr-defined]
    assert '"<script>window.__pwned = 3</script>"  # <b>bold</b>' in shown
    failed = page.inner_text("#block-1")  # type: ignore[attr-defined]
    assert "<script>window.__pwned = 4</script>" in failed
    assert '<img src=x onerror="window.__pwned = 5">' in failed
    page.click("#block-1 .block-path")  # type: ignore[attr-defined]
    page.wait_for_selector("#file-panel:not([hidden])")  # type: ignore[attr-defined]
    assert '<script>document.title = "pwned by the file"</script>' in page.inner_text("#file-panel-body")  # type: ignore[attr-defined]
    assert page.locator("#file-panel script").count() == 0  # type: ignore[attr-defined]
    snap(page, shots / "07-script-as-text.png")
    assert page.evaluate("window.__pwned === undefined")  # type: ignore[attr-defined]
    assert page.title() == "editblocks review"  # type: ignore[attr-defined]


def test_live_reply_shows_the_block_in_progress(page: object, server: ReviewServer, project: Path, shots: Path) -> None:
    cut = REPLY.index('def format_price(amount, currency="$")')
    post(server, "/api/live", {"reset": True, "chunk": REPLY[:cut]})
    page.wait_for_selector("#in-progress-block")  # type: ignore[attr-defined]
    progress = page.inner_text("#in-progress-block")  # type: ignore[attr-defined]
    assert "shop/cart.py" in progress and "streaming" in progress
    assert "- def format_price(amount):" in progress
    page.wait_for_selector("#files .block")  # type: ignore[attr-defined]
    assert statuses(page) == ["will_apply"]
    assert page.is_disabled("#apply-all")  # type: ignore[attr-defined]
    assert "Receiving the reply" in page.inner_text("#live-status")  # type: ignore[attr-defined]
    snap(page, shots / "08-live-in-progress.png")

    post(server, "/api/live", {"chunk": REPLY[cut:], "done": True})
    page.wait_for_selector("#live-status[data-done=true]")  # type: ignore[attr-defined]
    wait_statuses(page, ["will_apply", "will_apply", "will_apply", "failed"])
    assert page.locator("#in-progress-block").count() == 0  # type: ignore[attr-defined]
    page.click('.apply-file[data-path="tests/test_cart.py"]')  # type: ignore[attr-defined]
    wait_statuses(page, ["will_apply", "will_apply", "applied", "failed"])
    assert (project / "tests/test_cart.py").exists()


def test_open_and_drop_a_reply_file(page: object, tmp_path: Path) -> None:
    reply_file = tmp_path / "reply.md"
    reply_file.write_text(REPLY)
    page.set_input_files("#file-input", str(reply_file))  # type: ignore[attr-defined]
    page.wait_for_selector("#files .block")  # type: ignore[attr-defined]
    assert len(statuses(page)) == 4
    page.click("#cancel-review")  # type: ignore[attr-defined]
    page.wait_for_selector("#input-panel:not([hidden])")  # type: ignore[attr-defined]
    page.evaluate(  # type: ignore[attr-defined]
        """text => {
            const data = new DataTransfer();
            data.items.add(new File([text], "reply.md", { type: "text/markdown" }));
            for (const type of ["dragenter", "dragover", "drop"]) {
                window.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
            }
        }""",
        REPLY,
    )
    page.wait_for_selector("#files .block")  # type: ignore[attr-defined]
    assert statuses(page) == ["will_apply", "will_apply", "will_apply", "failed"]


def copied_feedback(page: object, selector: str) -> str:
    page.evaluate("navigator.clipboard.writeText('')")  # type: ignore[attr-defined]
    page.click(selector)  # type: ignore[attr-defined]
    # The text a read saw is the one returned: a second read could race with a later write.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        text = page.evaluate("navigator.clipboard.readText()")  # type: ignore[attr-defined]
        if text:
            return str(text)
        time.sleep(0.05)
    raise AssertionError("nothing was copied")


def test_copied_feedback_describes_the_files_as_they_are_when_copied(page: object, project: Path) -> None:
    paste_and_preview(page, REPLY)
    before = copied_feedback(page, "#copy-feedback-all")
    assert "Applied, do not send these again" not in before
    assert "These will apply as they are (not written yet)" in before and "- block 1 (shop/cart.py, line 11)" in before
    assert "Block 4 for README.md failed" in before
    assert (
        "the file contents below are current" in before
        and "A tiny shopping cart used by the editblocks demo." in before
    )
    # One block's button: that block's feedback only.
    alone = copied_feedback(page, "#block-3 .copy-feedback")
    assert "Block 4 for README.md failed" in alone and "block 1" not in alone

    page.click("#apply-all")  # type: ignore[attr-defined]
    wait_statuses(page, ["applied", "applied", "applied", "failed"])
    assert "def total(self, discount=0.0):" in (project / "shop/cart.py").read_text()
    after = copied_feedback(page, "#copy-feedback-all")
    assert "Applied, do not send these again:\n- block 1 (shop/cart.py, line 11)" in after
    assert "not written yet" not in after
    # The file changed on disk after the page was drawn: the copy says what is there now.
    (project / "README.md").write_text("# shop\n\nSomething else entirely.\n")
    changed = copied_feedback(page, "#block-3 .copy-feedback")
    assert "Something else entirely." in changed or "file contents below" not in changed


AMBIGUOUS = "import os\n\n\ndef a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n"
AMBIGUOUS_REPLY = (
    sr("shop/cart.py", "    def add(self, name, price, quantity=1):\n", "    def add(self, name, price, quantity=2):\n")
    + "\n"
    + sr("m.py", "    x = 1\n    return x\n", "    x = 2\n    return x\n")
)


def test_an_ambiguous_blocks_places_open_the_file_there(page: object, project: Path) -> None:
    (project / "m.py").write_text(AMBIGUOUS)
    paste_and_preview(page, AMBIGUOUS_REPLY)
    assert statuses(page) == ["will_apply", "failed"]
    reason = page.locator("#block-1 .reason-box")  # type: ignore[attr-defined]
    assert "matches at lines 5 and 10" in reason.inner_text()
    assert reason.locator(".place-link").all_inner_texts() == ["5", "10"]
    reason.locator('.place-link[data-line="10"]').click()
    page.wait_for_selector("#file-panel:not([hidden]) tr.target")  # type: ignore[attr-defined]
    assert page.inner_text("#file-panel-title") == "m.py"  # type: ignore[attr-defined]
    rows = page.eval_on_selector_all("#file-panel-body tr.target", "els => els.map(e => Number(e.dataset.o))")  # type: ignore[attr-defined]
    assert rows == [10, 11]
    page.click("#file-panel-close")  # type: ignore[attr-defined]
    # The path opens the file at this block's first place; the other block's change is not marked.
    page.click("#block-1 .block-path")  # type: ignore[attr-defined]
    page.wait_for_selector("#file-panel:not([hidden]) tr.target")  # type: ignore[attr-defined]
    assert page.eval_on_selector_all("#file-panel-body tr.target", "els => els.map(e => Number(e.dataset.o))") == [5, 6]  # type: ignore[attr-defined]
    page.click("#file-panel-close")  # type: ignore[attr-defined]
    page.click("#block-0 .block-path")  # type: ignore[attr-defined]
    page.wait_for_selector("#file-panel:not([hidden]) tr.target")  # type: ignore[attr-defined]
    assert page.inner_text("#file-panel-title") == "shop/cart.py"  # type: ignore[attr-defined]
    assert all("def add" in t for t in marked(page)) and len(marked(page)) == 2


def test_choose_the_place_of_an_ambiguous_block(page: object, project: Path, shots: Path) -> None:
    (project / "m.py").write_text(AMBIGUOUS)
    paste_and_preview(page, AMBIGUOUS_REPLY)
    places = page.locator("#block-1 .place")  # type: ignore[attr-defined]
    assert places.count() == 2
    assert "def a():" in places.nth(0).inner_text() and "def b():" in places.nth(1).inner_text()
    matched = page.eval_on_selector_all(
        "#block-1 .place:nth-child(2) tr.row-match", "els => els.map(e => Number(e.dataset.o))"
    )  # type: ignore[attr-defined]
    assert matched == [10, 11]
    snap(page, shots / "09-ambiguous-places.png")
    page.click('#block-1 .choose-place[data-line="10"]')  # type: ignore[attr-defined]
    wait_statuses(page, ["will_apply", "applied"])
    assert (project / "m.py").read_text() == AMBIGUOUS.replace("def b():\n    x = 1", "def b():\n    x = 2")
    assert (project / "shop/cart.py").read_text() == CART
    assert "Applied block #2 at line 10" in page.inner_text("#toast")  # type: ignore[attr-defined]


def decisions(page: object) -> list[str]:
    return page.eval_on_selector_all("#files .block", "els => els.map(e => e.dataset.decision || '')")  # type: ignore[attr-defined]


def test_accept_and_reject_blocks_then_apply_the_accepted(page: object, project: Path) -> None:
    paste_and_preview(page, REPLY)
    assert page.is_disabled("#apply-accepted")  # type: ignore[attr-defined]
    page.click("#block-2 .accept-block")  # type: ignore[attr-defined]
    page.click("#block-0 .reject-block")  # type: ignore[attr-defined]
    assert decisions(page) == ["reject", "", "accept", ""]
    assert page.get_attribute("#block-2 .accept-block", "aria-pressed") == "true"  # type: ignore[attr-defined]
    assert page.inner_text("#apply-accepted") == "Apply accepted (1 block)"  # type: ignore[attr-defined]
    assert page.inner_text("#apply-all") == "Apply all but rejected (2 blocks)"  # type: ignore[attr-defined]
    page.click("#apply-accepted")  # type: ignore[attr-defined]
    wait_statuses(page, ["will_apply", "will_apply", "applied", "failed"])
    assert (project / "tests/test_cart.py").exists() and (project / "shop/cart.py").read_text() == CART
    page.click("#apply-all")  # type: ignore[attr-defined]
    wait_statuses(page, ["will_apply", "applied", "applied", "failed"])
    cart = (project / "shop/cart.py").read_text()
    assert 'currency="$"' in cart and "discount" not in cart  # the rejected block is not written


def test_keys_move_between_blocks_accept_reject_and_list_themselves(page: object, project: Path) -> None:
    paste_and_preview(page, REPLY)
    page.keyboard.press("j")  # type: ignore[attr-defined]
    page.wait_for_selector("#block-0.current")  # type: ignore[attr-defined]
    page.keyboard.press("j")  # type: ignore[attr-defined]
    page.wait_for_selector("#block-1.current")  # type: ignore[attr-defined]
    page.keyboard.press("k")  # type: ignore[attr-defined]
    page.wait_for_selector("#block-0.current")  # type: ignore[attr-defined]
    page.keyboard.press("x")  # type: ignore[attr-defined]
    page.keyboard.press("j")  # type: ignore[attr-defined]
    page.keyboard.press("a")  # type: ignore[attr-defined]
    assert decisions(page) == ["reject", "accept", "", ""]
    page.keyboard.press("n")  # type: ignore[attr-defined]
    page.wait_for_selector("#block-3.current")  # type: ignore[attr-defined]
    assert page.evaluate("document.activeElement.id") == "block-3"  # type: ignore[attr-defined]
    page.keyboard.press("Shift+?")  # type: ignore[attr-defined]
    page.wait_for_selector("#keys-help:not([hidden])")  # type: ignore[attr-defined]
    help_text = page.inner_text("#keys-help")  # type: ignore[attr-defined]
    assert "next failed block" in help_text and "accept" in help_text and "reject" in help_text
    page.keyboard.press("Escape")  # type: ignore[attr-defined]
    page.wait_for_selector("#keys-help", state="hidden")  # type: ignore[attr-defined]
    # Keys typed in a text box are text, not commands.
    page.click("#block-3 .edit-manually")  # type: ignore[attr-defined]
    page.locator("#block-3 textarea.block-editor").press("End")  # type: ignore[attr-defined]
    page.keyboard.type("x")  # type: ignore[attr-defined]
    assert decisions(page)[3] == ""
    page.click("#apply-accepted")  # type: ignore[attr-defined]
    wait_statuses(page, ["will_apply", "applied", "will_apply", "failed"])
    assert "discount" not in (project / "shop/cart.py").read_text() and not (project / "tests").exists()


def test_a_tolerant_match_shows_the_search_text_beside_the_files_lines(
    page: object, project: Path, shots: Path
) -> None:
    (project / "w.py").write_text("import os\n\n\ndef f():\n    a = 1   \n    return a\n")
    paste_and_preview(page, sr("w.py", "def f():\n    a = 1\n    return a\n", "def f():\n    a = 2\n    return a\n"))
    assert statuses(page) == ["will_apply"]
    assert "Whitespace adjusted" in page.inner_text("#block-0 .block-head")  # type: ignore[attr-defined]
    page.click("#block-0 details.matched > summary")  # type: ignore[attr-defined]
    assert "lines 4\u20136" in page.inner_text("#block-0 details.matched > summary")  # type: ignore[attr-defined]
    search = page.eval_on_selector_all("#block-0 .matched-search td.line", "els => els.map(e => e.textContent)")  # type: ignore[attr-defined]
    file_lines = page.eval_on_selector_all(
        "#block-0 .matched-file tr",
        "els => els.map(e => [Number(e.dataset.n), e.querySelector('td.line').textContent])",
    )  # type: ignore[attr-defined]
    assert search == ["def f():", "    a = 1", "    return a"]
    assert file_lines == [[4, "def f():"], [5, "    a = 1   "], [6, "    return a"]]
    snap(page, shots / "10-tolerant-match.png")
    page.click("#apply-all")  # type: ignore[attr-defined]
    wait_statuses(page, ["applied"])
    assert (project / "w.py").read_text() == "import os\n\n\ndef f():\n    a = 2\n    return a\n"


def test_a_lazy_sketch_shows_its_runs_beside_the_files_lines(page: object, project: Path, shots: Path) -> None:
    page.select_option("#format-select", "lazy")  # type: ignore[attr-defined]
    paste_and_preview(page, LAZY_REPLY)
    assert statuses(page) == ["will_apply"]
    summary = page.inner_text("#block-0 details.anchors > summary")  # type: ignore[attr-defined]
    assert "2 runs anchored, 3 elisions kept the file's lines" in summary
    parts = page.eval_on_selector_all(  # type: ignore[attr-defined]
        "#block-0 .anchor", "els => els.map(e => [e.dataset.kind, e.dataset.sketch, e.dataset.file])"
    )
    assert parts == [[k, f"{a}-{b}", f"{c}-{d}"] for k, a, b, c, d in LAZY_PARTS]
    heads = page.eval_on_selector_all("#block-0 .anchor-file h4", "els => els.map(e => e.textContent)")  # type: ignore[attr-defined]
    assert heads[1] == "Anchored to file lines 4\u20138, changed"
    assert heads[0] == "Keeps file lines 1\u20133 as they are"
    run = page.eval_on_selector_all(  # type: ignore[attr-defined]
        "#block-0 .anchor-run >> nth=1 >> .anchor-file tr",
        "els => els.map(e => [Number(e.dataset.n), e.querySelector('td.line').textContent])",
    )
    cart = CART.split("\n")
    assert run == [[n, cart[n - 1]] for n in range(11, 19)]
    sketch = page.eval_on_selector_all(
        "#block-0 .anchor-run >> nth=1 >> .anchor-sketch td.line", "els => els.map(e => e.textContent)"
    )  # type: ignore[attr-defined]
    assert sketch[-4] == "        return round(total * (1 - self.discount), 2)"
    snap(page, shots / "11-lazy-anchors.png")
    page.click("#block-0 .anchor-run >> nth=1 >> .anchor-open")  # type: ignore[attr-defined]
    page.wait_for_selector("#file-panel-body tr.target")  # type: ignore[attr-defined]
    assert marked(page)[0] == "    def total(self):"
    page.click("#file-panel-close")  # type: ignore[attr-defined]
    page.click("#apply-all")  # type: ignore[attr-defined]
    wait_statuses(page, ["applied"])
    assert "self.discount = 0.0" in (project / "shop/cart.py").read_text()
    assert page.eval_on_selector_all("#block-0 .anchor", "els => els.length") == len(LAZY_PARTS)  # type: ignore[attr-defined]


def test_changed_words_are_marked_whole(page: object, project: Path) -> None:
    (project / "t.py").write_text("class C:\n    def f(self):\n        return self.total\n")
    paste_and_preview(page, sr("t.py", "        return self.total\n", "        return self.subtotal\n"))
    marks = page.eval_on_selector_all(  # type: ignore[attr-defined]
        "#block-0 tr.row-add .eb-chg, #block-0 tr.row-del .eb-chg", "els => els.map(e => e.textContent)"
    )
    assert marks == ["total", "subtotal"]
    page.click("#apply-all")  # type: ignore[attr-defined]
    wait_statuses(page, ["applied"])
    assert "return self.subtotal" in (project / "t.py").read_text()


CONTRAST_JS = """selector => {
    const rgb = (text) => {
        const [r, g, b, a] = text.match(/[\\d.]+/g).map(Number);
        return { rgb: [r, g, b], a: a === undefined ? 1 : a };
    };
    const background = (node) => {
        // the first opaque background from the node outwards (blending translucent ones)
        let layers = [];
        for (let n = node; n; n = n.parentElement) {
            const c = rgb(getComputedStyle(n).backgroundColor);
            if (c.a > 0) layers.push(c);
            if (c.a >= 1) break;
        }
        let out = [255, 255, 255];
        for (const c of layers.reverse()) out = out.map((v, i) => c.rgb[i] * c.a + v * (1 - c.a));
        return out;
    };
    const lum = ([r, g, b]) => {
        const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    return [...document.querySelectorAll(selector)].map((node) => {
        const fg = rgb(getComputedStyle(node).color).rgb;
        const [a, b] = [lum(fg), lum(background(node))].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05);
    });
}"""


def test_file_list_collapse_viewed_split_view_and_dark_theme(page: object, project: Path, shots: Path) -> None:
    paste_and_preview(page, REPLY)
    files = page.locator("#file-list li")  # type: ignore[attr-defined]
    assert files.count() == 3
    assert "2 will apply" in files.nth(0).inner_text() and "1 failed" in files.nth(2).inner_text()
    assert page.evaluate("getComputedStyle(document.querySelector('#file-list')).position") == "sticky"  # type: ignore[attr-defined]
    # Collapse a file, then mark another as viewed (which collapses it too).
    page.click('.file-group[data-path="shop/cart.py"] .collapse-file')  # type: ignore[attr-defined]
    assert page.get_attribute('.file-group[data-path="shop/cart.py"] .collapse-file', "aria-expanded") == "false"  # type: ignore[attr-defined]
    assert statuses(page) == ["will_apply", "failed"]
    page.check('.file-group[data-path="README.md"] .viewed-toggle')  # type: ignore[attr-defined]
    assert statuses(page) == ["will_apply"]
    assert page.is_checked('#file-list li[data-path="README.md"] .viewed-toggle')  # type: ignore[attr-defined]
    page.click('.file-group[data-path="shop/cart.py"] .collapse-file')  # type: ignore[attr-defined]
    page.uncheck('#file-list li[data-path="README.md"] .viewed-toggle')  # type: ignore[attr-defined]
    assert statuses(page) == ["will_apply", "will_apply", "will_apply", "failed"]
    # Side by side: the removed line faces the added one.
    page.click("#diff-split")  # type: ignore[attr-defined]
    row = page.locator("#block-0 table.split tr.row-change").first  # type: ignore[attr-defined]
    cells = row.locator("td.line").all_inner_texts()
    assert cells == ["    def total(self):", "    def total(self, discount=0.0):"]
    snap(page, shots / "11-side-by-side.png")
    page.click("#diff-unified")  # type: ignore[attr-defined]
    # Contrast of the gutter and the change marks, light and dark.
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)  # type: ignore[attr-defined]
        ratios = page.evaluate(CONTRAST_JS, "#files td.ln, #files .eb-chg, #files td.sign")  # type: ignore[attr-defined]
        assert ratios and min(ratios) >= 4.5, (scheme, min(ratios))
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(13, 17, 23)"  # type: ignore[attr-defined]
    snap(page, shots / "12-dark.png")
    assert (project / "shop/cart.py").read_text() == CART


def _axe_script() -> Path | str:
    """axe.min.js from npm, installed once into a cache folder; a str is the reason it is missing."""
    folder = Path(tempfile.gettempdir()) / "editblocks-test-axe-core"
    script = folder / "node_modules" / "axe-core" / "axe.min.js"
    if script.is_file():
        return script
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed, so axe-core cannot be fetched"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(folder), "axe-core"],
            capture_output=True,
            text=True,
            timeout=180,
        )
    except subprocess.TimeoutExpired:
        return "npm did not install axe-core within 3 minutes (is the registry reachable?)"
    if done.returncode != 0 or not script.is_file():
        return f"npm could not install axe-core (is the registry reachable?): {done.stderr.strip()[-300:]}"
    return script


@pytest.fixture(scope="module")
def axe_script() -> Path:
    found = _axe_script()
    if isinstance(found, str):
        pytest.skip(found)
    return found


def serious_violations(page: object, axe: Path) -> list[str]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):  # type: ignore[attr-defined]
        page.add_script_tag(path=str(axe))  # type: ignore[attr-defined]
    found = page.evaluate(  # type: ignore[attr-defined]
        """async () => {
            const result = await axe.run(document, { resultTypes: ["violations"] });
            return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
                .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
        }"""
    )
    return found


def test_the_page_passes_an_axe_core_check(
    browser: object, server: ReviewServer, project: Path, axe_script: Path
) -> None:
    (project / "m.py").write_text(AMBIGUOUS)
    (project / "w.py").write_text("def f():\n    a = 1   \n    return a\n")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)  # type: ignore[attr-defined]
    try:
        pg = context.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        pg.goto(server.url)
        pg.wait_for_selector("body[data-ready=true]")
        assert serious_violations(pg, axe_script) == []  # the empty page
        # Every text box has a label; files and blocks are headings.
        reply = (
            REPLY
            + "\n"
            + AMBIGUOUS_REPLY
            + "\n"
            + sr("w.py", "def f():\n    a = 1\n    return a\n", "def f():\n    a = 2\n    return a\n")
        )
        paste_and_preview(pg, reply)
        pg.click("#block-6 details.matched > summary")
        pg.click("#block-3 .edit-manually")
        assert pg.locator("h2.file-title").count() == 5 and pg.locator("#files h3.block-title").count() == 7
        for scheme in ("light", "dark"):
            pg.emulate_media(color_scheme=scheme)
            assert serious_violations(pg, axe_script) == [], scheme
            pg.click("#diff-split")
            assert serious_violations(pg, axe_script) == [], scheme
            pg.click("#diff-unified")
        pg.emulate_media(color_scheme="light")
        pg.click("#block-0 .block-path")
        pg.wait_for_selector("#file-panel:not([hidden]) tr.target")
        pg.keyboard.press("Shift+?")
        assert serious_violations(pg, axe_script) == []
    finally:
        context.close()


def start_cli(args: list[str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "EDITBLOCKS_NO_BROWSER": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "editblocks", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=env,
    )
    assert proc.stdout is not None
    for _ in range(20):
        line = proc.stdout.readline()
        if "?token=" in line:
            return proc, line.split("Open ", 1)[1].split(" ", 1)[0]
    proc.kill()
    raise AssertionError("the review page did not start")


def test_apply_review_reports_in_the_terminal_and_exits_when_done(
    browser: object, project: Path, tmp_path: Path
) -> None:
    reply = tmp_path / "reply.md"
    reply.write_text(REPLY)
    proc, url = start_cli(["apply", "--review", str(reply), "--root", str(project)], project)
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    try:
        pg = context.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        pg.goto(url)
        pg.wait_for_selector("body[data-ready=true]")
        wait_statuses(pg, ["will_apply", "will_apply", "will_apply", "failed"])
        pg.click('.apply-file[data-path="tests/test_cart.py"]')
        wait_statuses(pg, ["will_apply", "will_apply", "applied", "failed"])
        pg.wait_for_selector("#undo-button:not([disabled])")
        pg.click("#undo-button")
        wait_statuses(pg, ["will_apply", "will_apply", "will_apply", "failed"])
        pg.click("#apply-all")
        wait_statuses(pg, ["applied", "applied", "applied", "failed"])
        pg.click("#done-button")
        pg.wait_for_selector("body[data-finished=true]")
        assert "exit status 1" in pg.inner_text("#finished")
        out, _ = proc.communicate(timeout=20)
    finally:
        context.close()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, out
    assert "Applied block 3: wrote tests/test_cart.py" in out
    assert "Undid apply #1: deleted tests/test_cart.py" in out
    assert "Applied blocks 1, 2, 3: wrote shop/cart.py, tests/test_cart.py" in out
    assert "Done on the page: 3 of 4 blocks applied; exiting with status 1" in out
    assert "def total(self, discount=0.0):" in (project / "shop/cart.py").read_text()
    assert (project / "README.md").read_text() == README


def test_apply_review_exits_0_when_every_block_applied(browser: object, project: Path, tmp_path: Path) -> None:
    reply = tmp_path / "reply.md"
    reply.write_text(TOTAL_BLOCK)
    proc, url = start_cli(["apply", "--review", str(reply), "--root", str(project)], project)
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    try:
        pg = context.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        pg.goto(url)
        pg.wait_for_selector("body[data-ready=true]")
        wait_statuses(pg, ["will_apply"])
        pg.click("#apply-all")
        wait_statuses(pg, ["applied"])
        pg.click("#done-button")
        pg.wait_for_selector("body[data-finished=true]")
        out, _ = proc.communicate(timeout=20)
    finally:
        context.close()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert "Done on the page: 1 of 1 block applied; exiting with status 0" in out
    assert "def total(self, discount=0.0):" in (project / "shop/cart.py").read_text()


def test_a_review_has_an_address_that_survives_a_reload(page: object, project: Path) -> None:
    paste_and_preview(page, REPLY)
    address = page.evaluate("location.hash")  # type: ignore[attr-defined]
    assert address.startswith("#/review/") and len(address) > len("#/review/")
    review_id = address.rsplit("/", 1)[1]
    page.click("#block-2 .apply-block")  # type: ignore[attr-defined]
    wait_statuses(page, ["will_apply", "will_apply", "applied", "failed"])
    page.reload()  # type: ignore[attr-defined]
    page.wait_for_selector("body[data-ready=true]")  # type: ignore[attr-defined]
    wait_statuses(page, ["will_apply", "will_apply", "applied", "failed"])
    assert page.evaluate("location.hash") == f"#/review/{review_id}"  # type: ignore[attr-defined]
    assert page.is_hidden("#input-panel")  # type: ignore[attr-defined]
    # Opened in a new tab from its address.
    other = page.context.new_page()  # type: ignore[attr-defined]
    other.goto(page.url)
    other.wait_for_selector("body[data-ready=true]")
    wait_statuses(other, ["will_apply", "will_apply", "applied", "failed"])
    other.close()
    page.click("#cancel-review")  # type: ignore[attr-defined]
    page.wait_for_selector("#input-panel:not([hidden])")  # type: ignore[attr-defined]
    assert page.evaluate("location.hash") == ""  # type: ignore[attr-defined]
    assert (project / "tests/test_cart.py").exists() and (project / "shop/cart.py").read_text() == CART


def test_a_long_reply_is_shown_a_page_at_a_time(page: object, project: Path) -> None:
    parts = []
    for f in range(5):
        lines = [f"value_{f}_{i} = {i}\n" for i in range(50)]
        (project / f"f{f}.py").write_text("".join(lines))
        parts += [sr(f"f{f}.py", line, line.replace(" = ", " = 1 + ")) for line in lines]
    page.evaluate("text => { document.querySelector('#reply-input').value = text; }", "\n".join(parts))  # type: ignore[attr-defined]
    page.click("#preview-button")  # type: ignore[attr-defined]
    page.wait_for_selector("#files .block", timeout=30_000)  # type: ignore[attr-defined]
    assert page.locator("#files .block").count() == 100  # type: ignore[attr-defined]
    assert "Blocks 1\u2013100 of 250 (page 1 of 3)" in page.inner_text("#page-info")  # type: ignore[attr-defined]
    assert "50 will apply" in page.inner_text('#file-list li[data-path="f4.py"]')  # type: ignore[attr-defined]
    page.click("#page-next")  # type: ignore[attr-defined]
    page.wait_for_selector("#block-100")  # type: ignore[attr-defined]
    assert page.locator("#block-0").count() == 0 and page.locator("#files .block").count() == 100  # type: ignore[attr-defined]
    # The keys cross pages: k from the first block of page 2 goes to the last of page 1.
    page.keyboard.press("j")  # type: ignore[attr-defined]
    page.wait_for_selector("#block-100.current")  # type: ignore[attr-defined]
    page.keyboard.press("k")  # type: ignore[attr-defined]
    page.wait_for_selector("#block-99.current")  # type: ignore[attr-defined]
    assert "page 1 of 3" in page.inner_text("#page-info")  # type: ignore[attr-defined]
    # The file list goes to a file on another page.
    page.click('#file-list li[data-path="f4.py"] .file-list-path')  # type: ignore[attr-defined]
    page.wait_for_selector("#block-200")  # type: ignore[attr-defined]
    page.click("#apply-all")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelectorAll('#files .block[data-status=applied]').length === 50")  # type: ignore[attr-defined]
    assert all(" = 1 + " in line for f in range(5) for line in (project / f"f{f}.py").read_text().splitlines())
