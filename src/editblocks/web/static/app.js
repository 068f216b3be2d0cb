// The editblocks review page. It only shows what the server's JSON API says: parsing, matching
// and writing all happen on the server. Text from replies and files is put in the page with
// textContent; the one exception is a diff row's "h" field, HTML that the server builds from
// escaped text (syntax highlighting and change marks).
"use strict";

const STATUS_TEXT = {
  will_apply: "will apply",
  applied: "applied",
  failed: "failed",
  skipped: "skipped",
  already_applied: "already applied",
};
const LONG_REPLY_CHARS = 200000;
const STATUS_ORDER = ["will_apply", "applied", "failed", "skipped", "already_applied"];

const state = {
  view: null,          // the review shown
  live: null,          // the last live payload
  showingLive: false,  // the review shown is the live reply
  editors: new Map(),  // block index -> {textarea, seq}
  decisions: new Map(),  // block index -> "accept" | "reject" (the person's choice before Apply)
  current: null,       // the block index the keys act on (j/k/n/a/x)
  collapsed: new Set(),  // file paths whose blocks are hidden
  viewed: new Set(),   // file paths marked as viewed (kept for the review in this browser)
  sideBySide: localStorage.getItem("editblocks-diff-mode") === "split",
  busy: false,
};

// -- small helpers -------------------------------------------------------------------------

function $(id) { return document.getElementById(id); }

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key === "dataset") Object.assign(node.dataset, value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(method, url, body) {
  const options = { method, headers: { "Accept": "application/json" } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    throw new Error((data && data.error) || `${response.status} ${response.statusText}`);
  }
  return data;
}

let toastTimer = null;
function toast(message, kind) {
  const box = $("toast");
  box.textContent = message;
  box.className = "show " + (kind || "");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.className = ""; }, kind === "error" ? 7000 : 3500);
}

async function copyText(text, what) {
  let ok = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      ok = true;
    }
  } catch (e) { ok = false; }
  if (!ok) {
    const area = el("textarea", { class: "offscreen", readonly: true });
    area.value = text;
    document.body.append(area);
    area.select();
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    area.remove();
  }
  document.body.dataset.copied = text;
  toast(ok ? `${what} copied` : `Could not copy ${what.toLowerCase()}; select it and copy by hand`, ok ? "" : "error");
}

// The message for the model as the files are now (the server re-checks them), for the whole
// reply or for one block.
async function copyFeedback(index) {
  if (!state.view) return;
  const query = index === null ? "" : `?block=${index}`;
  let text;
  try {
    const data = await api("GET", `/api/reviews/${encodeURIComponent(state.view.id)}/feedback${query}`);
    text = data.feedback;
  } catch (e) { toast(e.message, "error"); return; }
  if (!text) { toast("Nothing to tell the model: every block applies"); return; }
  await copyText(text, "Feedback for the model");
}

function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

async function guarded(action) {
  if (state.busy) return;
  state.busy = true;
  document.body.classList.add("busy");
  try { await action(); }
  catch (e) { toast(e.message, "error"); }
  finally {
    state.busy = false;
    document.body.classList.remove("busy");
  }
}

// -- diff rows -------------------------------------------------------------------------------

function codeTable(rows, options) {
  const numbers = !options || options.numbers !== false;
  if (state.sideBySide && numbers && options && options.split && rows.some((r) => r.t === "add" || r.t === "del")) {
    return splitTable(rows);
  }
  const table = el("table", { class: "code hl" + (numbers ? "" : " no-numbers") });
  const body = el("tbody");
  for (const row of rows) {
    const sign = { add: "+", del: "-", ctx: " ", hunk: "" }[row.t] || "";
    const tr = el("tr", { class: "row-" + row.t });
    if (row.o !== null && row.o !== undefined) tr.dataset.o = row.o;
    if (row.n !== null && row.n !== undefined) tr.dataset.n = row.n;
    if (numbers) {
      tr.append(el("td", { class: "ln", text: row.o ?? "" }), el("td", { class: "ln", text: row.n ?? "" }));
    }
    tr.append(el("td", { class: "sign", text: sign }));
    const code = el("td", { class: "line" });
    code.innerHTML = row.h;  // server-built HTML of escaped text (see the note at the top)
    tr.append(code);
    body.append(tr);
  }
  table.append(body);
  return table;
}

// The same rows side by side: the file as it is on the left, as it will be on the right; a
// change's removed and added lines face each other.
function splitTable(rows) {
  const table = el("table", { class: "code hl split" });
  const body = el("tbody");
  const cell = (row, side) => {
    if (!row) return [el("td", { class: "ln empty" }), el("td", { class: "line empty" })];
    const code = el("td", { class: "line" });
    code.innerHTML = row.h;  // server-built HTML of escaped text (see the note at the top)
    return [el("td", { class: "ln", text: (side === "o" ? row.o : row.n) ?? "" }), code];
  };
  const emit = (left, right, kind) => {
    const tr = el("tr", { class: "row-" + kind });
    if (left && left.o !== null && left.o !== undefined) tr.dataset.o = left.o;
    if (right && right.n !== null && right.n !== undefined) tr.dataset.n = right.n;
    const [lnA, codeA] = cell(left, "o");
    const [lnB, codeB] = cell(right, "n");
    if (kind === "change") { codeA.classList.add("side-del"); lnA.classList.add("side-del"); codeB.classList.add("side-add"); lnB.classList.add("side-add"); }
    tr.append(lnA, codeA, lnB, codeB);
    body.append(tr);
  };
  let k = 0;
  while (k < rows.length) {
    const row = rows[k];
    if (row.t === "hunk") {
      const tr = el("tr", { class: "row-hunk" });
      const td = el("td", { colspan: 4 });
      td.innerHTML = row.h;
      tr.append(td);
      body.append(tr);
      k += 1;
    } else if (row.t === "ctx") {
      emit(row, row, "ctx");
      k += 1;
    } else {
      const dels = [];
      const adds = [];
      while (k < rows.length && rows[k].t === "del") dels.push(rows[k++]);
      while (k < rows.length && rows[k].t === "add") adds.push(rows[k++]);
      for (let m = 0; m < Math.max(dels.length, adds.length); m++) emit(dels[m], adds[m], "change");
    }
  }
  table.append(body);
  return table;
}

