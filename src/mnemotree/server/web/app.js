// The memory browser: plain modules over the JSON API, no build step.
// Every piece of memory text is set with textContent, never parsed as HTML.

const KEY = "mnemotree.key";
const PAGE = 200; // children fetched per expand ("more" fetches the next page)

const $ = (selector) => document.querySelector(selector);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "data") Object.assign(node.dataset, value);
    else if (name === "style") Object.assign(node.style, value); // CSSOM: allowed by the CSP
    else node.setAttribute(name, value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function status(message, kind = "") {
  const line = $("#status");
  line.textContent = message;
  line.className = kind;
}

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
  }
}

async function api(method, path, body) {
  const headers = { accept: "application/json" };
  const key = sessionStorage.getItem(KEY);
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => null);
  if (response.status === 401) askForKey(data && data.message);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

function askForKey(why) {
  $("#key-form").hidden = false;
  status(why ? `${why}: paste an API key above` : "paste an API key above", "error");
}

// Runs `work`, reporting a failure in the status line instead of losing it.
async function guarded(work) {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) status(error.message, "error");
    return undefined;
  }
}

const short = (text, n = 140) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);
const when = (iso) => (iso ? iso.replace("T", " ").slice(0, 16) : "");

// -- tree ---------------------------------------------------------------------------

function nodeRow(node) {
  const expandable = node.children > 0;
  const kids = el("ul", { class: "children", hidden: "" });
  const toggle = el("button", {
    class: "toggle", text: expandable ? "▸" : "·", "aria-label": "expand",
    ...(expandable ? {} : { disabled: "" }),
  });
  const label = el(
    "button", { class: "label", onclick: () => showNode(node.id) },
    node.is_summary || node.context_type
      ? el("span", { class: `kind ${node.is_summary ? "summary" : ""}`,
        text: node.is_summary ? "summary" : node.context_type })
      : null,
    el("span", { class: "name", text: short(node.context_name || node.text, 110) }),
    expandable ? el("span", { class: "count", text: String(node.children) }) : null,
  );
  const row = el("li", { class: `node${node.is_summary ? " summary" : ""}`, data: { id: node.id } },
    el("div", { class: "line" }, toggle, label), kids);
  let loaded = false;
  toggle.addEventListener("click", async () => {
    if (!expandable) return;
    const opening = kids.hidden;
    kids.hidden = !opening;
    toggle.textContent = opening ? "▾" : "▸";
    if (opening && !loaded) {
      loaded = true;
      await loadChildren(node.id, kids, 0);
    }
  });
  return row;
}

async function loadChildren(parentId, list, offset) {
  const found = await guarded(() =>
    api("GET", `/nodes/${parentId}/children?offset=${offset}&limit=${PAGE}&counts=true`));
  if (!found) return;
  // Summaries first: they stand for the children after them.
  const ordered = [...found.filter((n) => n.is_summary), ...found.filter((n) => !n.is_summary)];
  list.append(...ordered.map(nodeRow));
  if (found.length === PAGE) {
    const more = el("li", { class: "more" });
    more.append(el("button", {
      text: "more…",
      onclick: async () => { more.remove(); await loadChildren(parentId, list, offset + PAGE); },
    }));
    list.append(more);
  }
}

async function loadTree() {
  const roots = await guarded(() => api("GET", "/roots?counts=true"));
  if (!roots) return;
  const tree = $("#tree");
  tree.replaceChildren();
  if (!roots.length) {
    tree.append(el("p", { class: "empty", text: "No memories yet: remember something, or ingest a document." }));
    return;
  }
  tree.append(el("ul", { class: "roots" }, ...roots.map(nodeRow)));
  status(`${roots.length} root${roots.length === 1 ? "" : "s"}`);
}

// -- node detail ----------------------------------------------------------------------

