// evalrun viewer: the runs, a run's call tree and timeline, plans and
// templates over the JSON API of `evalrun serve`. Plain JavaScript, no
// build step, no dependencies; everything is read from the local server.
"use strict";

const $ = (sel, el = document) => el.querySelector(sel);
const main = $("#main");
const ROW = 28; // px, the height of a call row (--row)

// ---------- small helpers ----------

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v == null || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : v);
    }
  }
  for (const kid of kids.flat()) {
    if (kid == null || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

async function api(path) {
  const r = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await r.json().catch(() => ({ error: r.statusText }));
  if (!r.ok) throw new Error(body.error || r.statusText);
  return { body, headers: r.headers };
}

const nf = new Intl.NumberFormat("en-US");
const thousands = (n) => nf.format(n || 0);

function duration(sec) {
  if (sec == null || isNaN(sec)) return "";
  if (sec < 1) return Math.round(sec * 1000) + "ms";
  if (sec < 59.5) return (sec < 9.95 ? sec.toFixed(1) : Math.round(sec)) + "s";
  const whole = Math.round(sec);
  const m = Math.floor(whole / 60), s = whole % 60;
  if (m < 60) return m + "m" + (s ? String(s).padStart(2, "0") + "s" : "");
  const mm = Math.round(sec / 60);
  return Math.floor(mm / 60) + "h" + (mm % 60 ? String(mm % 60).padStart(2, "0") + "m" : "");
}

function cost(usd) {
  if (usd == null) return "";
  if (usd === 0) return "$0";
  return "$" + (usd < 0.01 ? usd.toFixed(4) : usd < 1 ? usd.toFixed(3) : usd.toFixed(2));
}

// runCost is the COST column of `evalrun runs`: "$0.0123", "?" when no
// call's price was known, "$0.0123+?" when some were not, "-" for a run
// that spent nothing, and "+r" after what a run paid when it replayed
// calls that had a cost.
function runCost(r) {
  const unknown = r.cost_unknown_calls > 0, usd = r.cost_usd || 0;
  if (r.replayed_cost_usd > 0) return cost(usd) + (unknown ? "+?" : "") + "+r";
  if (unknown) return usd > 0 ? cost(usd) + "+?" : "?";
  return usd > 0 ? cost(usd) : "-";
}

// argsText is a run's arguments as the command line gave them: "--set
// k=v" for each input, the workflow files when they are not just the
// run's workflow, and the --provider, --model, --agent, --role and
// --context flags; "" when there were none. A journal that recorded only
// the inputs ({"k": v}) shows them as k=v.
function argsText(r) {
  const a = r.args;
  if (!a || typeof a !== "object" || Array.isArray(a)) return "";
  const str = (v) => (typeof v === "string" ? v : JSON.stringify(v));
  if (!a.set || typeof a.set !== "object") return Object.entries(a).map(([k, v]) => `${k}=${str(v)}`).join(" ");
  const parts = Object.entries(a.set).map(([k, v]) => `--set ${k}=${str(v)}`);
  const files = Array.isArray(a.files) ? a.files : [];
  if (!(files.length === 1 && files[0] === r.workflow)) parts.push(...files.map(str));
  for (const k of ["provider", "model", "agent", "role"]) if (a[k]) parts.push(`--${k} ${str(a[k])}`);
  for (const c of Array.isArray(a.contexts) ? a.contexts : []) parts.push(`--context ${str(c)}`);
  return parts.join(" ");
}

function clock(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function ago(iso) {
  if (!iso) return "";
  const s = (Date.now() - new Date(iso).getTime()) / 1000;
  if (s < 45) return "just now";
  if (s < 3600) return Math.round(s / 60) + " min ago";
  if (s < 86400) return Math.round(s / 3600) + " h ago";
  if (s < 86400 * 14) return Math.round(s / 86400) + " d ago";
  return clock(iso).slice(0, 10);
}

const badge = (status) => h("span", { class: "badge s-" + status, title: status, text: status });

function errBox(disp, plain) {
  if (disp) {
    // The message wraps; the source line and its caret never do (they
    // scroll sideways), so the caret stays under its column.
    // When the line is wider than the box, it starts scrolled so that
    // the caret is in view.
    const caret = h("span", { class: "caret", text: disp.caret });
    const src = h("span", { class: "src" }, `${disp.source}\n`, caret);
    requestAnimationFrame(() => { src.scrollLeft = Math.max(0, caret.offsetWidth - src.clientWidth * 2 / 3); });
    return h("pre", { class: "errbox" }, `${disp.file}:${disp.line}:${disp.col}: ${disp.message}\n`, src);
  }
  return plain ? h("pre", { class: "errbox", text: plain }) : null;
}

function copyButton(text) {
  return h("button", {
    class: "copy", type: "button", text: "copy",
    onclick: (e) => {
      e.preventDefault(); e.stopPropagation();
      navigator.clipboard?.writeText(text).then(() => { e.target.textContent = "copied"; setTimeout(() => (e.target.textContent = "copy"), 1200); });
    },
  });
}

function section(title, body, { open = true, sub, copy } = {}) {
  const s = h("details", { class: "sect", open },
    h("summary", null, title, sub ? h("span", { class: "sub", text: sub }) : null, copy != null ? copyButton(copy) : null),
    h("div", { class: "body" }, body));
  return s;
}

// reveal scrolls a panel into view when the layout has put it below its
// list, out of sight or nearly (narrow screens); beside the list it is in
// view and nothing moves.
function reveal(panel) {
  requestAnimationFrame(() => {
    const r = panel.getBoundingClientRect();
    if (r.top > innerHeight - Math.min(r.height, 160) || r.bottom <= 0) panel.scrollIntoView({ block: "start", behavior: "smooth" });
  });
}

const textBlock = (t) => (t == null || t === "" ? h("div", { class: "none", text: t == null ? "not recorded" : "empty" }) : h("pre", { class: "text", text: t }));

// jsonTree renders a value as a collapsible tree (objects and arrays open
// to depth 2).
function jsonTree(v, depth = 0, key) {
  const k = key != null ? [h("span", { class: "k", text: JSON.stringify(key) }), ": "] : [];
  if (v === null) return h("div", null, k, h("span", { class: "z", text: "null" }));
  if (Array.isArray(v) || typeof v === "object") {
    const entries = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    const open = Array.isArray(v) ? "[" : "{", close = Array.isArray(v) ? "]" : "}";
    if (entries.length === 0) return h("div", null, k, h("span", { class: "meta", text: open + close }));
    const d = h("details", { open: depth < 2 },
      h("summary", null, k, h("span", { class: "meta", text: `${open} ${entries.length} ${Array.isArray(v) ? "item" : "key"}${entries.length === 1 ? "" : "s"} ${close}` })));
    const kids = h("div", { class: "kids" });
    let built = false;
    const build = () => {
      if (built) return;
      built = true;
      for (const [kk, x] of entries) kids.append(jsonTree(x, depth + 1, Array.isArray(v) ? null : kk));
    };
    if (depth < 2) build();
    d.addEventListener("toggle", build);
    d.append(kids);
    return d;
  }
  const cls = typeof v === "string" ? "s" : typeof v === "number" ? "n" : "b";
  return h("div", null, k, h("span", { class: cls, text: typeof v === "string" ? JSON.stringify(v) : String(v) }));
}
const treeBlock = (v) => (v == null ? h("div", { class: "none", text: "null" }) : h("div", { class: "jt" }, jsonTree(v)));

// ---------- routing ----------

let page = null; // the current page: {keydown(e), close()}

function go(path, replace) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
}

document.addEventListener("click", (e) => {
  const a = e.target.closest("a[data-link]");
  if (!a || e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  go(a.getAttribute("href"));
});
window.addEventListener("popstate", route);

function route() {
  if (page && page.close) page.close();
  page = null;
  closeSearch();
  const path = location.pathname;
  const params = new URLSearchParams(location.search);
  let m;
  let nav = "runs";
  main.replaceChildren();
  if ((m = path.match(/^\/runs\/([^/]+)\/?$/))) page = runPage(decodeURIComponent(m[1]), params);
  else if ((m = path.match(/^\/plans\/([^/]+)\/?$/))) { nav = "plans"; page = planPage(decodeURIComponent(m[1]), params); }
  else if (path === "/plans" || path === "/plans/") { nav = "plans"; page = plansPage(); }
  else if (path === "/templates") { nav = "templates"; page = templatesPage(params); }
  else page = runsPage(params);
  for (const a of document.querySelectorAll("[data-nav]")) a.classList.toggle("on", a.dataset.nav === nav);
  const what = m ? decodeURIComponent(m[1]) : { runs: "runs", plans: "plans", templates: "templates" }[nav];
  document.title = what + " · evalrun";
}

function setLive(on) {
  const el = $("#live");
  el.classList.toggle("on", !!on);
  el.title = on ? "Live: updates as the run writes the journal" : "Not live";
}

// ---------- runs ----------

const STATUSES = ["all", "running", "completed", "failed"];
const PAGE = 200;

function runsPage(params) {
  const state = { status: params.get("status") || "all", q: params.get("q") || "", runs: [], total: 0, sel: 0 };
  const tbody = h("tbody");
  const countEl = h("span", { class: "count" });
  const more = h("button", { class: "more", type: "button", text: "Show more", hidden: true, onclick: () => load(true) });
  const filter = h("input", { class: "filter", type: "search", placeholder: "Filter by id, workflow or error", value: state.q, "aria-label": "Filter runs" });
  const chips = h("div", { class: "chips" }, STATUSES.map((s) =>
    h("button", { class: "chip" + (s === state.status ? " on" : ""), type: "button", "data-status": s, onclick: () => { state.status = s; sync(); load(); } },
      s, h("span", { class: "n" }))));

  // The number of runs of each status, on the chips.
  let counting = 0;
  async function count() {
    const my = ++counting;
    const n = await Promise.all(STATUSES.map((s) =>
      api("/api/runs?limit=1" + (s === "all" ? "" : "&status=" + s)).then((r) => +r.headers.get("X-Total-Count")).catch(() => null)));
    if (my !== counting) return;
    STATUSES.forEach((s, i) => { chips.children[i].querySelector(".n").textContent = n[i] == null ? "" : " " + thousands(n[i]); });
  }
  let timer;
  filter.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => { state.q = filter.value; sync(); load(); }, 150); });
  const table = h("table", { class: "grid runs" },
    h("thead", null, h("tr", null, h("th", { text: "Status" }), h("th", { text: "Run" }), h("th", { class: "opt", text: "Workflow" }),
      h("th", { class: "opt", text: "Started" }), h("th", { class: "num", text: "Duration" }), h("th", { class: "num opt", text: "Calls" }),
      h("th", { class: "num opt", text: "Tokens" }), h("th", { class: "num opt", text: "Cost" }))),
    tbody);
  const empty = h("div", { class: "empty-state", hidden: true });
  const root = h("section", { class: "page" },
    h("div", { class: "page-title" }, h("h1", { text: "Runs" })),
    h("div", { class: "toolbar" }, chips, filter, countEl), table, empty, more);
  main.append(root);

  function sync() {
    for (const c of chips.children) c.classList.toggle("on", c.dataset.status === state.status);
    const p = new URLSearchParams();
    if (state.status !== "all") p.set("status", state.status);
    if (state.q) p.set("q", state.q);
    history.replaceState(null, "", "/" + (p.toString() ? "?" + p : ""));
  }

  function row(r, i) {
    const tr = h("tr", { "data-id": r.id, class: i === state.sel ? "sel" : null, onclick: () => go("/runs/" + encodeURIComponent(r.id)) },
      h("td", null, badge(r.status)),
      h("td", { class: "mono" }, h("a", { href: "/runs/" + encodeURIComponent(r.id), "data-link": true, text: r.id }),
        h("span", { class: "wf-narrow", title: r.workflow, text: r.workflow })), // shown when the workflow column is hidden
      h("td", { class: "opt", title: r.workflow, text: r.workflow }),
      h("td", { class: "opt", title: clock(r.started_at) }, ago(r.started_at), h("span", { class: "muted", text: "  " + clock(r.started_at).slice(11) })),
      h("td", { class: "num", text: duration(r.duration_seconds) }),
      h("td", { class: "num opt", text: thousands(r.calls) }),
      h("td", { class: "num opt", text: thousands(r.tokens) }),
      h("td", { class: "num opt", title: [r.cost_unknown_calls ? `cost unknown for ${r.cost_unknown_calls} call${r.cost_unknown_calls === 1 ? "" : "s"}` : "", r.replayed_cost_usd ? `${cost(r.replayed_cost_usd)} replayed, not paid again` : ""].filter(Boolean).join("; ") || null, text: runCost(r) }));
    return tr;
  }

  function render() {
    tbody.replaceChildren(...state.runs.map(row));
    countEl.textContent = `${thousands(state.total)} run${state.total === 1 ? "" : "s"}`;
    more.hidden = state.runs.length >= state.total;
    const none = state.runs.length === 0;
    table.hidden = none;
    empty.hidden = !none;
    if (none) {
      empty.replaceChildren(state.q || state.status !== "all" ? "No run matches." :
        h("span", null, "No runs yet. Run a workflow with ", h("code", { text: "evalrun run FILE" }), " and it appears here."));
    }
  }

  let seq = 0;
  async function load(append) {
    const my = ++seq;
    const p = new URLSearchParams({ limit: PAGE, offset: append ? state.runs.length : 0 });
    if (state.status !== "all") p.set("status", state.status);
    if (state.q) p.set("q", state.q);
    try {
      const { body, headers } = await api("/api/runs?" + p);
      if (my !== seq) return;
      state.runs = append ? state.runs.concat(body) : body;
      state.total = +headers.get("X-Total-Count") || state.runs.length;
      if (!append) state.sel = 0;
      render();
    } catch (err) {
      empty.hidden = false; table.hidden = true;
      empty.textContent = "Cannot read the journal: " + err.message;
    }
  }

  function matches(r) {
    if (state.status !== "all" && r.status !== state.status) return false;
    if (!state.q) return true;
    const q = state.q.toLowerCase();
    return [r.id, r.workflow, r.error].some((s) => (s || "").toLowerCase().includes(q));
  }

  const es = new EventSource("/api/events");
  es.onopen = () => setLive(true);
  es.onerror = () => setLive(false);
  es.addEventListener("runs", (e) => {
    const changed = JSON.parse(e.data);
    let dirty = false;
    for (const r of changed) {
      const i = state.runs.findIndex((x) => x.id === r.id);
      if (i >= 0) { state.runs[i] = r; dirty = true; }
      else if (matches(r)) { state.runs.unshift(r); state.total++; dirty = true; }
    }
    count();
    if (dirty) {
      state.runs.sort((a, b) => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : a.id < b.id ? 1 : -1));
      render();
    }
  });

  load();
  count();
  return {
    close: () => { es.close(); setLive(false); },
    keydown(e) {
      const rows = tbody.children;
      if (e.key === "j" || e.key === "ArrowDown") moveSel(rows, state, 1);
      else if (e.key === "k" || e.key === "ArrowUp") moveSel(rows, state, -1);
      else if (e.key === "Enter" && state.runs[state.sel]) go("/runs/" + encodeURIComponent(state.runs[state.sel].id));
      else if (e.key === "Escape" && (state.q || state.status !== "all")) { filter.value = ""; state.q = ""; state.status = "all"; sync(); load(); }
      else return false;
      return true;
    },
  };
}