function setDiffMode(split) {
  state.sideBySide = split;
  localStorage.setItem("editblocks-diff-mode", split ? "split" : "unified");
  if (state.view) renderView(state.view);
}

function loadViewed(view) {
  state.viewed = new Set(JSON.parse(localStorage.getItem(`editblocks-viewed-${view.id}`) || "[]"));
}

function setViewed(path, viewed) {
  if (viewed) { state.viewed.add(path); state.collapsed.add(path); }
  else { state.viewed.delete(path); state.collapsed.delete(path); }
  if (state.view) localStorage.setItem(`editblocks-viewed-${state.view.id}`, JSON.stringify([...state.viewed]));
  renderView(state.view);
}

function toggleCollapsed(path) {
  if (state.collapsed.has(path)) state.collapsed.delete(path);
  else state.collapsed.add(path);
  renderView(state.view);
}

// The sticky list of the reply's files: counts per status, viewed marks; a click goes to the file.
function renderFileList(view) {
  const box = $("file-list");
  box.replaceChildren(el("h2", { class: "file-list-title", text: `Files (${view.files.length})` }));
  const list = el("ul");
  for (const file of view.files) {
    const chips = STATUS_ORDER.filter((s) => file.counts[s]).map((s) =>
      el("span", { class: `mini badge-${s}`, title: `${file.counts[s]} ${STATUS_TEXT[s]}` }, `${file.counts[s]} ${STATUS_TEXT[s]}`));
    const viewedId = `viewed-list-${view.files.indexOf(file)}`;
    list.append(el("li", { class: state.viewed.has(file.path) ? "viewed" : "", dataset: { path: file.path } },
      el("button", { type: "button", class: "path-link file-list-path", title: file.path, onclick: () => goToFile(file) }, file.path),
      el("span", { class: "file-list-counts" }, ...chips),
      el("span", { class: "file-list-viewed" },
        el("input", { type: "checkbox", id: viewedId, class: "viewed-toggle", checked: state.viewed.has(file.path),
          onchange: (e) => setViewed(file.path, e.target.checked) }),
        el("label", { for: viewedId, text: "viewed" }))));
  }
  box.append(list);
}

function goToFile(file) {
  const group = document.querySelector(`.file-group[data-path="${CSS.escape(file.path)}"]`);
  if (group) { group.scrollIntoView({ block: "start" }); window.scrollBy(0, -60); return; }
  goToBlock(file.blocks[0]);
}

// -- the review ------------------------------------------------------------------------------

function renderView(view) {
  const active = document.activeElement;
  let focus = null;
  for (const [index, editor] of state.editors) {
    if (editor.textarea === active) {
      focus = { index, start: active.selectionStart, end: active.selectionEnd, scroll: active.scrollTop };
    }
  }
  if (!state.view || state.view.id !== view.id) loadViewed(view);
  state.view = view;
  const address = `#/review/${encodeURIComponent(view.id)}`;
  if (location.hash !== address) history.replaceState(null, "", address);
  $("input-panel").hidden = true;
  $("review").hidden = false;
  $("new-reply").hidden = false;
  renderSummary(view);
  renderWarnings(view);
  renderFiles(view);
  renderFileList(view);
  renderShell(view);
  renderUndo(view.undo);
  if (focus) {
    const editor = state.editors.get(focus.index);
    if (editor) {
      editor.textarea.focus();
      editor.textarea.setSelectionRange(focus.start, focus.end);
      editor.textarea.scrollTop = focus.scroll;
    }
  }
}