async function showNode(nodeId) {
  const node = await guarded(() => api("GET", `/nodes/${nodeId}`));
  if (!node) return;
  const [versions, relations] = await Promise.all([
    guarded(() => api("GET", `/nodes/${nodeId}/history`)),
    guarded(() => api("GET", `/nodes/${nodeId}/relations`)),
  ]);
  const panel = $("#detail");
  panel.hidden = false;
  panel.dataset.id = node.id;
  $("#breadcrumb").replaceChildren(...[...node.ancestors].reverse().map((a) =>
    el("button", { class: "crumb", text: short(a.context_name || a.text, 40),
      onclick: () => showNode(a.id) })));
  $("#detail-title").textContent = `${node.is_summary ? "summary" : node.context_type} ${node.id}`;
  $("#detail-text").textContent = node.text;
  const fields = [
    ["scope", node.scope], ["name", node.context_name], ["value", node.context_value],
    ["version", node.version], ["importance", node.importance], ["tokens", node.token_count],
    ["created", when(node.created_at)], ["updated", when(node.updated_at)],
    ["tags", (node.tags || []).join(", ")],
    ["metadata", Object.keys(node.metadata || {}).length ? JSON.stringify(node.metadata) : ""],
  ].filter(([, value]) => value !== "" && value !== null && value !== undefined);
  $("#detail-fields").replaceChildren(...fields.flatMap(([name, value]) =>
    [el("dt", { text: name }), el("dd", { text: String(value) })]));
  $("#versions").replaceChildren(...(versions || []).map((v) => el("li", { class: "version" },
    el("span", { class: "op", text: `v${v.version} ${v.op}` }),
    el("span", { class: "at", text: when(v.recorded_at) }),
    el("span", { class: "text", text: short(v.node.text, 200) }))));
  if (!versions || !versions.length) $("#versions").append(el("li", { class: "empty", text: "no earlier versions" }));
  $("#relations").replaceChildren(...(relations || []).map((r) => {
    const other = r.source_id === node.id ? r.target_id : r.source_id;
    const arrow = r.source_id === node.id ? "→" : "←";
    return el("li", { class: "relation" }, el("span", { text: `${r.type} ${arrow} ` }),
      el("button", { class: "link", text: other, onclick: () => showNode(other) }));
  }));
  if (!relations || !relations.length) $("#relations").append(el("li", { class: "empty", text: "none" }));
}

// -- search ---------------------------------------------------------------------------

function explanation(parts) {
  const rows = Object.entries(parts || {}).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  return el("table", { class: "explain" }, ...rows.map(([name, value]) => el("tr", {},
    el("th", { text: name }),
    el("td", {}, el("span", { class: "bar", style: { width: `${Math.min(100, value * 100)}%` } })),
    el("td", { class: "num", text: value.toFixed(3) }))));
}

async function search(event) {
  event.preventDefault();
  const query = $("#q").value.trim();
  if (!query) return;
  const hits = await guarded(() => api("POST", "/search", { query, limit: 20, explain: true }));
  if (!hits) return;
  $("#hits").replaceChildren(...hits.map((hit) => el("li", { class: "hit", data: { id: hit.id } },
    el("div", { class: "line" },
      el("span", { class: "score", text: hit.score.toFixed(3) }),
      el("button", { class: "label", text: short(hit.text, 200), onclick: () => showNode(hit.id) })),
    el("div", { class: "where", text: [...hit.ancestry].reverse().map((a) => short(a.text, 30)).join(" / ") }),
    el("details", {}, el("summary", { text: "why this score" }), explanation(hit.parts)))));
  status(`${hits.length} hit${hits.length === 1 ? "" : "s"} for “${query}”`);
}

// -- documents --------------------------------------------------------------------------

async function loadDocuments() {
  const docs = await guarded(() => api("GET", "/documents"));
  if (!docs) return;
  $("#documents tbody").replaceChildren(...docs.map((d) => el("tr", { class: "document" },
    el("td", {}, el("button", { class: "link", text: d.title || d.source, onclick: () => showNode(d.root_id) })),
    el("td", { text: d.scope }), el("td", { class: "num", text: String(d.chunks) }),
    el("td", { class: "num", text: d.pages === null ? "" : String(d.pages) }),
    el("td", { text: when(d.updated_at) }))));
  if (!docs.length) $("#documents tbody").append(el("tr", {}, el("td", { colspan: "5", class: "empty", text: "No documents yet." })));
}