function moveSel(rows, state, d) {
  if (!rows.length) return;
  rows[state.sel]?.classList.remove("sel");
  state.sel = Math.max(0, Math.min(rows.length - 1, state.sel + d));
  rows[state.sel].classList.add("sel");
  rows[state.sel].scrollIntoView({ block: "nearest" });
}

// ---------- a run ----------

function runPage(ref, params) {
  let id = ref; // the full id once the run is read (ref may be a prefix or "last")
  const st = {
    run: null, nodes: new Map(), order: [], visible: [], collapsed: new Set(), current: null,
    sel: params.get("call") ? +params.get("call") : null, details: new Map(), span: 1, live: false,
  };
  const head = h("div", { class: "run-head" }, h("div", { class: "crumbs" }, h("a", { href: "/", "data-link": true, text: "Runs" }), " / ", id));
  const axis = h("div", { class: "axis" });
  const rowsEl = h("div", { class: "rows" });
  const spacer = h("div", { style: "position:relative" }, rowsEl);
  const hint = h("div", { class: "trace-hint" }, h("kbd", { text: "j" }), " ", h("kbd", { text: "k" }), " move · ", h("kbd", { text: "enter" }),
    " open · ", h("kbd", { text: "h" }), " ", h("kbd", { text: "l" }), " fold · ", h("kbd", { text: "c" }), " current · ", h("kbd", { text: "?" }), " keys");
  const body = h("div", { class: "trace-body", tabindex: "0" }, spacer, hint);
  const trace = h("div", { class: "trace" },
    h("div", { class: "trace-head" }, h("div", { text: "Call" }), h("div", { class: "h-meta cell-meta" }, h("span", { text: "Executor" }), h("span", { class: "turns num", text: "Turns" }), h("span", { class: "num", text: "Tokens" }), h("span", { class: "num", text: "Cost" })), axis),
    body);
  const detail = h("aside", { class: "detail", hidden: true });
  const root = h("section", { class: "run" }, head, h("div", { class: "split" }, trace, detail));
  main.append(root);

  // The depth-first order of the nodes and the rows shown (children of
  // collapsed nodes hidden).
  function relayout() {
    const kids = new Map();
    const roots = [];
    for (const n of st.nodes.values()) {
      if (n.parent && st.nodes.has(n.parent)) {
        if (!kids.has(n.parent)) kids.set(n.parent, []);
        kids.get(n.parent).push(n);
      } else roots.push(n);
    }
    const bySeq = (a, b) => a.seq - b.seq;
    roots.sort(bySeq);
    for (const l of kids.values()) l.sort(bySeq);
    st.kids = kids;
    const order = [], visible = [];
    const walk = (list, depth, shown) => {
      for (const n of list) {
        n.depth = depth;
        order.push(n);
        if (shown) visible.push(n);
        const k = kids.get(n.seq);
        if (k) walk(k, depth + 1, shown && !st.collapsed.has(n.seq));
      }
    };
    walk(roots, 0, true);
    st.order = order;
    st.visible = visible;
    let end = 0;
    for (const n of order) end = Math.max(end, n.end_ms ?? n.start_ms ?? 0);
    if (st.run && !st.run.finished_at) end = Math.max(end, Date.now() - new Date(st.run.started_at).getTime());
    else if (st.run) end = Math.max(end, st.run.duration_seconds * 1000);
    st.span = Math.max(end, 1);
    spacer.style.height = visible.length * ROW + "px";
    hint.hidden = visible.length * ROW > 2000;
    drawAxis();
    draw();
  }

  function drawAxis() {
    const steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 1800000, 3600000];
    // As many ticks as their labels leave room for: one per 64 px of
    // the axis (an 84 px timeline on a phone has one interval).
    const width = axis.clientWidth || 400;
    const target = st.span / Math.max(1, Math.floor(width / 64));
    const step = steps.find((s) => s >= target) || 3600000;
    axis.replaceChildren();
    let right = -Infinity;
    for (let t = 0; t <= st.span + 1e-9; t += step) {
      const at = (t / st.span) * 100;
      const label = h("span", { style: `left:${at}%`, text: t === 0 ? "0" : duration(t / 1000) });
      axis.append(label);
      // A label too near the end is right-aligned to it; one that would
      // then touch the label before it is dropped.
      const w = label.offsetWidth, x = (at / 100) * width;
      let from = t === 0 ? x : x - w / 2;
      if (from + w > width) { label.style.transform = "translateX(-100%)"; from = x - w; }
      if (t > 0 && from < right + 6) { label.remove(); continue; }
      right = from + w;
      if (axis.children.length > 8) break;
    }
    if (axis.children.length === 1) { // no tick fits inside the span: mark its end
      const end = h("span", { style: "left:100%;transform:translateX(-100%)", text: duration(st.span / 1000) });
      axis.append(end);
      if (width - end.offsetWidth < right + 6) end.remove();
    }
  }

  // timeWidth is the width in pixels of a row's timeline (the axis's).
  function timeWidth() { return axis.clientWidth || 400; }

  function rowFor(n) {
    const k = st.kids && st.kids.get(n.seq);
    const isAgent = (n.executor || "").startsWith("agent:");
    const kind = isAgent ? "agent" : n.kind;
    const twist = h("span", { class: "twist", text: k ? (st.collapsed.has(n.seq) ? "▸" : "▾") : "" });
    if (k) twist.addEventListener("click", (e) => { e.stopPropagation(); toggle(n.seq); });
    const name = h("span", { class: "nm" + (n.kind === "step" ? " step-name" : ""), title: n.template_source || null, text: n.kind === "step" ? JSON.stringify(n.name) : n.name });
    const nameCell = h("div", { class: "cell-name", style: `padding-left:${6 + n.depth * 16}px` },
      twist, h("span", { class: "dot " + n.status, title: n.status }), h("span", { class: "kind " + kind, text: kind }), name,
      // The call's input values: what tells apart the calls of one
      // template side by side (a parallel-map).
      n.label ? h("span", { class: "lbl", title: n.label, text: n.label }) : null,
      n.replayed ? h("span", { class: "tag replayed", text: "replayed" }) : null,
      n.seq === st.current ? h("span", { class: "tag current", text: "current" }) : null,
      n.summary ? h("span", { class: "sum", title: n.summary, text: n.summary }) : null);
    const meta = h("div", { class: "cell-meta" },
      h("span", { class: "exe", title: n.executor || "", text: n.executor || (n.template_source ? n.template_source.split(" ")[0] : "") }),
      h("span", { class: "turns num", text: n.turns ? n.turns + "t" : "" }),
      h("span", { class: "num", title: n.input_tokens + " in + " + n.output_tokens + " out", text: n.input_tokens + n.output_tokens ? thousands(n.input_tokens + n.output_tokens) : "" }),
      h("span", { class: "num", title: n.cost_usd == null && n.kind === "task" && n.finished_at ? "cost unknown" : null, text: n.cost_usd != null ? cost(n.cost_usd) : "" }));
    const time = h("div", { class: "cell-time" });
    const now = st.run && !st.run.finished_at ? Date.now() - new Date(st.run.started_at).getTime() : st.span;
    let s = n.start_ms, e = n.end_ms;
    let cls = n.status + (n.kind === "step" ? " step" : "") + (n.replayed ? " replayed" : "");
    if (s == null && n.status === "pending" && n.queued_ms == null) {
      const p = st.nodes.get(n.parent);
      s = p && p.start_ms != null ? p.start_ms : null;
      e = s != null ? (st.run && st.run.finished_at ? s : now) : null;
    } else if (s != null && e == null) e = now;
    // The time before the call started: from when it was begun (it then
    // waits for a concurrency slot, runs the template's command, reads its
    // files and builds its prompt) to its start (or now).
    const q = n.queued_ms;
    if (q != null && n.kind !== "step" && (n.start_ms == null ? n.status === "pending" : n.start_ms - q > st.span * 0.004)) {
      const until = n.start_ms ?? (st.run && st.run.finished_at ? q : now);
      time.append(h("div", { class: "bar wait", style: `left:${(q / st.span) * 100}%;width:${Math.max(((until - q) / st.span) * 100, 0.15)}%`,
        title: `queued ${duration((until - q) / 1000)} before it started` }));
      if (n.start_ms == null) { s = null; }
    }
    if (s != null) {
      const l = (s / st.span) * 100, w = Math.max(((e - s) / st.span) * 100, 0.15);
      time.append(h("div", { class: "bar " + cls, style: `left:${l}%;width:${w}%`, title: `${n.kind} ${n.name}${n.label ? " " + n.label : ""}: ${duration(s / 1000) || "0"} → ${e != null ? duration(e / 1000) : "…"}` }));
      if (e - s > 0) {
        // The duration goes right of the bar, else left of it (unless a
        // slot wait is drawn there), else inside it; with room for none,
        // it is only in the bar's title.
        const label = duration((e - s) / 1000);
        const W = timeWidth(), need = label.length * 6.5 + 6;
        const px = (p) => (p / 100) * W;
        if (px(l + w) + need <= W) time.append(h("span", { class: "bar-label", style: `left:calc(${l + w}% + 4px)`, text: label }));
        else if (px(l) >= need && !time.querySelector(".bar.wait")) time.append(h("span", { class: "bar-label", style: `right:calc(${100 - l}% + 4px)`, text: label }));
        else if (px(w) >= need) time.append(h("span", { class: "bar-label inside", style: `left:calc(${l}% + 4px)`, text: label }));
      }
    }
    const row = h("div", { class: "row" + (n.seq === st.sel ? " sel" : ""), "data-seq": n.seq, style: `transform:translateY(${0}px)` }, nameCell, meta, time);
    row.addEventListener("click", () => { select(n.seq, true); reveal(detail); });
    row.addEventListener("dblclick", () => k && toggle(n.seq));
    return row;
  }

  function draw() {
    const top = body.scrollTop, height = body.clientHeight || 800;
    const first = Math.max(0, Math.floor(top / ROW) - 10);
    const last = Math.min(st.visible.length, Math.ceil((top + height) / ROW) + 10);
    rowsEl.style.transform = `translateY(${first * ROW}px)`;
    const frag = document.createDocumentFragment();
    for (let i = first; i < last; i++) frag.append(rowFor(st.visible[i]));
    rowsEl.replaceChildren(frag);
  }
  let raf = 0;
  body.addEventListener("scroll", () => { if (!raf) raf = requestAnimationFrame(() => { raf = 0; draw(); }); });
  // The timeline is laid out for its width: again whenever that changes
  // (the window, the call panel opening or closing).
  let lastWidth = 0;
  const resized = new ResizeObserver(() => {
    const w = axis.clientWidth;
    if (w && w !== lastWidth && st.run) { lastWidth = w; drawAxis(); draw(); }
  });
  resized.observe(axis);

  function toggle(seq) {
    if (!st.kids.get(seq)) return;
    if (st.collapsed.has(seq)) st.collapsed.delete(seq);
    else st.collapsed.add(seq);
    relayout();
  }

  function ensureVisible(seq) {
    let n = st.nodes.get(seq);
    let changed = false;
    while (n && n.parent) {
      if (st.collapsed.delete(n.parent)) changed = true;
      n = st.nodes.get(n.parent);
    }
    if (changed) relayout();
    const i = st.visible.findIndex((x) => x.seq === seq);
    if (i < 0) return;
    const top = i * ROW;
    if (top < body.scrollTop) body.scrollTop = top;
    else if (top + ROW > body.scrollTop + body.clientHeight) body.scrollTop = top + ROW - body.clientHeight;
  }

  function select(seq, show) {
    st.sel = seq;
    ensureVisible(seq);
    draw();
    history.replaceState(null, "", `/runs/${encodeURIComponent(id)}?call=${seq}`);
    if (show) showDetail(seq);
  }

  async function showDetail(seq) {
    const n = st.nodes.get(seq);
    if (!n) return;
    detail.hidden = false;
    let c = st.details.get(seq);
    if (!c || c._status !== n.status) {
      detail.replaceChildren(detailHead(n));
      try {
        c = (await api(`/api/runs/${encodeURIComponent(id)}/calls/${seq}`)).body;
        c._status = c.status;
        st.details.set(seq, c);
      } catch (err) {
        detail.append(h("div", { class: "sect body", text: "Cannot read the call: " + err.message }));
        return;
      }
      if (st.sel !== seq) return;
    }
    detail.replaceChildren(...callDetail(c, n).filter(Boolean));
  }

  function detailHead(n, c) {
    const isAgent = (n.executor || "").startsWith("agent:");
    const dl = h("dl", { class: "kv" });
    const add = (k, v) => { if (v != null && v !== "") dl.append(h("dt", { text: k }), h("dd", { text: v })); };
    add("call", `${id}/${n.seq}`);
    add("template", n.template_source);
    add(isAgent ? "agent" : "executor", n.executor);
    add("started", n.started_at ? clock(n.started_at) + "  (+" + duration(n.start_ms / 1000) + ")" : null);
    if (n.queued_ms != null && n.start_ms != null && n.start_ms - n.queued_ms >= 1) add("queued", duration((n.start_ms - n.queued_ms) / 1000) + " before it started (waiting for a slot, running the template's command, building the prompt)");
    if (n.start_ms != null && n.end_ms != null) add("duration", duration((n.end_ms - n.start_ms) / 1000));
    if (n.turns) add("turns", String(n.turns));
    if (n.input_tokens + n.output_tokens) add("tokens", `${thousands(n.input_tokens)} in + ${thousands(n.output_tokens)} out`);
    add("cost", n.cost_usd != null ? cost(n.cost_usd) : n.kind === "task" && n.finished_at ? "unknown" : null);
    if (n.attempts) add("attempts", String(n.attempts));
    if (c && c.input_hash) add(n.kind === "task" ? "request hash" : "hash", c.input_hash.slice(0, 16) + "…");
    return h("div", { class: "detail-head" },
      h("button", { class: "icon close", type: "button", title: "Close (esc)", text: "✕", onclick: () => { detail.hidden = true; } }),
      h("h2", null, badge(n.status), h("span", { class: "tag", text: isAgent ? "agent" : n.kind }), n.kind === "step" ? JSON.stringify(n.name) : n.name,
        n.replayed ? h("span", { class: "tag replayed", title: "The result came from the run this one resumes; no model was called.", text: "replayed" }) : null,
        n.seq === st.current ? h("span", { class: "tag current", text: "current" }) : null),
      dl);
  }

  function callDetail(c, n) {
    const out = [detailHead(n, c)];
    const err = c.error || (c.status === "failed" && c.notes && c.notes.error ? c.notes.error.message : "");
    if (c.status === "failed" || err) out.push(section("Error", errBox(c.error_display, err || c.summary || "failed") || h("div", { class: "none", text: "no message" }), { sub: c.summary }));
    if (n.replayed) out.push(section("Replayed", h("div", { class: "none", text: `This result was replayed from ${st.run.resumed_from || "an earlier run"} (SPEC §16.4): no model call, no tools run.` })));
    if (c.kind === "task") {
      out.push(section("System prompt", textBlock(c.system_prompt), { open: false, sub: c.system_prompt != null ? thousands(c.system_prompt.length) + " chars" : "", copy: c.system_prompt ?? undefined }));
      out.push(section("User prompt", textBlock(c.user_prompt), { sub: c.user_prompt != null ? thousands(c.user_prompt.length) + " chars" : "", copy: c.user_prompt ?? undefined }));
    }
    if (c.kind !== "step") {
      out.push(section("Answer", textBlock(c.answer), { sub: c.answer != null ? thousands(c.answer.length) + " chars" : "", copy: c.answer ?? undefined }));
      if (c.parsed_content != null) out.push(section("parsedContent", treeBlock(c.parsed_content)));
      out.push(section("Notes", treeBlock(c.notes), { open: false }));
    } else {
      // A string value (a step's output text) reads as text; others as a tree.
      if (typeof c.result === "string") out.push(section("Value", textBlock(c.result), { sub: thousands(c.result.length) + " chars", copy: c.result }));
      else out.push(section("Value", treeBlock(c.result)));
    }
    if (c.inputs != null || c.kind !== "step") out.push(section(c.kind === "tool" ? "Parameters" : "Inputs", treeBlock(c.inputs), { open: c.kind === "tool" }));
    return out;
  }

  function renderHead() {
    const r = st.run;
    const facts = h("div", { class: "facts" });
    const f = (label, val) => facts.append(h("span", null, label + " ", h("b", { text: val })));
    f("workflow", r.workflow);
    f("started", clock(r.started_at));
    f("duration", duration(r.duration_seconds));
    f("calls", thousands(r.calls));
    f("tokens", thousands(r.tokens));
    if (r.cost_usd > 0 || r.replayed_cost_usd > 0) f("cost", cost(r.cost_usd));
    if (r.replayed_cost_usd) f("replayed", cost(r.replayed_cost_usd));
    if (r.cost_unknown_calls) facts.append(h("span", { class: "muted", text: `cost unknown for ${r.cost_unknown_calls} call${r.cost_unknown_calls === 1 ? "" : "s"}` }));
    const text = argsText(r);
    if (text) facts.append(h("span", { title: text }, "args ", h("b", { class: "mono", text: text.length > 60 ? text.slice(0, 59) + "…" : text })));
    if (r.final != null) {
      const text = JSON.stringify(r.final);
      facts.append(h("span", { title: text.length > 60 ? text : null }, "value ", h("b", { class: "mono", text: text.length > 60 ? text.slice(0, 59) + "…" : text })));
    }
    if (r.resumed_from) facts.append(h("span", null, "resumed from ", h("a", { href: "/runs/" + encodeURIComponent(r.resumed_from), "data-link": true, class: "mono", text: r.resumed_from })));
    const replayed = st.order.filter((n) => n.replayed).length;
    if (replayed) facts.append(h("span", null, h("b", { text: thousands(replayed) }), " replayed"));
    head.replaceChildren(...[
      h("div", { class: "crumbs" }, h("a", { href: "/", "data-link": true, text: "Runs" }), " / ", r.id),
      h("div", { class: "run-title" }, badge(r.status), h("h1", { text: r.id }),
        st.current != null ? h("a", { href: "#", class: "tag current", text: "current: #" + st.current, onclick: (e) => { e.preventDefault(); select(st.current, true); } }) : null),
      facts,
      r.error ? errBox(r.error_display, r.error) : null].filter(Boolean));
  }

  function apply(ev, all) {
    st.run = ev.run;
    st.current = ev.current;
    if (all) st.nodes.clear();
    for (const n of ev.nodes) {
      const old = st.nodes.get(n.seq);
      if (old && old.status !== n.status) st.details.delete(n.seq);
      st.nodes.set(n.seq, n);
    }
    relayout();
    renderHead();
    if (st.sel != null && detail.hidden === false && st.nodes.get(st.sel) && !st.details.has(st.sel)) showDetail(st.sel);
  }

  let es = null;
  let ticker = null;
  (async () => {
    try {
      const { body } = await api(`/api/runs/${encodeURIComponent(id)}?view=flat`);
      if (body.run.id !== id) {
        id = body.run.id;
        history.replaceState(null, "", `/runs/${encodeURIComponent(id)}` + location.search);
      }
      apply(body, true);
    } catch (err) {
      head.append(h("div", { class: "errbox", text: err.message }));
      trace.hidden = true;
      return;
    }
    if (st.sel != null && st.nodes.has(st.sel)) select(st.sel, true);
    if (!st.run.finished_at) {
      es = new EventSource(`/api/runs/${encodeURIComponent(id)}/events`);
      let first = true;
      es.onopen = () => setLive(true);
      es.addEventListener("calls", (e) => { apply(JSON.parse(e.data), first); first = false; });
      es.addEventListener("end", (e) => { st.run = JSON.parse(e.data); es.close(); setLive(false); clearInterval(ticker); relayout(); renderHead(); });
      es.onerror = () => setLive(false);
      ticker = setInterval(() => { relayout(); }, 1000); // running bars grow
    }
    body.focus({ preventScroll: true });
  })();

  function step(d) {
    if (!st.visible.length) return;
    let i = st.visible.findIndex((n) => n.seq === st.sel);
    i = i < 0 ? 0 : Math.max(0, Math.min(st.visible.length - 1, i + d));
    select(st.visible[i].seq, !detail.hidden);
  }

  return {
    close: () => { if (es) es.close(); clearInterval(ticker); setLive(false); resized.disconnect(); },
    keydown(e) {
      const k = e.key;
      if (k === "j" || k === "ArrowDown") step(1);
      else if (k === "k" || k === "ArrowUp") step(-1);
      else if (k === "Enter") {
        if (st.sel == null) step(0);
        else if (detail.hidden) { showDetail(st.sel); reveal(detail); }
        else toggle(st.sel);
      } else if (k === "h" || k === "ArrowLeft") {
        if (st.sel == null) return true;
        if (st.kids.get(st.sel) && !st.collapsed.has(st.sel)) toggle(st.sel);
        else { const n = st.nodes.get(st.sel); if (n && n.parent) select(n.parent, !detail.hidden); }
      } else if (k === "l" || k === "ArrowRight") {
        if (st.sel != null && st.collapsed.has(st.sel)) toggle(st.sel);
      } else if (k === "c" && st.current != null) select(st.current, true);
      else if (k === "Escape") {
        if (!detail.hidden) detail.hidden = true;
        else go("/");
      } else return false;
      return true;
    },
  };
}