function renderSummary(view) {
  const box = $("summary");
  box.replaceChildren();
  const s = view.summary;
  const counts = s.counts;
  const anyApplied = counts.applied > 0;
  const pending = counts.will_apply;
  const accepted = decided(view, "accept");
  const rejected = decided(view, "reject");
  let headline;
  if (!view.done) headline = "Reply still arriving; blocks appear as they complete.";
  else if (s.total === 0) headline = "No edit blocks found in this reply.";
  else if (anyApplied && pending === 0) headline = "Edits written.";
  else if (anyApplied) headline = "Some edits written; the rest are previews.";
  else headline = "Preview: nothing has been written yet.";
  box.className = "summary" + (counts.failed ? " has-failures" : "") + (anyApplied ? " has-applied" : "");

  const chips = el("div", { class: "counts" });
  for (const status of STATUS_ORDER) {
    const n = counts[status];
    if (!n) continue;
    chips.append(el("span", { class: `count badge badge-${status}`, dataset: { status } }, `${n} ${STATUS_TEXT[status]}`));
  }
  const actions = el("div", { class: "actions" });
  actions.append(
    el("button", {
      type: "button", class: "btn" + (accepted.length ? " primary" : ""), id: "apply-accepted",
      disabled: !view.done || accepted.length === 0,
      title: "Write the blocks you accepted (key a accepts, x rejects)",
      onclick: () => applySelection({ blocks: accepted }, "the accepted blocks"),
    }, accepted.length ? `Apply accepted (${plural(accepted.length, "block")})` : "Apply accepted"),
    el("button", {
      type: "button", class: "btn" + (accepted.length ? "" : " primary"), id: "apply-all",
      disabled: !view.done || pending - rejected.length === 0,
      onclick: () => applySelection(rejected.length ? { blocks: pendingNotRejected(view) } : { all: true }, "all pending blocks"),
    }, rejected.length ? `Apply all but rejected (${plural(pending - rejected.length, "block")})`
      : pending ? `Apply all (${plural(pending, "block")})` : "Apply all"),
    el("button", {
      type: "button", class: "btn", id: "cancel-review",
      onclick: cancelReview,
      title: "Forget this reply; no file is written",
    }, anyApplied ? "Close" : "Cancel"),
  );
  if (view.feedback) {
    actions.append(el("button", {
      type: "button", class: "btn", id: "copy-feedback-all",
      onclick: () => copyFeedback(null),
    }, "Copy feedback for the model"));
  }
  const mode = el("div", { class: "diff-mode", role: "group", "aria-label": "Diff layout" },
    el("button", { type: "button", class: "btn small", id: "diff-unified", "aria-pressed": state.sideBySide ? "false" : "true", onclick: () => setDiffMode(false) }, "Unified"),
    el("button", { type: "button", class: "btn small", id: "diff-split", "aria-pressed": state.sideBySide ? "true" : "false", onclick: () => setDiffMode(true) }, "Side by side"));
  box.append(el("div", { class: "summary-head" }, el("strong", { text: headline }), chips, el("span", { class: "spacer" }), mode, actions));

  const fileLine = (label, paths, cls) => {
    if (!paths.length) return null;
    const line = el("div", { class: "summary-files" }, el("span", { class: "muted", text: label }));
    for (const path of paths) {
      line.append(el("button", { type: "button", class: `file-chip ${cls}`, onclick: () => openFile(path) }, path));
    }
    return line;
  };
  const applied = fileLine("Modified:", s.files_applied, "chip-applied");
  const pendingFiles = fileLine(anyApplied ? "Would still change:" : "Will change:", s.files_pending, "chip-pending");
  if (applied) box.append(applied);
  if (pendingFiles) box.append(pendingFiles);

  if (s.failures.length) {
    const list = el("div", { class: "failures" });
    for (const f of s.failures) {
      const item = el("div", { class: "failure" });
      item.append(el("div", { class: "failure-head" },
        el("span", { class: "badge badge-failed", text: "failed" }),
        el("a", { href: `#block-${f.index}`, class: "block-ref", text: `#${f.index + 1}` }),
        el("button", {
          type: "button", class: "path-link",
          onclick: () => {
            const b = state.view.blocks.find((x) => x.index === f.index);
            if (b) openBlock(b); else openFile(f.file_path);
          },
        }, f.file_path),
        el("span", { class: "reason", text: f.reason || "" })));
      if (f.similar_line) {
        item.append(el("div", { class: "similar", text: `Similar code found at line ${f.similar_line}:` }));
        if (f.closest.length) item.append(codeTable(f.closest));
      }
      list.append(item);
    }
    box.append(list);
  }
}

// Blocks still pending that the person accepted (or rejected).
function decided(view, kind) {
  return [...state.decisions].filter(([i, d]) => d === kind && view.statuses[i] === "will_apply").map(([i]) => i).sort((a, b) => a - b);
}

function pendingNotRejected(view) {
  return view.statuses.map((s, i) => (s === "will_apply" && state.decisions.get(i) !== "reject" ? i : -1)).filter((i) => i >= 0);
}

function decide(index, kind) {
  if (!state.view || state.view.statuses[index] !== "will_apply") return;
  if (state.decisions.get(index) === kind) state.decisions.delete(index);
  else state.decisions.set(index, kind);
  state.current = index;
  renderView(state.view);
  focusBlock(index);
}

function renderWarnings(view) {
  const box = $("warnings");
  box.replaceChildren();
  if (!view.warnings.length) return;
  const list = el("ul", { class: "warnings" });
  for (const w of view.warnings) {
    list.append(el("li", null, el("span", { class: "badge badge-warning", text: "warning" }),
      w.line ? ` reply line ${w.line}: ` : " ", w.message));
  }
  box.append(list);
}

// The blocks in the order the page lists them (by file), over every page.
function blockOrder(view) {
  return view.files.flatMap((f) => f.blocks);
}

function renderFiles(view) {
  const box = $("files");
  box.replaceChildren();
  const byIndex = new Map(view.blocks.map((b) => [b.index, b]));
  for (const file of view.files) {
    const onPage = file.blocks.filter((i) => byIndex.has(i));
    if (!onPage.length) continue;
    const collapsed = state.collapsed.has(file.path);
    const group = el("section", { class: "file-group" + (collapsed ? " collapsed" : ""), dataset: { path: file.path } });
    const counts = STATUS_ORDER.filter((s) => file.counts[s]).map((s) => `${file.counts[s]} ${STATUS_TEXT[s]}`).join(" · ");
    const viewedId = `viewed-${view.files.indexOf(file)}`;
    const head = el("div", { class: "file-head" },
      el("button", {
        type: "button", class: "collapse-file", "aria-expanded": collapsed ? "false" : "true",
        "aria-label": `${collapsed ? "Show" : "Hide"} the blocks of ${file.path}`, onclick: () => toggleCollapsed(file.path),
      }, collapsed ? "\u25b8" : "\u25be"),
      el("h2", { class: "file-title" },
        el("button", { type: "button", class: "path-link file-path", onclick: () => openFile(file.path) }, file.path)),
      el("span", { class: "muted", text: counts }),
      el("span", { class: "spacer" }),
      el("span", { class: "viewed-box" },
        el("input", { type: "checkbox", id: viewedId, class: "viewed-toggle", checked: state.viewed.has(file.path),
          onchange: (e) => setViewed(file.path, e.target.checked) }),
        el("label", { for: viewedId, text: "Viewed" })));
    if (file.counts.will_apply && view.done) {
      head.append(el("button", {
        type: "button", class: "btn small apply-file", dataset: { path: file.path },
        onclick: () => applySelection({ file: file.path }, file.path),
      }, "Apply file"));
    }
    group.append(head);
    if (!collapsed) for (const index of onPage) group.append(renderBlock(byIndex.get(index), view));
    box.append(group);
  }
  renderPager(view);
}