// -- contradictions ------------------------------------------------------------------------

const RESOLUTIONS = [["a_wins", "Keep first"], ["b_wins", "Keep second"], ["both_valid", "Both true"]];

function side(label, id, text) {
  return el("div", { class: "side" },
    el("span", { class: "tag", text: label }),
    el("button", { class: "link", text: text ?? id, onclick: () => showNode(id) }));
}

// A contradiction waits for a person: both statements and the question to settle.
function contradictionCard(c) {
  const note = el("input", { class: "note", type: "text", placeholder: "merged statement (for Merge)" });
  const act = async (resolution) => {
    const done = await guarded(() => api("POST", `/contradictions/${c.id}/resolve`,
      { resolution, note: note.value }));
    if (done) {
      status(`resolved ${c.id}: ${resolution}`);
      await loadContradictions();
    }
  };
  const waiting = c.status !== "resolved";
  return el("li", { class: `contradiction ${c.status}`, data: { id: c.id } },
    el("p", { class: "reason", text: `${c.kind}: ${c.reason}` }),
    side("first", c.a_id, c.a_text), side("second", c.b_id, c.b_text),
    waiting ? el("p", { class: "question", text: c.status === "review"
      ? "The detectors are unsure these conflict. Do they?"
      : "Both are valid now and cannot both hold: which one does?" }) : null,
    el("p", { class: "meta", text: `${c.scope} · found ${when(c.detected_at)}${waiting ? "" : ` · ${c.resolution} ${when(c.resolved_at)}`}` }),
    waiting ? el("div", { class: "actions" },
      ...RESOLUTIONS.map(([value, label]) => el("button", { data: { resolution: value }, text: label, onclick: () => act(value) })),
      note,
      el("button", { data: { resolution: "merged" }, text: "Merge", onclick: () => act("merged") })) : null);
}

// An update was applied as it was written: the newer statement superseded the older.
function updateCard(u) {
  const revert = async () => {
    const done = await guarded(() => api("POST", `/updates/${u.id}/revert`));
    if (done) {
      status(`reverted ${u.id}: both are valid again`);
      await loadContradictions();
    }
  };
  const path = u.a_id === u.b_id;
  return el("li", { class: "update", data: { id: u.id } },
    el("p", { class: "reason", text: u.reason }),
    ...(path ? [side("entry", u.a_id, `${u.a_text ?? u.a_id} (v${u.a_version} → v${u.b_version})`)]
      : [side("older", u.a_id, u.a_text), side("newer", u.b_id, u.b_text)]),
    el("p", { class: "meta", text: `${u.scope} · updated ${when(u.resolved_at)}` }),
    el("div", { class: "actions" },
      el("button", { data: { action: "revert" }, text: "Revert", onclick: revert })));
}

async function loadContradictions() {
  const wanted = $("#contradiction-status").value;
  const updates = wanted === "updates";
  const rows = await guarded(() => api("GET", updates ? "/updates" : `/contradictions?status=${wanted}`));
  if (!rows) return;
  $("#contradictions").replaceChildren(...rows.map(updates ? updateCard : contradictionCard));
  const what = updates ? "updates" : `${wanted === "all" ? "" : wanted} contradictions`;
  if (!rows.length) $("#contradictions").append(el("li", { class: "empty", text: `No ${what}.` }));
  if (wanted === "open") $("#open-count").textContent = rows.length ? `(${rows.length})` : "";
}

// -- context preview -----------------------------------------------------------------------

