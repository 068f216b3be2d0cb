"""How fast the review page shows a very long reply: 20,000 blocks (2,000 with ``--quick``).

What it measures, in a real headless Chromium (Debian's ``/usr/bin/chromium`` or
``$EDITBLOCKS_CHROMIUM``) driven by Playwright, against a real server on 127.0.0.1:

* **server** - ``Review`` made from the reply (parsing) and its first view (a dry run of every
  block, the diffs of the first page), in this process, without the browser;
* **preview** - from pressing Preview edits to the first page of blocks on screen (the request,
  the server's work, the JSON, the page drawing it). The target is 3 s for 20,000 blocks;
* **next page** - from pressing Next to the next page of blocks on screen;
* **key j** - moving to the next block with the keyboard.

The page shows a page of blocks at a time (with their diffs) and every block's status, so what
it draws does not grow with the reply. A missed target is reported, not fatal; a page that shows
the wrong blocks makes the script exit with status 1.

Run::

    python benchmarks/bench_review_page.py            # 20,000 blocks
    python benchmarks/bench_review_page.py --quick    # 2,000 blocks (CI)
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 3.0
FILES = 200


def make(root: Path, blocks: int) -> str:
    """A project of FILES files and a reply of ``blocks`` exact blocks spread over them."""
    per_file = max(1, blocks // FILES)
    parts = []
    for f in range(FILES):
        lines = [f"value_{f}_{i} = {i}\n" for i in range(per_file)]
        (root / f"f{f:03}.py").write_text("".join(lines))
        for line in lines:
            new = line.replace(" = ", " = 1 + ")
            parts.append(f"f{f:03}.py\n```python\n<<<<<<< SEARCH\n{line}=======\n{new}>>>>>>> REPLACE\n```\n")
    return "\n".join(parts)


def chromium() -> str | None:
    for candidate in [os.environ.get("EDITBLOCKS_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")]:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2,000 blocks instead of 20,000")
    parser.add_argument("--blocks", type=int, default=None, help="this many blocks")
    args = parser.parse_args()
    count = args.blocks or (2_000 if args.quick else 20_000)

    from editblocks.web.review import PAGE_SIZE, Review
    from editblocks.web.server import ReviewServer

    root = Path(tempfile.mkdtemp(prefix="editblocks-bench-review-"))
    try:
        reply = make(root, count)
        total = len(Review(root, "").slots)  # warm the imports
        start = time.perf_counter()
        review = Review(root, reply)
        made = time.perf_counter() - start
        start = time.perf_counter()
        view = review.view()
        viewed = time.perf_counter() - start
        total = view["summary"]["total"]
        print(
            f"review page benchmark: {total} blocks in {FILES} files, {len(reply) / 1e6:.1f} MB reply; load {os.getloadavg()[0]:.2f}"
        )
        print(f"  server: parse {made:.2f} s, first view {viewed:.2f} s ({len(view['blocks'])} blocks in full)")
        if total != count:
            print(f"FAIL: {total} blocks found, {count} expected")
            return 1

        binary = chromium()
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            binary = None
        if binary is None:
            print("  browser: skipped (needs Chromium and Playwright: pip install -e '.[test]')")
            return 0
        server = ReviewServer(root, port=0).start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=binary, args=["--headless", "--no-sandbox", "--disable-gpu"]
                )
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.set_default_timeout(120_000)
                page.goto(server.url)
                page.wait_for_selector("body[data-ready=true]")
                # The pasted reply is on screen (laid out) before Preview is pressed.
                page.evaluate(
                    "async text => { document.querySelector('#reply-input').value = text;"
                    " await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0))); }",
                    reply,
                )
                start = time.perf_counter()
                page.click("#preview-button")
                page.wait_for_selector("#files .block")
                page.wait_for_selector("#pager:not([hidden])" if total > PAGE_SIZE else "#files .block")
                shown = time.perf_counter() - start
                cards = page.locator("#files .block").count()
                start = time.perf_counter()
                if total > PAGE_SIZE:
                    first = page.eval_on_selector("#files .block", "e => e.id")
                    page.click("#page-next")
                    page.wait_for_function("first => document.querySelector('#files .block').id !== first", arg=first)
                next_page = time.perf_counter() - start
                start = time.perf_counter()
                page.keyboard.press("j")
                page.wait_for_selector("#files .block.current")
                key = time.perf_counter() - start
                browser.close()
        finally:
            server.stop()
        verdict = "ok" if shown <= TARGET_SECONDS else f"SLOW (target {TARGET_SECONDS:.0f} s)"
        print(f"  preview: {shown:.2f} s to the first page on screen ({cards} blocks drawn) - {verdict}")
        print(f"  next page: {next_page:.2f} s; key j: {key * 1000:.0f} ms")
        if cards != min(total, PAGE_SIZE):
            print(f"FAIL: {cards} blocks drawn, {min(total, PAGE_SIZE)} expected")
            return 1
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