function renderPager(view) {
  const box = $("pager");
  box.replaceChildren();
  const p = view.page;
  if (!p || p.count <= 1) { box.hidden = true; return; }
  box.hidden = false;
  const total = view.summary.total;
  const first = p.number * p.size + 1;
  const last = Math.min(total, first + p.size - 1);
  const select = el("select", { id: "page-select", "aria-label": "Page of blocks", onchange: (e) => loadPage(Number(e.target.value)) });
  for (let k = 0; k < p.count; k++) {
    select.append(el("option", { value: k, selected: k === p.number }, `${k * p.size + 1}\u2013${Math.min(total, (k + 1) * p.size)}`));
  }
  box.append(
    el("button", { type: "button", class: "btn small", id: "page-prev", disabled: p.number === 0, onclick: () => loadPage(p.number - 1) }, "\u2190 Previous"),
    el("span", { class: "muted", id: "page-info", text: `Blocks ${first}\u2013${last} of ${total} (page ${p.number + 1} of ${p.count})` }),
    select,
    el("button", { type: "button", class: "btn small", id: "page-next", disabled: p.number >= p.count - 1, onclick: () => loadPage(p.number + 1) }, "Next \u2192"));
}

async function loadPage(number, focusIndex) {
  if (!state.view) return;
  try {
    const view = await api("GET", `/api/reviews/${encodeURIComponent(state.view.id)}?page=${number}`);
    renderView(view);
    if (focusIndex !== undefined) focusBlock(focusIndex);
    else window.scrollTo(0, $("files").offsetTop - 60);
  } catch (e) { toast(e.message, "error"); }
}

function renderBlock(b, view) {
  const card = el("article", {
    class: `block status-${b.status}` + (state.current === b.index ? " current" : ""),
    id: `block-${b.index}`, tabindex: "-1", dataset: { index: b.index, status: b.status },
  });
  const head = el("div", { class: "block-head" });
  head.append(
    el("h3", { class: "block-title" },
      el("span", { class: "block-number", text: `#${b.index + 1}` }),
      el("button", {
        type: "button", class: "path-link block-path", title: "Show this file's diff at the edit",
        onclick: () => openBlock(b),
      }, b.file_path)),
    el("span", { class: `badge badge-${b.status}`, text: STATUS_TEXT[b.status] }),
  );
  if (b.strategy_label) {
    const icon = b.confidence === "high" ? "\u2713" : "\u26a0";
    head.append(el("span", { class: `strategy conf-${b.confidence}`, title: `located by: ${b.strategy}` }, `${icon} ${b.strategy_label}`));
  }
  if (b.line && b.status !== "failed") head.append(el("span", { class: "muted", text: `line ${b.line}` }));
  head.append(el("span", { class: "muted", text: `reply line ${b.reply_line}` }));
  if (b.edited) head.append(el("span", { class: "badge badge-edited", text: "edited" }));
  head.append(el("span", { class: "spacer" }));
  const decision = state.decisions.get(b.index);
  if (decision) card.dataset.decision = decision;
  if (b.status === "will_apply") {
    head.append(
      el("button", {
        type: "button", class: "btn small accept-block", "aria-pressed": decision === "accept" ? "true" : "false",
        title: "Accept: Apply accepted writes it (key a)", onclick: () => decide(b.index, "accept"),
      }, decision === "accept" ? "\u2713 Accepted" : "Accept"),
      el("button", {
        type: "button", class: "btn small reject-block", "aria-pressed": decision === "reject" ? "true" : "false",
        title: "Reject: no Apply writes it (key x)", onclick: () => decide(b.index, "reject"),
      }, decision === "reject" ? "\u2717 Rejected" : "Reject"));
  }
  if (b.status === "will_apply" && view.done) {
    head.append(el("button", { type: "button", class: "btn small apply-block", onclick: () => applySelection({ blocks: [b.index] }, `block #${b.index + 1}`) }, "Apply block"));
  }
  if (b.status === "failed") {
    head.append(el("button", { type: "button", class: "btn small copy-feedback", onclick: () => copyFeedback(b.index) }, "Copy feedback"));
  }
  if (b.status === "failed" || b.status === "skipped" || b.edited || state.editors.has(b.index)) {
    if (b.status !== "applied") {
      head.append(el("button", { type: "button", class: "btn small edit-manually", onclick: () => toggleEditor(b) },
        state.editors.has(b.index) ? "Close editor" : "Edit manually"));
    }
  }
  card.append(head);

  if (b.requested_path) card.append(el("div", { class: "note", text: `The reply names ${b.requested_path}; it was resolved to ${b.file_path}.` }));
  for (const note of b.notes) card.append(el("div", { class: "note", text: note }));
  if (b.reason && b.status !== "will_apply" && b.status !== "applied") {
    card.append(reasonBox(b));
  }
  if (b.places && b.places.length) card.append(renderPlaces(b));
  if (b.matched) card.append(renderMatched(b));
  if (b.anchors && b.anchors.length) card.append(renderAnchors(b));
  if (b.status === "failed" && b.closest.length) {
    card.append(el("div", { class: "similar", text: `Similar code found at line ${b.closest_region[0]}:` }), codeTable(b.closest));
  }
  if (b.diff.length) {
    if (b.diff_kind === "block") card.append(el("div", { class: "caption", text: "The block's own text (not placed in the file):" }));
    card.append(codeTable(b.diff, { numbers: b.diff_kind === "file", split: true }));
  }
  const editor = state.editors.get(b.index);
  if (editor && b.status !== "applied") card.append(renderEditor(b, editor));
  return card;
}

// Where a block's change is, to open its file there: [first line, last line, side of the diff].
function blockRange(b) {
  if (b.status === "will_apply" || b.status === "applied") {
    return b.line ? [b.line, b.line + Math.max(1, b.new_length) - 1, "n"] : null;
  }
  if (b.status === "failed" && b.closest_region) return [b.closest_region[0], b.closest_region[1], "o"];
  if (b.places && b.places.length) return placeRange(b, b.places[0].line);
  return b.line ? [b.line, b.line, "o"] : null;
}

function placeRange(b, line) {
  return [line, line + Math.max(1, b.place_length) - 1, "o"];
}