// ---------- plans ----------

function plansPage() {
  const root = h("section", { class: "page" }, h("div", { class: "page-title" }, h("h1", { text: "Plans" }), h("span", { class: "muted", text: ".workflow/active" })));
  main.append(root);
  const st = { sel: 0, plans: [] };
  const tbody = h("tbody");
  (async () => {
    try {
      st.plans = (await api("/api/plans")).body;
    } catch (err) {
      root.append(h("div", { class: "empty-state", text: err.message }));
      return;
    }
    if (!st.plans.length) {
      root.append(h("div", { class: "empty-state" }, "No plans. A plan is a folder ", h("code", { text: ".workflow/active/WFS-NAME/" }), " with ", h("code", { text: ".task/IMPL-*.json" }), " files."));
      return;
    }
    tbody.replaceChildren(...st.plans.map((p, i) => h("tr", { class: i === 0 ? "sel" : null, onclick: () => go("/plans/" + encodeURIComponent(p.dir)) },
      h("td", null, h("a", { href: "/plans/" + encodeURIComponent(p.dir), "data-link": true, class: "mono", text: p.dir })),
      h("td", { class: "num", text: p.tasks }),
      h("td", null, ...["completed", "active", "pending", "blocked"].filter((s) => p.counts[s]).map((s) => [badge(`${p.counts[s]} ${s}`), " "])),
      h("td", { class: "mono opt", text: p.current || "" }),
      h("td", { class: "opt", text: ago(p.updated_at) }))));
    for (const [i, tr] of [...tbody.children].entries()) {
      const p = st.plans[i];
      tr.querySelectorAll(".badge").forEach((b) => { const s = b.textContent.split(" ")[1]; b.className = "badge s-" + s; });
      tr.dataset.dir = p.dir;
    }
    root.append(h("table", { class: "grid" }, h("thead", null, h("tr", null, h("th", { text: "Plan" }), h("th", { class: "num", text: "Tasks" }), h("th", { text: "States" }), h("th", { class: "opt", text: "Current" }), h("th", { class: "opt", text: "Updated" }))), tbody));
  })();
  return {
    keydown(e) {
      if (e.key === "j" || e.key === "ArrowDown") moveSel(tbody.children, st, 1);
      else if (e.key === "k" || e.key === "ArrowUp") moveSel(tbody.children, st, -1);
      else if (e.key === "Enter" && st.plans[st.sel]) go("/plans/" + encodeURIComponent(st.plans[st.sel].dir));
      else return false;
      return true;
    },
  };
}