async function assemble(event) {
  event.preventDefault();
  const budget = Number($("#context-budget").value) || 2000;
  const built = await guarded(() => api("POST", "/context/assemble",
    { query: $("#context-query").value, budget }));
  if (!built) return;
  $("#context-result").hidden = false;
  $("#context-summary").textContent =
    `${built.token_count} of ${built.budget} tokens · activity ${built.activity}` +
    (built.warnings.length ? ` · ${built.warnings.join("; ")}` : "");
  $("#tiers tbody").replaceChildren(...built.tiers.map((t) => el("tr", { class: "tier", data: { tier: t.name } },
    el("th", { text: t.name }), el("td", { class: "num", text: String(t.items.length) }),
    el("td", { class: "num", text: String(t.tokens) }), el("td", { class: "num", text: String(t.budget) }),
    el("td", { class: "gauge" }, el("span", { class: "bar", style: { width: `${t.budget ? Math.min(100, (100 * t.tokens) / t.budget) : 0}%` } })))));
  $("#context-text").textContent = built.text;
}

// -- wiring -----------------------------------------------------------------------------------

// -- workflows and patterns -------------------------------------------------------------

function seen(fields) {
  const parts = [];
  if (fields.support) parts.push(`seen ${fields.support}×`);
  if (typeof fields.success === "number") parts.push(`${Math.round(100 * fields.success)}% went well`);
  if (fields.functions) parts.push(`${fields.functions} functions in ${fields.files} files`);
  return parts.length ? parts.join(" · ") : "written by hand";
}

function workflowCard(w) {
  const f = w.fields;
  const trigger = [f.trigger, f.trigger_branch, f.trigger_area].filter(Boolean).join(" · ");
  const optional = (f.optional_steps || []).length ? `optional: ${f.optional_steps.join(", ")}` : null;
  return el("li", { class: "workflow", data: { id: w.id } },
    el("button", { class: "link", text: w.text, onclick: () => showNode(w.id) }),
    el("ol", { class: "steps" }, ...(f.steps || []).map((step) => el("li", { text: step }))),
    optional ? el("p", { class: "meta", text: optional }) : null,
    el("p", { class: "meta", text: `${seen(f)}${trigger ? ` · when ${trigger}` : ""} · ${w.scope}` }));
}

function patternCard(p) {
  const f = p.fields;
  return el("li", { class: "pattern", data: { id: p.id } },
    el("button", { class: "link", text: p.text, onclick: () => showNode(p.id) }),
    p.levels.hint ? el("p", { text: p.levels.hint }) : null,
    el("p", { class: "meta", text: `${seen(f)}${f.trigger ? ` · in ${f.trigger}` : ""} · ${p.scope}` }),
    el("ul", { class: "examples" }, ...(f.examples || []).map((at) => el("li", { text: at }))));
}

async function loadRoutines() {
  const [workflows, patterns] = await Promise.all([
    guarded(() => api("GET", "/workflows")), guarded(() => api("GET", "/patterns"))]);
  for (const [id, found, card, none] of [
    ["#workflows", workflows, workflowCard, "No workflows yet: record events, then detect them."],
    ["#patterns", patterns, patternCard, "No patterns yet: ingest code, then mine it."],
  ]) {
    if (!found) continue;
    $(id).replaceChildren(...found.map(card));
    if (!found.length) $(id).append(el("li", { class: "empty", text: none }));
  }
}

const LOADERS = {
  tree: loadTree, documents: loadDocuments, contradictions: loadContradictions, routines: loadRoutines,
};

function openTab(name) {
  for (const button of document.querySelectorAll("#tabs button")) {
    button.classList.toggle("active", button.dataset.tab === name);
  }
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== `tab-${name}`;
  if (LOADERS[name]) LOADERS[name]();
}

async function start() {
  for (const button of document.querySelectorAll("#tabs button")) {
    button.addEventListener("click", () => openTab(button.dataset.tab));
  }
  $("#search-form").addEventListener("submit", search);
  $("#context-form").addEventListener("submit", assemble);
  $("#contradiction-status").addEventListener("change", loadContradictions);
  $("#key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(KEY, $("#key").value.trim());
    $("#key").value = "";
    $("#key-form").hidden = true;
    status("key set");
    openTab(document.querySelector("#tabs button.active").dataset.tab);
  });
  const health = await guarded(() => api("GET", "/health"));
  if (health && health.auth && !sessionStorage.getItem(KEY)) {
    askForKey("this server needs an API key");
    return;
  }
  await loadTree();
  await loadContradictions();
}

start();