function openBlock(b) {
  const range = blockRange(b);
  openFile(b.file_path, range, { block: b.index });
}

// The reason, with the lines of an ambiguous block's places ("matches at lines 37 and 46") as links.
function reasonBox(b) {
  const box = el("div", { class: `reason-box reason-${b.status}` });
  const candidates = new Set((b.places || []).map((p) => p.line));
  const found = candidates.size > 1 ? /lines? ([\d, and]+\d)/.exec(b.reason) : null;
  if (!found) {
    box.textContent = b.reason;
    return box;
  }
  const start = found.index + found[0].length - found[1].length;
  box.append(b.reason.slice(0, start));
  for (const part of found[1].split(/(\d+)/)) {
    if (/^\d+$/.test(part) && candidates.has(Number(part))) {
      box.append(el("button", {
        type: "button", class: "place-link", dataset: { line: part }, title: `Show line ${part} of ${b.file_path}`,
        onclick: () => openFile(b.file_path, placeRange(b, Number(part)), { block: b.index }),
      }, part));
    } else if (part) box.append(part);
  }
  box.append(b.reason.slice(start + found[1].length));
  return box;
}

// An ambiguous block's places side by side, each with its surrounding lines and a button that
// applies the block there.
function renderPlaces(b) {
  const grid = el("div", { class: "places" });
  for (const place of b.places) {
    const table = codeTable(place.rows);
    table.querySelectorAll("tr").forEach((tr, k) => { if (place.rows[k].m) tr.classList.add("row-match"); });
    const where = place.end > place.line ? `Lines ${place.line}\u2013${place.end}` : `Line ${place.line}`;
    grid.append(el("div", { class: "place", dataset: { line: place.line } },
      el("div", { class: "place-head" },
        el("button", {
          type: "button", class: "path-link place-open", title: "Show this place in the file",
          onclick: () => openFile(b.file_path, placeRange(b, place.line), { block: b.index }),
        }, where),
        el("span", { class: "spacer" }),
        el("button", {
          type: "button", class: "btn small choose-place", dataset: { line: place.line },
          disabled: !state.view || !state.view.done,
          onclick: () => choosePlace(b, place),
        }, "Apply here")),
      table));
  }
  return el("div", { class: "places-box" },
    el("div", { class: "caption", text: "The SEARCH text matches at each of these places; choose the one the edit is for:" }),
    grid);
}

// A tolerant or fuzzy match: the reply's SEARCH text beside the file's lines it was matched to.
function renderMatched(b) {
  const lines = b.matched.file;
  const first = lines.length ? lines[0].n : b.line;
  const last = lines.length ? lines[lines.length - 1].n : b.line;
  const where = first === last ? `line ${first}` : `lines ${first}\u2013${last}`;
  return el("details", { class: "matched", open: b.confidence === "low" },
    el("summary", { text: `${b.strategy_label}: the reply's SEARCH text beside the file's ${where} it was matched to` }),
    el("div", { class: "matched-grid" },
      el("div", { class: "matched-side matched-search" },
        el("h4", { text: "The reply's SEARCH text" }), codeTable(b.matched.search, { numbers: false })),
      el("div", { class: "matched-side matched-file" },
        el("h4", { text: `The file's ${where}` }), codeTable(b.matched.file))));
}

// A lazy sketch: each run of its lines beside the file's lines it was anchored to, and each
// elision beside the file's lines it kept.
function lineRange(first, last) {
  if (last < first) return "no lines";
  return first === last ? `line ${first}` : `lines ${first}\u2013${last}`;
}

function renderAnchors(b) {
  const runs = b.anchors.filter((a) => a.kind === "run").length;
  const elisions = b.anchors.length - runs;
  const grid = el("div", { class: "anchor-grid" });
  for (const a of b.anchors) {
    const sketchHead = a.kind === "run" ? `Sketch ${lineRange(a.sketch_first, a.sketch_last)}` : `Sketch ${lineRange(a.sketch_first, a.sketch_last)}: elision`;
    let fileHead;
    if (a.kind === "run") fileHead = `Anchored to file ${lineRange(a.file_first, a.file_last)}${a.changed ? ", changed" : ", unchanged"}`;
    else fileHead = a.file_last < a.file_first ? "Keeps no lines of the file" : `Keeps file ${lineRange(a.file_first, a.file_last)} as they are`;
    grid.append(el("div", {
      class: `anchor anchor-${a.kind}`,
      dataset: { kind: a.kind, sketch: `${a.sketch_first}-${a.sketch_last}`, file: `${a.file_first}-${a.file_last}` },
    },
      el("div", { class: "anchor-side anchor-sketch" }, el("h4", { text: sketchHead }), codeTable(a.sketch)),
      el("div", { class: "anchor-side anchor-file" },
        el("h4", {},
          el("button", {
            type: "button", class: "path-link anchor-open", title: "Show these lines in the file",
            disabled: a.file_last < a.file_first,
            onclick: () => openFile(b.file_path, [a.file_first, Math.max(a.file_first, a.file_last), "o"], { block: b.index }),
          }, fileHead)),
        a.file.length ? codeTable(a.file) : null)));
  }
  const what = `${runs} run${runs === 1 ? "" : "s"} anchored` + (elisions ? `, ${elisions} elision${elisions === 1 ? "" : "s"} kept the file's lines` : "");
  return el("details", { class: "anchors", open: true },
    el("summary", { text: `Where the sketch's parts went: ${what}` }),
    grid);
}

async function choosePlace(b, place) {
  await guarded(async () => {
    const data = await api("POST", `/api/reviews/${encodeURIComponent(state.view.id)}/blocks/${b.index}/choose`,
      { line: place.line, digest: place.digest });
    renderView(data.view);
    if (data.applied.blocks.length) toast(`Applied block #${b.index + 1} at line ${place.line} of ${b.file_path}`);
    else toast(`Block #${b.index + 1} did not apply at line ${place.line}`, "error");
  });
}