function planPage(dir, params) {
  const st = { plan: null, sel: 0 };
  const root = h("section", { class: "page" });
  main.append(root);
  const graph = h("div", { class: "graph-wrap" });
  const tbody = h("tbody");
  const side = h("aside", { class: "side", hidden: true });
  let tasks = [];

  function selectTask(i, show) {
    if (i < 0 || i >= tasks.length) return;
    tbody.children[st.sel]?.classList.remove("sel");
    st.sel = i;
    const tr = tbody.children[i];
    tr.classList.add("sel");
    tr.scrollIntoView({ block: "nearest" });
    graph.querySelectorAll(".node").forEach((g) => g.classList.toggle("sel", g.dataset.id === tasks[i].id));
    history.replaceState(null, "", `/plans/${encodeURIComponent(dir)}?task=${encodeURIComponent(tasks[i].id)}`);
    if (show) showTask(tasks[i]);
  }

  // stepOutput is one node of the task's run: a step with its output or
  // a call with its answer, folded, in monospace, with copy.
  function stepOutput(t, o) {
    const sub = [o.tokens ? thousands(o.tokens) + " tok" : "", o.started_at && o.finished_at ? duration((new Date(o.finished_at) - new Date(o.started_at)) / 1000) : ""].filter(Boolean).join(" · ");
    return h("details", { class: "step-out", "data-seq": o.seq, open: o.status === "failed" },
      h("summary", null, badge(o.status), h("span", { class: "tag", text: o.kind }), h("b", { class: "mono", text: o.name }),
        sub ? h("span", { class: "sub", text: sub }) : null,
        o.output != null && o.output !== "" ? copyButton(o.output) : null),
      h("div", { class: "body" },
        o.error ? h("pre", { class: "errbox", text: o.error }) : null,
        o.output == null ? h("div", { class: "none", text: o.status === "running" ? "running" : "no output recorded" })
          : o.output === "" ? h("div", { class: "none", text: "empty" }) : h("pre", { class: "text mono", text: o.output }),
        h("a", { class: "muted", href: `/runs/${encodeURIComponent(t.run)}?call=${o.seq}`, "data-link": true, text: `open call ${o.seq} in the run` })));
  }

  function showTask(t) {
    side.hidden = false;
    const dl = h("dl", { class: "kv" });
    const add = (k, v) => { if (v) dl.append(h("dt", { text: k }), h("dd", null, v)); };
    add("file status", t.file_status);
    add("reason", t.reason);
    add("agent", t.agent);
    add("depends on", t.depends_on.join(", "));
    add("blocked by", t.blocked_by.join(", "));
    add("parent", t.parent);
    add("subtasks", t.children.join(", "));
    if (t.run) add("run", h("a", { href: `/runs/${encodeURIComponent(t.run)}` + (t.call != null ? `?call=${t.call}` : ""), "data-link": true, class: "run-link", text: t.run }));
    add("started", clock(t.started_at));
    add("finished", clock(t.finished_at) + (t.started_at && t.finished_at ? ` (${duration((new Date(t.finished_at) - new Date(t.started_at)) / 1000)})` : ""));
    if (t.run) add("tokens", thousands(t.tokens));
    if (t.run && t.cost_usd) add("cost", cost(t.cost_usd));
    let json = null;
    try { json = JSON.parse(JSON.stringify(t.json)); } catch (e) { json = t.json; }
    const outs = t.outputs || [];
    side.replaceChildren(
      h("div", { class: "detail-head" },
        h("button", { class: "icon close", type: "button", text: "✕", title: "Close (esc)", onclick: () => (side.hidden = true) }),
        h("h2", null, badge(t.status), t.id, t.current ? h("span", { class: "tag current", text: "current" }) : null),
        h("div", { text: t.title }), dl),
      section("Steps", t.steps.length ? h("div", null, ...t.steps.map((s) => h("div", { style: "margin-bottom:6px" },
        h("span", { class: "tag", text: s.phase === "pre_analysis" ? "pre" : "impl" }), " ", h("b", { text: s.name || "" }),
        s.command ? h("pre", { class: "text", text: s.command }) : null, s.output ? h("div", { class: "muted mono", text: "→ " + s.output }) : null))) : h("div", { class: "none", text: "no steps" })),
      section("Step outputs", outs.length ? h("div", { class: "step-outs" }, ...outs.map((o) => stepOutput(t, o)))
        : h("div", { class: "none", text: t.run ? "no step recorded in the run" : "not run yet" }), { sub: outs.length ? `${outs.length} from the run` : "" }),
      section("Summary", t.summary != null ? h("pre", { class: "text md", text: t.summary }) : h("div", { class: "none", text: "no summary yet" }), { copy: t.summary ?? undefined }),
      section("Task JSON", treeBlock(json), { open: true }));
  }

  (async () => {
    let p;
    try {
      p = (await api("/api/plans/" + encodeURIComponent(dir))).body;
    } catch (err) {
      root.append(h("div", { class: "empty-state", text: err.message }));
      return;
    }
    st.plan = p;
    tasks = p.tasks;
    const c = p.counts;
    root.append(...[
      h("div", { class: "crumbs" }, h("a", { href: "/plans", "data-link": true, text: "Plans" }), " / ", dir),
      h("div", { class: "page-title" }, h("h1", { class: "mono", text: dir }),
        ...["completed", "active", "pending", "blocked"].filter((s) => c[s]).map((s) => h("span", { class: "badge s-" + s, text: `${c[s]} ${s}` })),
        p.current ? h("span", { class: "tag current", text: "current: " + p.current }) : null),
      // Errors in red; warnings (FILE:L:C: warning: …) apart, as plan check prints them.
      ...[[p.problems.filter((x) => !x.includes(": warning: ")), "errbox"], [p.problems.filter((x) => x.includes(": warning: ")), "warnbox"]]
        .map(([xs, cls]) => (xs.length ? h("pre", { class: cls, text: xs.join("\n") }) : null)),
      h("div", { class: "plan-layout" }, h("div", { class: "main-col" }, graph,
        h("table", { class: "grid" }, h("thead", null, h("tr", null, h("th", { text: "Task" }), h("th", { text: "Title" }), h("th", { text: "State" }), h("th", { class: "opt", text: "Agent" }), h("th", { class: "opt", text: "Depends on" }), h("th", { class: "opt num", text: "Tokens" }), h("th", { class: "opt", text: "Finished" }))), tbody)), side)].filter(Boolean));
    tbody.replaceChildren(...tasks.map((t, i) => h("tr", { "data-id": t.id, onclick: () => { selectTask(i, true); reveal(side); } },
      h("td", { class: "mono" }, t.parent ? h("span", { class: "indent" }) : null, t.id),
      h("td", { class: "wrap", title: t.title || null }, h("span", { class: "clamp", text: t.title }), t.current ? [" ", h("span", { class: "tag current", text: "current" })] : null),
      h("td", null, badge(t.status), t.blocked_by.length ? h("span", { class: "muted", text: " " + t.blocked_by.join(", ") }) : null),
      h("td", { class: "mono opt", text: t.agent }),
      h("td", { class: "mono opt", text: t.depends_on.join(", ") }),
      h("td", { class: "num opt", text: t.run ? thousands(t.tokens) : "" }),
      h("td", { class: "opt", title: t.finished_at || "", text: ago(t.finished_at) }))));
    try {
      const r = await fetch("/api/plans/" + encodeURIComponent(dir) + "/graph.svg");
      graph.innerHTML = await r.text();
      graph.querySelectorAll(".node").forEach((g) => g.addEventListener("click", () => { selectTask(tasks.findIndex((t) => t.id === g.dataset.id), true); reveal(side); }));
    } catch (err) {
      graph.textContent = "Cannot draw the graph: " + err.message;
    }
    const want = params.get("task");
    const i = want ? tasks.findIndex((t) => t.id === want) : tasks.findIndex((t) => t.current);
    if (tasks.length) selectTask(Math.max(i, 0), !!want);
  })();

  return {
    keydown(e) {
      if (e.key === "j" || e.key === "ArrowDown") selectTask(st.sel + 1, !side.hidden);
      else if (e.key === "k" || e.key === "ArrowUp") selectTask(st.sel - 1, !side.hidden);
      else if (e.key === "Enter") { showTask(tasks[st.sel]); reveal(side); }
      else if (e.key === "Escape") { if (!side.hidden) side.hidden = true; else go("/plans"); }
      else return false;
      return true;
    },
  };
}

