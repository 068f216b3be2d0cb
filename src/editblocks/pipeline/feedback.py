"""The message sent back to the model when blocks failed: what failed, why, and the lines to copy."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from editblocks.quoting import choose_fence
from editblocks.status import EditStatus

if TYPE_CHECKING:
    from editblocks.models import ApplyResult, EditBlock, EditResult, ParseWarning

MAX_QUOTED_LINES = 20
MAX_TOTAL_QUOTED_LINES = 120
MAX_LISTED_WARNINGS = 20


def feedback_message(result: ApplyResult, *, pending: Collection[int] = (), only: int | None = None) -> str:
    """One text for the model: failed blocks with their reasons and the file's actual lines,
    skipped blocks, and the blocks that applied and must not be sent again.

    ``pending``: 0-based indices of results that would apply but are not written yet (a preview,
    such as the review page's before Apply): they are listed as blocks that will apply, not as
    applied. ``only``: the message for that one block (0-based), as its own Copy feedback gives.

    Returns an empty string when every block applied.
    """
    if only is not None:
        return _one_block(result, only, set(pending))
    waiting = set(pending)
    failed = [(i, r) for i, r in enumerate(result.results, 1) if r.status is EditStatus.FAILED]
    skipped = [
        (i, r) for i, r in enumerate(result.results, 1) if r.status is EditStatus.SKIPPED and not r.already_applied
    ]
    applying = [(i, r) for i, r in enumerate(result.results, 1) if r.status is EditStatus.APPLIED and i - 1 in waiting]
    done = [
        (i, r)
        for i, r in enumerate(result.results, 1)
        if (r.status is EditStatus.APPLIED and i - 1 not in waiting) or r.already_applied
    ]
    broken = [m for path, m in result.syntax_problems.items() if path not in {r.file_path for _, r in failed}]
    problems = result.reply_problems
    if not failed and not skipped:
        if not broken and not problems:
            return ""
        first = "Every complete edit block applied (do not send them again), but:"
        if applying:
            first = "Every complete edit block will apply (do not send them again), but:"
        parts = [first]
        if problems:
            parts.append(
                "The reply has blocks that could not be read (cut off or malformed); send them again, complete:\n"
                + _listed(problems)
            )
        if broken:
            parts.append(
                "The result does not parse:\n" + "\n".join(f"- {m}" for m in broken) + "\nSend blocks that fix this."
            )
        return "\n\n".join(parts) + "\n"
    total = len(result.results)
    budget = MAX_TOTAL_QUOTED_LINES
    sections: list[str] = []
    quoted = 0
    for i, r in failed:
        section, used = _failed_section(i, r, budget)
        budget -= used
        quoted += used
        sections.append(section)
    changed = _changed_sections(result, {r.file_path for _, r in failed}, budget)
    parts = [
        f"{len(failed)} of {total} edit block{'s' if total != 1 else ''} failed to apply"
        + (f" and {len(skipped)} {'were' if len(skipped) != 1 else 'was'} skipped" if skipped else "")
        + ". Send corrected blocks for these only"
        + ("; the file contents below are current." if quoted or changed else ".")
    ]
    parts.extend(sections)
    if changed:
        parts.append(
            "The lines the blocks that applied changed in these files, as they are now "
            "(a corrected block must match them, not the old text):\n" + "\n".join(changed)
        )
    if skipped:
        lines = [f"- block {i} ({r.file_path}): {r.reason}" for i, r in skipped]
        parts.append("Skipped, send again once the failed block before it is fixed:\n" + "\n".join(lines))
    if applying:
        parts.append(
            "These will apply as they are (not written yet), do not send them again:\n"
            + "\n".join(_done_lines(applying))
        )
    if done:
        parts.append("Applied, do not send these again:\n" + "\n".join(_done_lines(done)))
    if broken:
        parts.append("The result does not parse:\n" + "\n".join(f"- {m}" for m in broken))
    if result.warnings:
        parts.append("Problems in the reply itself:\n" + _listed(result.warnings))
    return "\n\n".join(parts) + "\n"


def _done_lines(done: list[tuple[int, EditResult]]) -> list[str]:
    return [
        f"- block {i} ({r.file_path}{'' if r.estimated_line is None else f', line {r.estimated_line}'})"
        + (" was already applied" if r.already_applied else "")
        for i, r in done
    ]


def _one_block(result: ApplyResult, index: int, pending: set[int]) -> str:
    """The feedback for block ``index`` (0-based) alone."""
    r = result.results[index]
    number = index + 1
    where = f"{r.file_path}{'' if r.estimated_line is None else f', line {r.estimated_line}'}"
    if r.status is EditStatus.FAILED:
        section, used = _failed_section(number, r, MAX_TOTAL_QUOTED_LINES)
        ask = "Send a corrected block for it" + ("; the file contents below are current." if used else ".")
        return f"Block {number} of the reply failed to apply. {ask}\n\n{section}\n"
    if r.already_applied:
        return f"Block {number} ({where}) was already applied; do not send it again.\n"
    if r.status is EditStatus.SKIPPED:
        return f"Block {number} ({r.file_path}) was skipped: {r.reason}\nSend it again once the failed block before it is fixed.\n"
    if index in pending:
        return f"Block {number} ({where}) will apply as it is (not written yet); do not send it again.\n"
    return f"Block {number} ({where}) was applied; do not send it again.\n"


def _listed(warnings: list[ParseWarning]) -> str:
    shown = [f"- line {w.line}: {w.message}" for w in warnings[:MAX_LISTED_WARNINGS]]
    if len(warnings) > MAX_LISTED_WARNINGS:
        shown.append(f"- and {len(warnings) - MAX_LISTED_WARNINGS} more")
    return "\n".join(shown)


def _failed_section(index: int, r: EditResult, budget: int) -> tuple[str, int]:
    head = f"## Block {index} for {r.file_path} failed (reply line {r.reply_line})\n{r.reason}"
    if r.candidates and len(r.candidates) > 1 and "ambiguous" in (r.reason or ""):
        head += "\nAdd lines that differ between these places so the SEARCH text occurs only once."
        if r.candidate_texts:
            shown = []
            for start, text in zip(r.candidates, r.candidate_texts):
                fence = choose_fence(text)
                shown.append(f"The file's lines at line {start} (current, numbered):\n{fence}\n{text}{fence}")
            head += "\n" + "\n".join(shown)
            return head, sum(t.count("\n") for t in r.candidate_texts)
    if not r.closest_text or budget <= 0:
        return head, 0
    lines = r.closest_text.split("\n")[:-1][: min(MAX_QUOTED_LINES, budget)]
    text = "".join(line + "\n" for line in lines)
    fence = choose_fence(text)
    first, last = r.closest_region or (0, 0)
    cut = " (cut)" if len(lines) < (last - first + 1) else ""
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    return (
        f"{head}\nThe file's actual {where}{cut}; copy {'it' if first == last else 'them'} exactly into the SEARCH section:\n"
        f"{fence}\n{text}{fence}",
        len(lines),
    )


def _changed_sections(result: ApplyResult, files: set[str], budget: int) -> list[str]:
    """For each applied block of a file that also has a failed block: its lines as they are now,
    numbered (after a partly applied reply the file is no longer what the model saw)."""
    out: list[str] = []
    for i, r in enumerate(result.results, 1):
        if budget <= 0:
            break
        if r.status is not EditStatus.APPLIED or r.file_path not in files:
            continue
        text = result.after.get(r.file_path)
        start = _current_line(text, r.block) if text else None
        if text is None or start is None:
            continue
        count = min(
            max((r.block.anchor + r.block.new_lines + r.block.trailing_anchor).count("\n"), 1), MAX_QUOTED_LINES, budget
        )
        shown = numbered_regions(text, [start], count)[0]
        budget -= shown.count("\n")
        fence = choose_fence(shown)
        out.append(f"Block {i} changed {r.file_path} at line {start} (current, numbered):\n{fence}\n{shown}{fence}")
    return out


def _current_line(text: str, block: EditBlock) -> int | None:
    """The 1-based line of ``text`` where ``block``'s replacement stands (None when not found once)."""
    new = block.anchor + block.new_lines + block.trailing_anchor
    if not new.strip():
        return None
    at = text.find(new)
    if at >= 0 and text.find(new, at + 1) < 0 and (at == 0 or text[at - 1] == "\n"):
        return text.count("\n", 0, at) + 1
    # Placed with other indentation (a tolerant match): compare the lines without it.
    wanted = [line.strip() for line in new.split("\n")[:-1] if line.strip()]
    lines = text.split("\n")
    found = [
        n + 1
        for n, line in enumerate(lines)
        if line.strip() == wanted[0]
        and [x.strip() for x in lines[n : n + len(wanted) * 2] if x.strip()][: len(wanted)] == wanted
    ]
    return found[0] if len(found) == 1 else None


MAX_CANDIDATES_SHOWN = 5


def numbered_regions(text: str, starts: list[int], count: int) -> list[str]:
    """The file's lines at each 1-based line of ``starts``: the ``count`` lines matched there and
    one line on each side, numbered."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    width = len(str(min(len(lines), max(starts, default=1) + count)))
    return [
        "".join(
            f"{n:>{width}} | {lines[n - 1]}\n" for n in range(max(1, start - 1), min(start + count, len(lines)) + 1)
        )
        for start in starts[:MAX_CANDIDATES_SHOWN]
    ]