// -- editing a block by hand -------------------------------------------------------------

function toggleEditor(b) {
  if (state.editors.has(b.index)) state.editors.delete(b.index);
  else {
    const textarea = el("textarea", {
      class: "block-editor", spellcheck: "false", rows: Math.min(30, b.text.split("\n").length + 2),
      "aria-label": `Text of block #${b.index + 1} (${b.file_path})`,
    });
    textarea.value = b.text;
    const editor = { textarea, seq: 0, timer: null };
    textarea.addEventListener("input", () => {
      fitEditor(textarea);
      clearTimeout(editor.timer);
      editor.timer = setTimeout(() => recheck(b.index, editor), 250);
    });
    state.editors.set(b.index, editor);
  }
  renderView(state.view);
  const editor = state.editors.get(b.index);
  if (editor) {
    fitEditor(editor.textarea);
    editor.textarea.focus();
  }
}

function fitEditor(textarea) {
  textarea.style.height = "auto";
  textarea.style.height = `${Math.min(600, textarea.scrollHeight + 4)}px`;
}

function renderEditor(b, editor) {
  const status = el("div", { class: "editor-status", dataset: { status: b.status } });
  if (editor.seq && editor.pending) status.textContent = "checking\u2026";
  else if (b.edit_error) status.textContent = `\u2717 ${b.edit_error}`;
  else if (b.status === "will_apply") status.textContent = `\u2713 will apply (${b.strategy_label || b.strategy})`;
  else status.textContent = `\u2717 ${STATUS_TEXT[b.status]}: ${b.reason || ""}`;
  const box = el("div", { class: "editor" },
    el("div", { class: "caption", text: "Edit the block; it is checked against the file as you type. Apply writes the edited version." }),
    editor.textarea,
    el("div", { class: "editor-foot" }, status, el("span", { class: "spacer" }),
      b.edited ? el("button", { type: "button", class: "btn small", onclick: () => revertEdit(b.index) }, "Back to the reply's text") : null));
  return box;
}

async function recheck(index, editor) {
  const seq = ++editor.seq;
  editor.pending = true;
  try {
    const view = await api("POST", `/api/reviews/${encodeURIComponent(state.view.id)}/blocks/${index}`, { text: editor.textarea.value });
    if (seq !== editor.seq) return;  // a newer keystroke's answer will follow
    editor.pending = false;
    renderView(view);
  } catch (e) {
    editor.pending = false;
    toast(e.message, "error");
  }
}

async function revertEdit(index) {
  await guarded(async () => {
    const view = await api("POST", `/api/reviews/${encodeURIComponent(state.view.id)}/blocks/${index}`, { text: null });
    state.editors.delete(index);
    renderView(view);
  });
}

// -- actions -----------------------------------------------------------------------------------

async function preview() {
  const reply = $("reply-input").value;
  if (!reply.trim()) { toast("Paste a reply first", "error"); return; }
  await guarded(async () => {
    const view = await api("POST", "/api/reviews", {
      reply, format: $("format-select").value || null, match: $("match-select").value || null,
    });
    if (reply.length > LONG_REPLY_CHARS) {
      // A text box holding megabytes slows every redraw of the page: keep the text aside.
      state.setAside = reply;
      $("reply-input").value = "";
    }
    state.editors.clear();
    state.decisions.clear();
    state.current = null;
    state.showingLive = false;
    $("live-status").hidden = true;
    $("in-progress").replaceChildren();
    renderView(view);
  });
}

async function applySelection(selection, what) {
  await guarded(async () => {
    const data = await api("POST", `/api/reviews/${encodeURIComponent(state.view.id)}/apply`, selection);
    for (const index of data.applied.blocks) {
      state.editors.delete(index);
      state.decisions.delete(index);
    }
    renderView(data.view);
    const a = data.applied;
    if (a.blocks.length) {
      toast(`Applied ${plural(a.blocks.length, "block")}; wrote ${a.files.join(", ") || "no file"}`);
    } else {
      toast(`Nothing applied for ${what}: ${plural(a.counts.failed, "block")} failed`, "error");
    }
  });
}

async function cancelReview() {
  if (!state.view) return;
  const id = state.view.id;
  const anyApplied = state.view.summary.counts.applied > 0;
  await guarded(async () => {
    await api("POST", `/api/reviews/${encodeURIComponent(id)}/cancel`, {});
    closeReview();
    toast(anyApplied ? "Closed; the edits already applied stay (Undo puts them back)" : "Cancelled: no file was written");
  });
}

function closeReview() {
  if (state.setAside) {
    $("reply-input").value = state.setAside;
    state.setAside = null;
  }
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  state.view = null;
  state.showingLive = false;
  state.editors.clear();
  state.decisions.clear();
  state.current = null;
  $("review").hidden = true;
  $("input-panel").hidden = false;
  $("new-reply").hidden = true;
  $("live-status").hidden = true;
  $("in-progress").replaceChildren();
  closeFile();
  refreshUndo();
}

async function undo() {
  await guarded(async () => {
    const data = await api("POST", "/api/undo", { review: state.view ? state.view.id : null });
    const u = data.undone;
    const parts = [];
    if (u.restored.length) parts.push(`restored ${u.restored.join(", ")}`);
    if (u.deleted.length) parts.push(`deleted ${u.deleted.join(", ")}`);
    toast(`Undid apply #${u.entry}: ${parts.join("; ") || "nothing to put back"}`);
    if (data.view) renderView(data.view);
    else refreshUndo();
    closeFile();
  });
}

function renderUndo(undoState) {
  const button = $("undo-button");
  button.disabled = !undoState || !undoState.available;
  button.title = undoState && undoState.available ? `Undo: ${undoState.description}` : "Nothing to undo";
}

async function refreshUndo() {
  try {
    const s = await api("GET", "/api/state");
    renderUndo(s.undo);
    $("done-button").hidden = !s.exit_on_done;
  } catch (e) { /* the next action reports it */ }
}