// ---------- templates ----------

let templateCache = null;
async function loadTemplates() {
  if (!templateCache) templateCache = api("/api/templates").then((r) => r.body).catch((e) => { templateCache = null; throw e; });
  return templateCache;
}

function highlightXML(xml) {
  return esc(xml)
    .replace(/(&lt;!--[\s\S]*?--&gt;)/g, '<span class="c">$1</span>')
    .replace(/(&lt;\/?)([\w:-]+)/g, '$1<span class="t">$2</span>')
    .replace(/([\w:-]+)=(&quot;[^&]*?&quot;)/g, '<span class="a">$1</span>=$2')
    .replace(/(\{\{[\s\S]*?\}\})/g, '<span class="p">$1</span>');
}

function templatesPage(params) {
  const root = h("section", { class: "page" }, h("div", { class: "page-title" }, h("h1", { text: "Templates" })));
  main.append(root);
  const st = { sel: 0, list: [] };
  const tbody = h("tbody");
  const side = h("aside", { class: "side", hidden: true });
  const filter = h("input", { class: "filter", type: "search", placeholder: "Filter by name, alias or description", value: params.get("q") || "", "aria-label": "Filter templates" });
  const countEl = h("span", { class: "count" });
  let all = [];

  function show(t) {
    side.hidden = false;
    const dl = h("dl", { class: "kv" });
    const add = (k, v) => { if (v) dl.append(h("dt", { text: k }), h("dd", { text: v })); };
    add("source", t.source);
    add("alias", t.alias);
    add("type", t.type + (t.subtype ? ":" + t.subtype : ""));
    add("shadowed by", t.shadowed_by);
    const pre = h("pre", { class: "text xml" });
    pre.innerHTML = highlightXML(t.xml || "");
    side.replaceChildren(
      h("div", { class: "detail-head" },
        h("button", { class: "icon close", type: "button", text: "✕", title: "Close (esc)", onclick: () => (side.hidden = true) }),
        h("h2", null, h("span", { class: "tag", text: t.scope }), t.name, t.shadowed_by ? h("span", { class: "tag shadowed", text: "shadowed by " + t.shadowed_by }) : null),
        h("div", { class: "muted", text: t.description }), dl),
      section("Source", pre, { copy: t.xml }));
  }

  function select(i, open) {
    const rows = [...tbody.querySelectorAll("tr[data-i]")];
    if (!rows.length) return;
    i = Math.max(0, Math.min(rows.length - 1, i));
    rows[st.sel]?.classList.remove("sel");
    st.sel = i;
    rows[i].classList.add("sel");
    rows[i].scrollIntoView({ block: "nearest" });
    const t = st.list[i];
    history.replaceState(null, "", "/templates?name=" + encodeURIComponent(t.name) + (filter.value ? "&q=" + encodeURIComponent(filter.value) : ""));
    if (open) show(t);
  }

  function render() {
    const q = filter.value.trim().toLowerCase();
    st.list = all.filter((t) => !q || [t.name, t.alias, t.description, t.type + ":" + t.subtype].some((s) => (s || "").toLowerCase().includes(q)));
    countEl.textContent = `${st.list.length} template${st.list.length === 1 ? "" : "s"}`;
    const rows = [];
    let group = null;
    st.list.forEach((t, i) => {
      const g = t.scope + "\u0000" + t.dir;
      if (g !== group) {
        group = g;
        const n = st.list.filter((x) => x.scope === t.scope && x.dir === t.dir).length;
        // The asset library is listed last, as `templates list` does: not
        // active until copied in.
        const hint = t.scope === "asset" ? h("span", { class: "muted", text: "  not active; add with: evalrun templates add NAME" })
          : t.dir ? h("span", { class: "muted mono", text: "  " + t.dir }) : null;
        rows.push(h("tr", { class: "group-head" }, h("td", { colspan: 3 }, `${t.scope === "asset" ? "assets" : t.scope} (${n})`, hint)));
      }
      rows.push(h("tr", { "data-i": i, "data-name": t.name, onclick: () => { select(i, true); reveal(side); } },
        h("td", { class: "mono name" }, t.name, t.alias ? h("span", { class: "muted", text: ` (${t.alias})` }) : null,
          t.shadowed_by ? [" ", h("span", { class: "tag shadowed", text: "shadowed by " + t.shadowed_by })] : null),
        h("td", { class: "wrap", text: t.description }),
        h("td", { class: "mono opt", text: t.path + (t.line ? ":" + t.line : "") })));
    });
    tbody.replaceChildren(...rows);
    st.sel = 0;
  }

  (async () => {
    try {
      all = await loadTemplates();
    } catch (err) {
      root.append(h("div", { class: "empty-state", text: err.message }));
      return;
    }
    root.append(h("div", { class: "toolbar" }, filter, countEl),
      h("div", { class: "plan-layout" }, h("div", { class: "main-col" },
        h("table", { class: "grid" }, h("thead", null, h("tr", null, h("th", { text: "Name" }), h("th", { text: "Description" }), h("th", { class: "opt", text: "File" }))), tbody)), side));
    render();
    const want = params.get("name");
    const i = want ? st.list.findIndex((t) => t.name === want) : 0;
    select(Math.max(i, 0), !!want && i >= 0);
  })();
  filter.addEventListener("input", () => { render(); select(0, false); });

  return {
    keydown(e) {
      if (e.key === "j" || e.key === "ArrowDown") select(st.sel + 1, !side.hidden);
      else if (e.key === "k" || e.key === "ArrowUp") select(st.sel - 1, !side.hidden);
      else if (e.key === "Enter" && st.list[st.sel]) { show(st.list[st.sel]); reveal(side); }
      else if (e.key === "Escape") { if (!side.hidden) side.hidden = true; else if (filter.value) { filter.value = ""; render(); select(0, false); } }
      else return false;
      return true;
    },
  };
}

