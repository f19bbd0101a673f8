// unifind web console (issue #22). Plain script, no build step, no dependencies.
//
// Safety rule of this file: every string that came from the server (a document, a web
// page, a database row, a backend's error) reaches the page through textContent or a text
// node, never parsed as markup; links are made only of http(s) URLs. The page's CSP
// requires Trusted Types, so an HTML sink given a string would throw, not render.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const KEY = "unifind.key";
  const LANG = "unifind.lang";
  const state = { table: null, lang: "en", sources: null, rows: new Map(), searchCtl: null, askCtl: null, crawlCtl: null };

  // ---- words -------------------------------------------------------------------------
  const t = (k) => {
    const tb = state.table;
    return (tb && (tb[state.lang].ui[k] || tb.en.ui[k])) || k;
  };
  const label = (kind, word) => {
    const tb = state.table;
    const kinds = tb && tb[state.lang].labels[kind];
    return (kinds && kinds[word]) || word;
  };
  const verdictWord = (v) => {
    const tb = state.table;
    return (tb && tb[state.lang].messages["verdict_" + v]) || String(v).replace(/_/g, " ");
  };

  // ---- safe DOM ----------------------------------------------------------------------
  // C0/C1 controls and bidirectional overrides would hide or reorder text: show U+FFFD.
  const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
  const clean = (s) => String(s == null ? "" : s).replace(CONTROLS, "\uFFFD");

  function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v == null) continue;
      if (k === "text") e.textContent = clean(v);
      else if (k === "cls") e.className = v;
      else if (k === "on") for (const [name, fn] of Object.entries(v)) e.addEventListener(name, fn);
      else e.setAttribute(k, clean(v));
    }
    for (const kid of kids) if (kid != null) e.append(typeof kid === "string" ? clean(kid) : kid);
    return e;
  }

  function safeHref(u) {
    try {
      const url = new URL(String(u));
      return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
    } catch {
      return null;
    }
  }

  function link(u, text, cls) {
    const href = safeHref(u);
    if (!href) return el("span", { cls, text });
    return el("a", { cls, href, rel: "noopener noreferrer nofollow", target: "_blank", text });
  }

  function setStatus(id, text, error) {
    const p = $(id);
    p.textContent = clean(text);
    p.classList.toggle("error", Boolean(error));
  }

  // ---- the API -----------------------------------------------------------------------
  function headers(extra) {
    const h = { "Accept-Language": state.lang, ...extra };
    const key = sessionStorage.getItem(KEY);
    if (key) h.Authorization = "Bearer " + key;
    return h;
  }

  function apiError(status, data, text) {
    const e = data && data.error;
    let msg = e ? e.message : text || "HTTP " + status;
    if (e && e.field) msg += " [" + e.field + "]";
    if (status === 401) msg = t("need_key") + " (" + msg + ")";
    const err = new Error(msg);
    err.status = status;
    return err;
  }

  async function parse(r) {
    const text = await r.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!r.ok) throw apiError(r.status, data, text);
    return data;
  }

  async function api(method, path, body) {
    const init = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }) };
    if (body !== undefined) init.body = JSON.stringify(body);
    return parse(await fetch(path, init));
  }

  // POST + server-sent events (EventSource can only GET): read the stream, split blocks.
  async function stream(path, body, onEvent, signal) {
    const r = await fetch(path, {
      method: "POST",
      headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
      body: JSON.stringify(body),
      signal,
    });
    if (!r.ok) await parse(r);
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let name = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) name = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (data.length) onEvent(name, JSON.parse(data.join("\n")));
      }
    }
  }

  const newId = (prefix) =>
    prefix + "-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 8);
  const selected = (id) => [...$(id).selectedOptions].map((o) => o.value);
  const fmt = (n, d = 4) => (typeof n === "number" ? String(Number(n.toFixed(d))) : "");

  // ---- language, key, tabs -----------------------------------------------------------
  function applyLang() {
    document.documentElement.lang = state.lang === "zh" ? "zh-CN" : "en";
    if (!state.table) return;
    document.title = t("title");
    for (const e of document.querySelectorAll("[data-t]")) e.textContent = t(e.dataset.t);
    for (const e of document.querySelectorAll("th[data-c]")) e.textContent = label("column", e.dataset.c);
    const auto = $("web-provider").querySelector("option[value='']");
    if (auto) auto.textContent = t("provider_auto");
    renderRows();
    renderLegend();
    showKeyState();
  }

  function showKeyState() {
    $("key-state").textContent = sessionStorage.getItem(KEY) ? t("key_saved") : t("key_none");
  }

  function showTab(name) {
    for (const tab of document.querySelectorAll("[role=tab]")) {
      const on = tab.id === "tab-" + name;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      $(tab.getAttribute("aria-controls")).hidden = !on;
    }
    if (name === "kb") refreshKB();
  }

  function tabKeys(ev) {
    const tabs = [...document.querySelectorAll("[role=tab]")];
    const i = tabs.indexOf(ev.target);
    if (i < 0 || (ev.key !== "ArrowRight" && ev.key !== "ArrowLeft")) return;
    const next = tabs[(i + (ev.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
    next.focus();
    showTab(next.id.slice(4));
  }

  // ---- sources -----------------------------------------------------------------------
  // Counted on <body data-sources-loaded>, so a test (or a person) can tell a reload happened.
  async function loadSources() {
    try {
      await fillSources();
    } finally {
      const body = document.body.dataset;
      body.sourcesLoaded = String(Number(body.sourcesLoaded || 0) + 1);
    }
  }

  async function fillSources() {
    try {
      state.sources = await api("GET", "/v1/sources");
    } catch (e) {
      state.sources = null;
      setStatus("search-status", t("sources_failed") + ": " + e.message, true);
      for (const id of ["kb-collections", "web-provider", "db-models"]) $(id).replaceChildren();
      return;
    }
    const s = state.sources;
    const collections = s.collections.map((c) => {
      const who = c.owner ? c.owner : t("shared");
      return el("option", { value: c.name, text: c.name + " (" + who + ", " + c.documents + ")" });
    });
    $("kb-collections").replaceChildren(...collections);
    const providers = s.providers.filter((p) => p.kind === "search");
    $("web-provider").replaceChildren(
      el("option", { value: "", text: t("provider_auto") }),
      ...providers.map((p) =>
        el("option", { value: p.name, text: p.name + (p.usable ? "" : " (" + p.why + ")") }),
      ),
    );
    $("db-models").replaceChildren(...s.models.map((m) => el("option", { value: m.name, text: m.name })));
    fillCollectionPickers(s.collections);
    if ($("search-status").classList.contains("error")) setStatus("search-status", "");
  }

  function fillCollectionPickers(collections) {
    for (const id of ["up-col", "cr-col"]) {
      const keep = $(id).value;
      $(id).replaceChildren(...collections.map((c) => el("option", { value: c.name, text: c.name })));
      if (keep) $(id).value = keep;
    }
  }

  // ---- search ------------------------------------------------------------------------
  function queryTerms(q) {
    const words = q.toLowerCase().split(/[\s\p{P}\p{S}]+/u);
    const keep = words.filter((w) => w.length >= 2 || /\p{Script=Han}/u.test(w));
    return [...new Set(keep)].sort((a, b) => b.length - a.length).slice(0, 24);
  }

  const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const termsRe = (terms) => (terms.length ? new RegExp(terms.map(escapeRe).join("|"), "giu") : null);

  function excerpt(text, terms, n = 320) {
    const s = clean(text).replace(/\s+/g, " ").trim();
    if (s.length <= n) return s;
    const re = termsRe(terms);
    const m = re && re.exec(s);
    const at = m ? Math.max(0, m.index - 80) : 0;
    return (at ? "…" : "") + s.slice(at, at + n) + (at + n < s.length ? "…" : "");
  }

  function marked(tag, text, terms, cls) {
    const node = el(tag, { cls });
    const s = clean(text);
    const re = termsRe(terms);
    let last = 0;
    if (re) {
      for (const m of s.matchAll(re)) {
        if (!m[0]) continue;
        if (m.index > last) node.append(s.slice(last, m.index));
        node.append(el("mark", { text: m[0] }));
        last = m.index + m[0].length;
      }
    }
    node.append(s.slice(last));
    return node;
  }

  function sourceOf(it) {
    const kind = label("leg", it.type);
    if (it.type === "kb") return kind + " · " + (it.collection || "") + " · " + (it.document_id || "");
    if (it.type === "db") return kind + " · " + (it.model || "") + " #" + (it.record_id || "");
    const href = safeHref(it.url);
    return kind + " · " + (href ? new URL(href).host : clean(it.url || ""));
  }

  function hitNode(it, terms) {
    const title = it.title || it.url || it.document_id || it.record_id || "(untitled)";
    const head = el(
      "div",
      null,
      el("span", { cls: "ref", text: "[" + (it.citation_id || "?") + "]" }),
      it.url ? link(it.url, title, "hit-title") : el("span", { cls: "hit-title", text: title }),
    );
    const matched = (it.matched || []).map((m) => label("leg", m.leg) + ":" + m.backend + " #" + m.rank);
    const by = matched.length ? " · " + t("matched_by") + ": " + matched.join(", ") : "";
    const meta = el("div", { cls: "meta" }, sourceOf(it) + " · " + t("score") + " " + fmt(it.score) + by);
    const li = el("li", { "data-ref": it.citation_id || "", "data-type": it.type }, head, meta);
    li.append(marked("p", excerpt(it.content || "", terms), terms, "snippet"));
    return li;
  }

  function renderHits(items, terms) {
    const nodes = items.map((it) => hitNode(it, terms));
    if (!nodes.length) nodes.push(el("li", { cls: "empty", text: t("no_results") }));
    $("hits").replaceChildren(...nodes);
    renderDbRows(items.filter((it) => it.type === "db" && it.data));
  }

  function renderDbRows(rows) {
    const byModel = new Map();
    for (const r of rows) {
      if (!byModel.has(r.model)) byModel.set(r.model, []);
      byModel.get(r.model).push(r);
    }
    const out = [];
    for (const [model, list] of byModel) {
      const cols = [...new Set(list.flatMap((r) => Object.keys(r.data)))];
      const head = el("tr", null, el("th", { text: "ref" }), ...cols.map((c) => el("th", { text: c })));
      const body = list.map((r) =>
        el(
          "tr",
          null,
          el("td", { cls: "ref", text: r.citation_id || "" }),
          ...cols.map((c) => el("td", { text: r.data[c] == null ? "" : typeof r.data[c] === "object" ? JSON.stringify(r.data[c]) : r.data[c] })),
        ),
      );
      out.push(
        el("h2", { text: t("db_rows") + ": " + model }),
        el("table", { cls: "grid db", "data-model": model }, el("thead", null, head), el("tbody", null, ...body)),
      );
    }
    $("db-rows").replaceChildren(...out);
  }

  // The query behind the rows, folded under them: the DSL, and per model the SQL it
  // compiled to (placeholders) with the values bound to them, as the server sent them.
  function renderExplain(legs) {
    const out = legs.map((l) => {
      const parts = [el("summary", { text: t("explain_summary") })];
      if (l.dsl) parts.push(el("h3", { text: t("dsl") }), el("pre", { cls: "dsl", text: JSON.stringify(l.dsl, null, 2) }));
      for (const q of l.sql || []) {
        const params = Object.entries(q.params || {}).map(([k, v]) =>
          el("tr", null, el("td", { text: ":" + k }), el("td", { text: JSON.stringify(v) })),
        );
        parts.push(
          el("h3", { text: t("sql") + ": " + q.model }),
          el("pre", { cls: "sql", "data-model": q.model, text: q.sql }),
          el("table", { cls: "grid params", "data-model": q.model }, el("tbody", null, ...params)),
        );
      }
      return el("details", { cls: "explain" }, ...parts);
    });
    $("dsl").replaceChildren(...out);
  }

  const rowKey = (r) => r.leg + "/" + r.backend + "/" + (r.stage || "");

  function reportRow(r) {
    const status = r.status;
    const detail = [r.reason ? label("reason", r.reason) : "", r.error || "", r.note || ""].filter(Boolean).join(" · ");
    return el(
      "tr",
      { "data-leg": r.leg, "data-backend": r.backend, "data-status": status },
      el("td", { text: label("leg", r.leg) }),
      el("td", { text: r.backend }),
      el("td", { text: r.stage ? label("stage", r.stage) : "" }),
      el("td", null, el("span", { cls: "st st-" + status, text: status === "pending" ? t("pending") : label("status", status) })),
      el("td", { cls: "detail", text: detail }),
      el("td", { text: r.hits == null ? "" : r.hits }),
      el("td", { text: r.took_ms == null ? "" : fmt(r.took_ms, 1) }),
    );
  }

  function renderRows() {
    $("backends").tBodies[0].replaceChildren(...[...state.rows.values()].map(reportRow));
  }

  // A past request's reports, as the search page shows a live one.
  function reportTable(reports) {
    const cols = ["leg", "backend", "stage", "status", "detail", "hits", "ms"];
    const head = el("tr", null, ...cols.map((c) => el("th", { "data-c": c, text: label("column", c) })));
    return el("table", { cls: "grid reports" }, el("thead", null, head), el("tbody", null, ...reports.map(reportRow)));
  }

  // Each leg as a whole: its status, hits of how many, time and notes.
  function renderLegs(legs) {
    const line = (l) =>
      label("leg", l.type) + ": " + label("status", l.status) + ", " + l.hits + (l.total != null ? "/" + l.total : "") +
      ", " + fmt(l.took_ms, 0) + " " + t("ms") + ((l.notes || []).length ? " (" + l.notes.join("; ") + ")" : "");
    $("legs-summary").replaceChildren(...legs.map((l) => el("li", { "data-leg": l.type, text: line(l) })));
  }

  function onPlan(data) {
    state.rows.clear();
    for (const leg of data.legs || []) {
      state.rows.set("pending:" + leg.type, { leg: leg.type, backend: leg.provider || "…", status: "pending" });
    }
    renderRows();
    setStatus("search-status", t("searching") + " " + t("request") + " " + data.request_id);
  }

  function onLeg(rep) {
    state.rows.delete("pending:" + rep.leg);
    state.rows.set(rowKey(rep), rep);
    renderRows();
  }

  function onSearchDone(out, terms) {
    state.rows.clear();
    for (const rep of out.reports) state.rows.set(rowKey(rep), rep);
    renderRows();
    renderLegs(out.legs || []);
    renderHits(out.items, terms);
    renderExplain($("explain").checked ? out.legs.filter((l) => l.dsl || l.sql) : []);
    const notes = (out.notes || []).join(" · ");
    const line =
      t("overall") + ": " + label("status", out.status) + " · " + out.items.length + " " + t("results") + " · " + t("request") + " " +
      out.request_id + " · " + t("took") + " " + fmt(out.took_ms, 0) + " " + t("ms") + (notes ? " · " + notes : "");
    setStatus("search-status", line, out.status === "unavailable");
    $("search-status").dataset.overall = out.status;
    $("rid").value = out.request_id;
  }

  function markFirstPaint() {
    performance.mark("unifind:first-items");
    requestAnimationFrame(() =>
      setTimeout(() => {
        const m = performance.measure("unifind:first-paint", "unifind:first-items");
        window.unifindMetrics = { firstItemsToPaintMs: m.duration };
      }, 0),
    );
  }

  async function runSearch(ev) {
    ev.preventDefault();
    const q = $("q").value.trim();
    if (!q) return;
    const sources = {};
    if ($("use-kb").checked) {
      const cols = selected("kb-collections");
      sources.kb = cols.length ? { collections: cols } : {};
    }
    if ($("use-web").checked) {
      const p = $("web-provider").value;
      sources.web = p ? { provider: p } : {};
    }
    if ($("use-db").checked) {
      const m = selected("db-models");
      sources.db = m.length ? { models: m } : {};
      if ($("explain").checked) sources.db.explain = true;
    }
    const body = { query: q, sources, mode: $("mode").value, limit: Number($("limit").value) || 10, request_id: newId("console") };
    const terms = queryTerms(q);
    state.rows.clear();
    renderRows();
    for (const id of ["hits", "db-rows", "dsl", "legs-summary"]) $(id).replaceChildren();
    delete $("search-status").dataset.overall;
    setStatus("search-status", t("searching"));
    state.searchCtl = new AbortController();
    $("search-go").disabled = true;
    $("search-stop").disabled = false;
    let first = true;
    try {
      await stream("/v1/search?stream=true", body, (name, data) => {
        if (name === "plan") onPlan(data);
        else if (name === "leg") onLeg(data);
        else if (name === "items") {
          if (first) markFirstPaint();
          first = false;
          renderHits(data.items, terms);
        } else if (name === "done") onSearchDone(data, terms);
        else if (name === "error") setStatus("search-status", t("error") + ": " + data.error.message, true);
      }, state.searchCtl.signal);
    } catch (e) {
      setStatus("search-status", e.name === "AbortError" ? t("stop") : t("error") + ": " + e.message, e.name !== "AbortError");
    } finally {
      $("search-go").disabled = false;
      $("search-stop").disabled = true;
    }
  }

  // ---- ask ---------------------------------------------------------------------------
  const ask = { text: "", refs: new Map(), verdicts: [] };

  function renderLegend() {
    const kinds = ["supported", "contradicted", "not_supported", "unknown_id", "uncited_claim"];
    $("legend").replaceChildren(
      el("strong", { text: t("verdict_legend") + ": " }),
      ...kinds.map((k) => el("span", { cls: "v-" + k, text: "■ " + verdictWord(k) })),
    );
  }

  function renderPlan(plan) {
    const dl = $("ask-plan-body");
    const row = (k, v) => [el("dt", { text: k }), el("dd", { text: v })];
    const reqs = (plan.requests || []).map((r) => label("leg", r.type) + " (" + label("source", r.source || "") + "): " + r.query);
    dl.replaceChildren(
      ...row("why", plan.why || ""),
      ...row("legs", (plan.legs || []).map((l) => label("leg", l)).join(", ")),
      ...row("keywords", (plan.keywords || []).join(", ")),
      ...row("requests", reqs.join(" | ")),
      ...row("uses", JSON.stringify(plan.uses || {})),
      ...row("layers", JSON.stringify(plan.layers || {})),
    );
  }

  function renderAnswer() {
    const box = $("answer");
    const queue = new Map();
    for (const v of ask.verdicts) {
      if (!v.citation) continue;
      if (!queue.has(v.citation)) queue.set(v.citation, []);
      queue.get(v.citation).push(v);
    }
    const parts = clean(ask.text).split(/\[(ref_\d+)\]/);
    const nodes = [];
    parts.forEach((part, i) => {
      if (i % 2 === 0) {
        if (part) nodes.push(document.createTextNode(part));
        return;
      }
      const list = queue.get(part) || [];
      const v = list.length > 1 ? list.shift() : list[0];
      const verdict = v ? v.verdict : ask.verdicts.length ? "unknown_id" : "pending";
      nodes.push(
        el("button", {
          type: "button",
          cls: "cite v-" + verdict,
          "data-ref": part,
          "data-verdict": verdict,
          title: verdict === "pending" ? part : verdictWord(verdict),
          text: "[" + part + "]",
          on: { click: () => showEvidence(v, part) },
        }),
      );
    });
    box.replaceChildren(...nodes);
  }

  function showEvidence(v, ref) {
    const body = el("div", { id: "evidence-body" });
    if (v) {
      body.append(el("p", { cls: "v-" + v.verdict }, el("strong", { text: verdictWord(v.verdict) }), " [" + (v.citation || "") + "] ", v.reason || ""));
      body.append(el("p", { text: v.sentence }));
    }
    const ev = v && v.evidence;
    const item = ask.refs.get((ev && ev.citation_id) || ref);
    if (ev && ev.sentence) body.append(el("blockquote", { cls: "passage", text: ev.sentence }));
    else body.append(el("p", { text: t("no_passage") }));
    if (item) {
      body.append(el("p", { cls: "meta" }, "[" + item.citation_id + "] ", item.url ? link(item.url, item.title || item.url) : item.title || "", " · " + sourceOf(item)));
      body.append(marked("p", excerpt(item.content || "", ev && ev.sentence ? [ev.sentence.toLowerCase()] : [], 900), ev && ev.sentence ? [ev.sentence.toLowerCase()] : [], "snippet"));
    }
    $("evidence-body").replaceWith(body);
  }

  function renderVerdicts() {
    $("verdicts").replaceChildren(
      ...ask.verdicts.map((v) =>
        el(
          "li",
          { "data-verdict": v.verdict },
          el("button", { type: "button", cls: "cite v-" + v.verdict, text: verdictWord(v.verdict) + (v.citation ? " [" + v.citation + "]" : ""), on: { click: () => showEvidence(v, v.citation) } }),
          " " + v.sentence,
        ),
      ),
    );
  }

  async function runAsk(ev) {
    ev.preventDefault();
    const message = $("ask-q").value.trim();
    if (!message) return;
    const sources = {};
    if ($("ask-kb").checked) sources.kb = {};
    if ($("ask-web").checked) sources.web = {};
    if ($("ask-db").checked) sources.db = {};
    const body = { message, request_id: newId("ask") };
    if (Object.keys(sources).length) body.sources = sources;
    ask.text = "";
    ask.refs = new Map();
    ask.verdicts = [];
    for (const id of ["answer", "verdicts", "ask-refs", "ask-plan-body"]) $(id).replaceChildren();
    $("evidence-body").textContent = t("evidence_hint");
    setStatus("ask-status", t("searching"));
    state.askCtl = new AbortController();
    $("ask-go").disabled = true;
    $("ask-stop").disabled = false;
    try {
      await stream("/v1/ask?stream=true", body, (name, data) => {
        if (data.message) setStatus("ask-status", data.message);
        if (name === "plan") renderPlan(data);
        else if (name === "references") {
          for (const r of data.references || []) ask.refs.set(r.citation_id, r);
          $("ask-refs").replaceChildren(...[...ask.refs.values()].map((r) => hitNode(r, queryTerms(message))));
        } else if (name === "answer.delta") {
          ask.text += data.text || "";
          renderAnswer();
        } else if (name === "citations") {
          ask.verdicts = data.verdicts || [];
          renderAnswer();
          renderVerdicts();
        } else if (name === "done") {
          ask.text = data.text || ask.text;
          if (data.citations && data.citations.verdicts) ask.verdicts = data.citations.verdicts;
          renderAnswer();
          renderVerdicts();
          const note = data.note ? " · " + data.note : "";
          setStatus("ask-status", t("overall") + ": " + label("status", data.status) + " · " + t("request") + " " + data.request_id + note, data.status === "unavailable");
          $("ask-status").dataset.overall = data.status;
        } else if (name === "error") setStatus("ask-status", t("error") + ": " + data.error.message, true);
      }, state.askCtl.signal);
    } catch (e) {
      setStatus("ask-status", e.name === "AbortError" ? t("stop") : t("error") + ": " + e.message, e.name !== "AbortError");
    } finally {
      $("ask-go").disabled = false;
      $("ask-stop").disabled = true;
    }
  }

  // ---- history -----------------------------------------------------------------------
  async function loadHistory(ev) {
    ev.preventDefault();
    const rid = $("rid").value.trim();
    setStatus("history-status", "");
    $("history").replaceChildren();
    let records;
    try {
      records = await api("GET", "/v1/requests/" + encodeURIComponent(rid) + "/searches");
    } catch (e) {
      setStatus("history-status", t("error") + ": " + e.message, true);
      return;
    }
    if (!records.length) {
      setStatus("history-status", t("no_records"));
      return;
    }
    const out = [];
    const tree = await api("GET", "/v1/requests/" + encodeURIComponent(rid) + "/trace").catch(() => null);
    if (tree) out.push(el("h2", { text: t("trace") }), el("div", { id: "trace", cls: "trace" }, traceNode(tree)));
    for (const rec of records) {
      const terms = queryTerms(rec.query || "");
      const meta = [
        rec.created_at || "",
        label("status", rec.status || ""),
        rec.duration_ms != null ? fmt(rec.duration_ms, 0) + " " + t("ms") : "",
        (rec.keywords || []).join(", "),
      ];
      out.push(
        el("h2", { cls: "record", text: label("leg", rec.leg) + ": " + (rec.query || "") }),
        el("p", { cls: "meta", "data-status": rec.status || "", text: meta.filter(Boolean).join(" · ") }),
      );
      if (rec.error) out.push(el("p", { cls: "status error", text: rec.error }));
      if ((rec.reports || []).length) out.push(reportTable(rec.reports));
      if (rec.dsl) out.push(el("pre", { cls: "dsl", text: JSON.stringify(rec.dsl, null, 2) }));
      out.push(el("ol", { cls: "hits" }, ...(rec.references || []).map((r) => hitNode(r, terms))));
    }
    $("history").replaceChildren(...out);
  }

  // A request's trace as a tree of <details> (folded and unfolded with Enter or Space):
  // request → each recorded search → leg → backend → stage, each with its status and time.
  function traceName(n) {
    if (n.kind === "leg") return label("leg", n.name);
    if (n.kind === "stage") return label("stage", n.name);
    if (n.kind === "search") return (n.name === "fused" ? t("fused") : label("leg", n.name)) + ": " + (n.query || "");
    return n.name;
  }

  function traceNode(n) {
    const bits = [
      n.took_ms != null ? fmt(n.took_ms, 1) + " " + t("ms") : "",
      n.hits != null ? n.hits + " " + label("column", "hits") : "",
      [n.reason ? label("reason", n.reason) : "", n.error || "", n.note || ""].filter(Boolean).join(" · "),
    ].filter(Boolean);
    const head = [
      el("span", { cls: "kind", text: t("trace_" + n.kind) }),
      " " + traceName(n) + " ",
      el("span", { cls: "st st-" + n.status, text: label("status", n.status) }),
      bits.length ? el("span", { cls: "meta", text: " · " + bits.join(" · ") }) : null,
    ];
    const attrs = { "data-kind": n.kind, "data-name": n.name, "data-status": n.status };
    if (!(n.children || []).length) return el("div", { ...attrs, cls: "leaf" }, ...head);
    const box = el("details", attrs, el("summary", null, ...head), ...n.children.map(traceNode));
    box.open = true;
    return box;
  }

  // ---- knowledge base ----------------------------------------------------------------
  const colPath = (name) => "/v1/collections/" + encodeURIComponent(name);

  async function refreshKB() {
    let cols;
    try {
      cols = await api("GET", "/v1/collections");
    } catch (e) {
      setStatus("kb-status", t("error") + ": " + e.message, true);
      return;
    }
    setStatus("kb-status", "");
    $("kb-collections-table").tBodies[0].replaceChildren(
      ...cols.map((c) =>
        el(
          "tr",
          { "data-name": c.name },
          el("td", null, el("button", { type: "button", text: c.name, on: { click: () => showDocs(c.name) } })),
          el("td", { text: c.description }),
          el("td", { text: c.owner || t("shared") }),
          el("td", { text: c.documents }),
          el("td", { text: c.chunks }),
          el("td", { text: c.embedder || "" }),
          el("td", null, el("button", { type: "button", text: t("delete"), on: { click: () => deleteCollection(c.name) } })),
        ),
      ),
    );
    fillCollectionPickers(cols);
  }

  async function kbCall(fn) {
    try {
      await fn();
    } catch (e) {
      setStatus("kb-status", t("error") + ": " + e.message, true);
    }
  }

  async function showDocs(name) {
    await kbCall(async () => {
      const docs = await api("GET", colPath(name) + "/documents?limit=200");
      $("kb-docs-of").textContent = clean(name);
      $("kb-docs").tBodies[0].replaceChildren(
        ...docs.map((d) =>
          el(
            "tr",
            { "data-doc": d.document_id },
            el("td", { text: d.document_id }),
            el("td", null, safeHref(d.source) ? link(d.source, d.title || d.source) : el("span", { text: d.title })),
            el("td", { text: d.chunks }),
            el("td", { text: d.text_chars }),
            el("td", { text: d.updated_at }),
            el("td", null, el("button", { type: "button", text: t("remove"), on: { click: () => removeDoc(name, d.document_id) } })),
          ),
        ),
      );
    });
  }

  async function removeDoc(name, docId) {
    await kbCall(async () => {
      await api("DELETE", colPath(name) + "/documents/" + encodeURIComponent(docId));
      await showDocs(name);
      await refreshKB();
    });
  }

  async function deleteCollection(name) {
    if (!window.confirm(t("confirm_delete") + " " + name)) return;
    await kbCall(async () => {
      await api("DELETE", colPath(name));
      await refreshKB();
      await loadSources();
    });
  }

  async function createCollection(ev) {
    ev.preventDefault();
    await kbCall(async () => {
      await api("POST", "/v1/collections", { name: $("kb-name").value.trim(), description: $("kb-desc").value });
      $("kb-name").value = "";
      $("kb-desc").value = "";
      await refreshKB();
      await loadSources();
    });
  }

  // One request per file, so each file has its own progress and its own report.
  function uploadOne(name, file, li) {
    return new Promise((resolve) => {
      const xhr = new XMLHttpRequest();
      const bar = el("progress", { max: "100", value: "0" });
      const note = el("span", { text: " " + t("uploading") });
      li.replaceChildren(file.name + " ", bar, note);
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) bar.value = Math.round((100 * e.loaded) / e.total);
      };
      xhr.onload = () => {
        let data = null;
        try {
          data = JSON.parse(xhr.responseText);
        } catch {
          data = null;
        }
        bar.value = 100;
        if (xhr.status >= 200 && xhr.status < 300) {
          const o = (data.outcomes || [])[0] || {};
          li.dataset.status = o.status || "done";
          note.textContent = clean(" " + (o.status || t("done")) + (o.chunks ? " (" + o.chunks + ")" : "") + (o.error ? ": " + o.error : ""));
        } else {
          li.dataset.status = "failed";
          note.textContent = clean(" " + apiError(xhr.status, data, xhr.responseText).message);
        }
        resolve();
      };
      xhr.onerror = () => {
        li.dataset.status = "failed";
        note.textContent = " " + t("error");
        resolve();
      };
      xhr.open("POST", colPath(name) + "/files");
      for (const [k, v] of Object.entries(headers({}))) xhr.setRequestHeader(k, v);
      const form = new FormData();
      form.append("files", file, file.name);
      xhr.send(form);
    });
  }

  async function upload(ev) {
    ev.preventDefault();
    const name = $("up-col").value;
    const files = [...$("up-files").files];
    const items = files.map((f) => el("li", { text: f.name }));
    $("up-report").replaceChildren(...items);
    for (let i = 0; i < files.length; i++) await uploadOne(name, files[i], items[i]);
    await refreshKB();
    if ($("kb-docs-of").textContent === name) await showDocs(name);
  }

  // One line per URL of a crawl or file of an upload: name → status (chunks): error.
  const ingestWord = (status) => t("ingest_" + status).replace(/^ingest_/, "");
  const outcomeLine = (name, o) =>
    el("li", { "data-status": o.status }, name + " → " + ingestWord(o.status) + (o.chunks ? " (" + o.chunks + ")" : "") + (o.error ? ": " + o.error : ""));

  // The crawl streams: a line per page the moment its outcome is known, the bar counting
  // pages fetched against the most allowed; Stop closes the stream, which stops the crawl.
  async function crawl(ev) {
    ev.preventDefault();
    const name = $("cr-col").value;
    const max = Number($("cr-max").value) || 20;
    const bar = $("cr-progress");
    bar.max = max;
    bar.value = 0;
    bar.hidden = false;
    delete $("cr-report").dataset.done;
    $("cr-report").replaceChildren();
    setStatus("cr-status", t("crawling"));
    state.crawlCtl = new AbortController();
    $("cr-go").disabled = true;
    $("cr-stop").disabled = false;
    let last = 0;
    const fetched = (n) => t("crawl_fetched").replace("{n}", String(n)).replace("{max}", String(max));
    try {
      await stream(colPath(name) + "/crawl?stream=true", { url: $("cr-url").value, max_pages: max }, (kind, data) => {
        if (kind === "page") {
          bar.value = last = data.fetched;
          setStatus("cr-status", t("crawling") + " " + fetched(data.fetched));
          $("cr-report").append(outcomeLine(data.url, data));
        } else if (kind === "done") {
          bar.value = max;
          const counts = ["added", "replaced", "unchanged", "failed", "skipped"].map((k) => ingestWord(k) + " " + data[k]);
          const sum = el("li", { cls: "summary", text: counts.join(", ") });
          $("cr-report").prepend(sum);
          if (data.stopped) $("cr-report").append(el("li", { cls: "error", text: data.stopped }));
          setStatus("cr-status", t("done") + " · " + fetched(last));
          $("cr-report").dataset.done = "true";
        } else if (kind === "error") setStatus("cr-status", t("error") + ": " + data.error.message, true);
      }, state.crawlCtl.signal);
      await refreshKB();
      if ($("kb-docs-of").textContent === name) await showDocs(name);
    } catch (e) {
      setStatus("cr-status", e.name === "AbortError" ? t("stop") : t("error") + ": " + e.message, e.name !== "AbortError");
    } finally {
      bar.hidden = true;
      $("cr-go").disabled = false;
      $("cr-stop").disabled = true;
    }
  }

  // ---- start -------------------------------------------------------------------------
  async function start() {
    const browser = (navigator.language || "").toLowerCase().startsWith("zh") ? "zh" : "en";
    state.lang = localStorage.getItem(LANG) || browser;
    $("lang").value = state.lang;
    try {
      state.table = await (await fetch("/console/labels.json")).json();
    } catch {
      state.table = null;
    }
    applyLang();
    for (const tab of document.querySelectorAll("[role=tab]")) {
      tab.addEventListener("click", () => showTab(tab.id.slice(4)));
      tab.addEventListener("keydown", tabKeys);
    }
    $("lang").addEventListener("change", () => {
      state.lang = $("lang").value;
      localStorage.setItem(LANG, state.lang);
      applyLang();
    });
    $("key-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const key = $("key").value.trim();
      if (key) sessionStorage.setItem(KEY, key);
      $("key").value = "";
      showKeyState();
      loadSources();
    });
    $("key-clear").addEventListener("click", () => {
      sessionStorage.removeItem(KEY);
      showKeyState();
      loadSources();
    });
    $("search-form").addEventListener("submit", runSearch);
    $("search-stop").addEventListener("click", () => state.searchCtl && state.searchCtl.abort());
    $("ask-form").addEventListener("submit", runAsk);
    $("ask-stop").addEventListener("click", () => state.askCtl && state.askCtl.abort());
    $("history-form").addEventListener("submit", loadHistory);
    $("kb-refresh").addEventListener("click", refreshKB);
    $("kb-create").addEventListener("submit", createCollection);
    $("kb-upload").addEventListener("submit", upload);
    $("kb-crawl").addEventListener("submit", crawl);
    $("cr-stop").addEventListener("click", () => state.crawlCtl && state.crawlCtl.abort());
    await loadSources();
    document.body.dataset.ready = "true";
  }

  start();
})();