// ``apply --review``: the person is done; the terminal reports and editblocks exits.
async function finish() {
  await guarded(async () => {
    const data = await api("POST", "/api/done", { review: state.view ? state.view.id : null });
    const summary = state.view ? state.view.summary : null;
    closeFile();
    for (const id of ["review", "input-panel", "live-status", "live-notice", "new-reply", "undo-button", "done-button"]) $(id).hidden = true;
    $("finished").hidden = false;
    const applied = summary ? `${summary.counts.applied} of ${plural(summary.total, "block")} applied. ` : "";
    $("finished-text").textContent = `${applied}editblocks has stopped (exit status ${data.exit_status}); you can close this page.`;
    document.body.dataset.finished = "true";
  });
}

// -- the file view -----------------------------------------------------------------------------

// Open a file's view; ``range`` = [first, last, side] marks those lines ("o": the file as it is,
// "n": as it will be) and scrolls to them. Opened for a block, only that block's lines are marked.
async function openFile(path, range, options) {
  if (!state.view) return;
  try {
    const data = await api("GET", `/api/reviews/${encodeURIComponent(state.view.id)}/file?path=${encodeURIComponent(path)}`);
    const kinds = {
      pending: "changes not written yet",
      applied: "changes written",
      current: "no change: the file as it is",
      missing: "the file does not exist",
    };
    $("file-panel-title").textContent = data.path;
    $("file-panel-kind").textContent = kinds[data.kind] || data.kind;
    const body = $("file-panel-body");
    body.replaceChildren(data.rows.length ? codeTable(data.rows, { split: true }) : el("p", { class: "muted", text: "(empty)" }));
    const panel = $("file-panel");
    panel.hidden = false;
    panel.dataset.path = data.path;
    panel.dataset.block = options && options.block !== undefined ? options.block : "";
    let targets = [];
    if (range) {
      const [first, last, side] = range;
      const key = side === "o" ? "o" : "n";
      const rows = [...body.querySelectorAll("tr")];
      const inside = rows.filter((tr) => tr.dataset[key] !== undefined && Number(tr.dataset[key]) >= first && Number(tr.dataset[key]) <= last);
      if (inside.length) {
        let from = rows.indexOf(inside[0]);
        const to = rows.indexOf(inside[inside.length - 1]);
        // the lines a change removes come just before the lines it adds
        if (key === "n") while (from > 0 && rows[from - 1].classList.contains("row-del")) from -= 1;
        targets = rows.slice(from, to + 1);
      }
    } else if (!options || options.block === undefined) {
      const first = body.querySelector("tr.row-add, tr.row-del");
      if (first) targets = [first];
    }
    for (const tr of targets) tr.classList.add("target");
    if (targets.length) targets[0].scrollIntoView({ block: "center" });
  } catch (e) {
    toast(e.message, "error");
  }
}

function closeFile() {
  $("file-panel").hidden = true;
}

// -- shell suggestions ---------------------------------------------------------------------

function renderShell(view) {
  const box = $("shell");
  box.replaceChildren();
  if (!view.shell_suggestions.length) return;
  const section = el("section", { class: "shell" },
    el("h3", { text: "Shell commands the reply suggests" }),
    el("p", { class: "muted", text: "editblocks never runs them. Copy one to run it yourself if you agree with it." }));
  for (const cmd of view.shell_suggestions) {
    section.append(el("div", { class: "shell-row" },
      el("code", { class: "shell-cmd", text: `$ ${cmd}` }),
      el("button", { type: "button", class: "btn small copy-shell", onclick: () => copyText(cmd, "Command") }, "Copy")));
  }
  box.append(section);
}

// -- the live reply ---------------------------------------------------------------------------

function renderInProgress(live) {
  const box = $("in-progress");
  box.replaceChildren();
  const p = live && !live.done ? live.in_progress : null;
  if (!p) return;
  // Seed 001's renderInProgressEditBlock(filePath, partialLines).
  const card = el("article", { class: "block in-progress", id: "in-progress-block" });
  card.append(el("div", { class: "block-head" },
    el("span", { class: "spinner" }),
    el("span", { class: "block-path mono", text: p.path || "reply still arriving" }),
    el("span", { class: "badge badge-streaming", text: "streaming\u2026" }),
    p.format ? el("span", { class: "muted", text: p.format }) : null,
    el("span", { class: "muted", text: `reply line ${p.reply_line}` })));
  const pre = el("pre", { class: "partial" });
  if (p.tail !== null && p.tail !== undefined) pre.append(el("span", { class: "partial-tail", text: p.tail + "\n" }));
  for (const line of splitLines(p.old)) pre.append(el("span", { class: "partial-del", text: "- " + line + "\n" }));
  for (const line of splitLines(p.new)) pre.append(el("span", { class: "partial-add", text: "+ " + line + "\n" }));
  card.append(pre);
  box.append(card);
}