// ---------- search ----------

const search = $("#search");
const results = $("#search-results");
let searchSel = 0;

function closeSearch() { results.hidden = true; }

async function runSearch() {
  const q = search.value.trim();
  if (!q) { closeSearch(); return; }
  const [runs, temps] = await Promise.all([
    api("/api/runs?limit=6&q=" + encodeURIComponent(q)).then((r) => r.body).catch(() => []),
    loadTemplates().catch(() => []),
  ]);
  if (search.value.trim() !== q) return;
  const ql = q.toLowerCase();
  const ts = temps.filter((t) => [t.name, t.alias, t.description].some((s) => (s || "").toLowerCase().includes(ql))).slice(0, 6);
  const items = [];
  if (runs.length) items.push(h("h4", { text: "Runs" }), ...runs.map((r) => h("a", { href: "/runs/" + encodeURIComponent(r.id), "data-link": true }, badge(r.status), h("span", { class: "mono", text: r.id }), h("span", { class: "muted", text: r.workflow }))));
  if (ts.length) items.push(h("h4", { text: "Templates" }), ...ts.map((t) => h("a", { href: "/templates?name=" + encodeURIComponent(t.name), "data-link": true }, h("span", { class: "tag", text: t.scope }), h("span", { class: "mono", text: t.name }), h("span", { class: "muted", text: t.description.slice(0, 60) }))));
  if (!items.length) items.push(h("div", { class: "empty", text: "Nothing matches." }));
  results.replaceChildren(...items);
  searchSel = 0;
  results.querySelector("a")?.classList.add("sel");
  results.hidden = false;
}