function splitLines(text) {
  if (!text) return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function onLive(payload) {
  const previous = state.live;
  state.live = payload;
  if (!payload.active) {
    if (state.showingLive) closeReview();
    $("live-notice").hidden = true;
    return;
  }
  const newSession = !previous || previous.session !== payload.session;
  if (!state.showingLive) {
    if (state.view && !newSession) return;
    if (state.view) { $("live-notice").hidden = false; return; }
    state.showingLive = true;
    state.editors.clear();
  }
  showLive(payload);
}

function showLive(payload) {
  $("live-notice").hidden = true;
  const status = $("live-status");
  status.hidden = false;
  status.replaceChildren();
  const size = payload.size > 2048 ? `${(payload.size / 1024).toFixed(1)} kB` : `${payload.size} characters`;
  if (payload.error) status.append(el("span", { class: "badge badge-failed", text: "error" }), " ", payload.error);
  else if (payload.done) status.append(el("span", { class: "badge badge-applied", text: "complete" }), ` Reply received (${size}).`);
  else status.append(el("span", { class: "spinner" }), ` Receiving the reply\u2026 ${size} so far.`);
  status.dataset.done = payload.done ? "true" : "false";
  const review = payload.review;
  if (review && (!state.view || state.view.id !== review.id || review.revision >= state.view.revision)) {
    renderView(review);
  }
  renderInProgress(payload);
}

function watchLive() {
  if (!window.EventSource) return;
  const source = new EventSource("/api/live/events");
  source.addEventListener("live", (event) => {
    try { onLive(JSON.parse(event.data)); } catch (e) { toast(e.message, "error"); }
  });
}

// -- reply files -----------------------------------------------------------------------------

async function loadFile(file) {
  if (!file) return;
  if (file.size > 50 * 1024 * 1024) { toast("That file is larger than 50 MB", "error"); return; }
  const text = await file.text();
  if (state.view) closeReview();
  $("reply-input").value = text;
  await preview();
}

function setupDrop() {
  let depth = 0;
  const overlay = $("drop-overlay");
  const hasFiles = (event) => event.dataTransfer && Array.from(event.dataTransfer.types || []).includes("Files");
  window.addEventListener("dragenter", (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth += 1;
    overlay.hidden = false;
  });
  window.addEventListener("dragover", (event) => { if (hasFiles(event)) event.preventDefault(); });
  window.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (!depth) overlay.hidden = true;
  });
  window.addEventListener("drop", (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth = 0;
    overlay.hidden = true;
    loadFile(event.dataTransfer.files[0]);
  });
}

// -- the keys ----------------------------------------------------------------------------------

function focusBlock(index) {
  document.querySelectorAll("#files .block.current").forEach((node) => node.classList.remove("current"));
  state.current = index;
  const card = $(`block-${index}`);
  if (!card) return;
  card.classList.add("current");
  card.focus({ preventScroll: true });
  card.scrollIntoView({ block: "start" });
  window.scrollBy(0, -70);  // below the sticky bars
}

// Go to block ``index``, loading its page when it is on another one.
function goToBlock(index) {
  const view = state.view;
  const position = blockOrder(view).indexOf(index);
  const page = Math.floor(position / view.page.size);
  if (page !== view.page.number) loadPage(page, index);
  else focusBlock(index);
}

function moveBlock(step, onlyFailed) {
  const view = state.view;
  if (!view) return;
  const order = blockOrder(view);
  if (!order.length) return;
  let at = order.indexOf(state.current);
  if (state.current === null || !$(`block-${state.current}`)) {
    // from the page shown: j and n start at its first block, k at its last
    const first = view.page.number * view.page.size;
    at = step > 0 ? first - 1 : Math.min(order.length, first + view.page.size);
  }
  for (let tries = 0; tries < order.length; tries++) {
    at = at + step;
    if (onlyFailed) at = (at + order.length) % order.length;
    else if (at < 0 || at >= order.length) return;
    if (!onlyFailed || view.statuses[order[at]] === "failed") { goToBlock(order[at]); return; }
  }
  toast("No failed block");
}

function toggleKeys(show) {
  const help = $("keys-help");
  help.hidden = show === undefined ? !help.hidden : !show;
  if (!help.hidden) $("keys-close").focus();
}

function onKey(event) {
  if (event.key === "Escape") { closeFile(); toggleKeys(false); return; }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
  if (event.key === "?") { event.preventDefault(); toggleKeys(); return; }
  if (!state.view || $("review").hidden) return;
  const act = {
    j: () => moveBlock(1, false),
    k: () => moveBlock(-1, false),
    n: () => moveBlock(1, true),
    a: () => { if (state.current !== null) decide(state.current, "accept"); },
    x: () => { if (state.current !== null) decide(state.current, "reject"); },
  }[event.key];
  if (act) { event.preventDefault(); act(); }
}

// A review's address (#/review/ID) opens it again, after a reload too, while the server runs.
async function openAddressedReview() {
  const found = /^#\/review\/([^/]+)$/.exec(location.hash);
  if (!found) return;
  const id = decodeURIComponent(found[1]);
  if (state.view && state.view.id === id) return;
  try {
    const view = await api("GET", `/api/reviews/${encodeURIComponent(id)}`);
    state.editors.clear();
    state.decisions.clear();
    state.current = null;
    state.showingLive = id === "live";
    renderView(view);
  } catch (e) {
    history.replaceState(null, "", location.pathname + location.search);
    toast(e.message, "error");
  }
}

// -- start -----------------------------------------------------------------------------------

async function start() {
  $("preview-button").addEventListener("click", preview);
  $("reply-input").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); preview(); }
  });
  $("open-file").addEventListener("click", () => $("file-input").click());
  $("file-input").addEventListener("change", (event) => loadFile(event.target.files[0]));
  $("undo-button").addEventListener("click", undo);
  $("new-reply").addEventListener("click", closeReview);
  $("done-button").addEventListener("click", finish);
  $("file-panel-close").addEventListener("click", closeFile);
  $("show-live").addEventListener("click", () => {
    state.showingLive = true;
    state.editors.clear();
    if (state.live) showLive(state.live);
  });
  document.addEventListener("keydown", onKey);
  $("keys-close").addEventListener("click", () => toggleKeys(false));
  $("keys-button").addEventListener("click", () => toggleKeys(true));
  setupDrop();
  try {
    const s = await api("GET", "/api/state");
    $("root-path").textContent = s.root;
    for (const name of s.formats) $("format-select").append(el("option", { value: name, text: name }));
    for (const name of s.match_levels) $("match-select").append(el("option", { value: name, text: name }));
    if (s.format) $("format-select").value = s.format;
    if (s.match) $("match-select").value = s.match;
    renderUndo(s.undo);
    $("done-button").hidden = !s.exit_on_done;
  } catch (e) {
    toast(e.message, "error");
  }
  await openAddressedReview();
  window.addEventListener("hashchange", openAddressedReview);
  watchLive();
  document.body.dataset.ready = "true";
}

document.addEventListener("DOMContentLoaded", start);