let searchTimer;
search.addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(runSearch, 120); });
search.addEventListener("focus", () => { if (search.value.trim()) runSearch(); });
search.addEventListener("keydown", (e) => {
  const links = [...results.querySelectorAll("a")];
  if (e.key === "ArrowDown" || e.key === "ArrowUp") {
    e.preventDefault();
    if (!links.length) return;
    links[searchSel]?.classList.remove("sel");
    searchSel = (searchSel + (e.key === "ArrowDown" ? 1 : -1) + links.length) % links.length;
    links[searchSel].classList.add("sel");
  } else if (e.key === "Enter") {
    e.preventDefault();
    if (links[searchSel]) { go(links[searchSel].getAttribute("href")); search.blur(); }
  } else if (e.key === "Escape") {
    search.value = ""; closeSearch(); search.blur();
  }
});
document.addEventListener("click", (e) => { if (!e.target.closest(".search")) closeSearch(); });

// ---------- keyboard, theme, help ----------

let gPending = false;
document.addEventListener("keydown", (e) => {
  if (e.metaKey || e.ctrlKey || e.altKey) return;
  const t = e.target;
  if (t.closest && t.closest("input, textarea, select")) {
    if (e.key === "Escape" && t !== search) { t.blur(); }
    return;
  }
  const help = $("#help");
  if (!help.hidden) { help.hidden = true; e.preventDefault(); return; }
  if (e.key === "/") { e.preventDefault(); search.focus(); search.select(); return; }
  if (e.key === "?") { help.hidden = false; return; }
  if (gPending) {
    gPending = false;
    const to = { r: "/", p: "/plans", t: "/templates" }[e.key];
    if (to) { go(to); e.preventDefault(); return; }
  }
  if (e.key === "g") { gPending = true; setTimeout(() => (gPending = false), 800); return; }
  if (page && page.keydown && page.keydown(e)) e.preventDefault();
});
$("#help-btn").addEventListener("click", () => ($("#help").hidden = false));
$("#help").addEventListener("click", (e) => { if (e.target.id === "help") e.currentTarget.hidden = true; });

const themeBtn = $("#theme");
function showTheme() {
  const t = document.documentElement.dataset.theme || "system";
  themeBtn.title = "Theme: " + (t === "system" ? "follows the system" : t) + " (click to change)";
  themeBtn.textContent = t === "dark" ? "☾" : t === "light" ? "☀" : "◐";
}
themeBtn.addEventListener("click", () => {
  const order = ["system", "light", "dark"];
  const cur = document.documentElement.dataset.theme || "system";
  const next = order[(order.indexOf(cur) + 1) % order.length];
  if (next === "system") { delete document.documentElement.dataset.theme; localStorage.removeItem("evalrun-theme"); }
  else { document.documentElement.dataset.theme = next; localStorage.setItem("evalrun-theme", next); }
  showTheme();
});
showTheme();

route();
