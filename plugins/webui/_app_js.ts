/**
 * The web UI's browser module, served as `/assets/app.js`: plain
 * JavaScript (no bundler, no framework), kept as a string so that the
 * plugin needs no read permission and ships inside the package graph.
 * Two pages by path: `/` the session list, `/s/ID` a session.
 *
 * @module
 */

/** The browser module's source. */
export const APP_JS: string = String.raw`
"use strict";
const $ = (tag, attrs, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "className") el.className = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
};

async function api(path, init) {
  const res = await fetch(path, {
    ...(init || {}),
    headers: { "Content-Type": "application/json" },
    credentials: "same-origin",
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error || (res.status + " " + res.statusText));
  return data;
}

const enumName = (v, prefix) =>
  String(v || "").replace(prefix, "").toLowerCase().replaceAll("_", " ");

function fmtTime(iso) {
  return iso ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : "";
}

function fmtDuration(s) {
  if (!s.started) return "";
  const end = s.ended ? Date.parse(s.ended) : Date.now();
  const ms = Math.max(0, end - Date.parse(s.started));
  if (ms < 1000) return ms + " ms";
  const sec = Math.round(ms / 1000);
  if (sec < 60) return sec + " s";
  const min = Math.floor(sec / 60);
  return min + " min " + (sec % 60) + " s";
}

function fmtCost(c) {
  return c === null || c === undefined ? "" : "$" + Number(c).toFixed(4);
}

// ----- render trees (render.v1, protobuf JSON) ------------------------------

function paintNode(n) {
  if (!n) return $("span", {});
  if (n.text) {
    const style = enumName(n.text.style, "TEXT_STYLE_") || "normal";
    return $("span", { className: "t-" + style.replaceAll(" ", "-") }, n.text.content || "");
  }
  if (n.codeBlock) {
    return $("pre", { className: "code", "data-lang": n.codeBlock.language || "" },
      $("code", {}, n.codeBlock.content || ""));
  }
  if (n.diff) {
    const lines = [];
    for (const h of n.diff.hunks || []) {
      lines.push($("div", { className: "d-hunk" },
        "@@ -" + (h.oldStart || 0) + "," + (h.oldLines || 0) + " +" +
          (h.newStart || 0) + "," + (h.newLines || 0) + " @@"));
      for (const l of h.lines || []) {
        const op = enumName(l.op, "DIFF_LINE_OP_");
        const mark = op === "add" ? "+" : op === "remove" ? "-" : " ";
        lines.push($("div", { className: "d-" + (op || "context") }, mark + (l.text || "")));
      }
    }
    return $("pre", { className: "diff" }, lines);
  }
  if (n.table) {
    return $("table", { className: "tree-table" },
      $("thead", {}, $("tr", {}, (n.table.headers || []).map((h) => $("th", {}, h)))),
      $("tbody", {}, (n.table.rows || []).map((r) =>
        $("tr", {}, (r.cells || []).map((c) => $("td", {}, c))))));
  }
  if (n.link) {
    const safe = /^https?:\/\//.test(n.link.url || "");
    return safe
      ? $("a", { href: n.link.url, target: "_blank", rel: "noopener noreferrer" }, n.link.text || n.link.url)
      : $("span", {}, (n.link.text || "") + " <" + (n.link.url || "") + ">");
  }
  if (n.list) {
    return $(n.list.ordered ? "ol" : "ul", {}, (n.list.items || []).map((i) => $("li", {}, paintNode(i))));
  }
  if (n.group) {
    return $("div", { className: "group" }, (n.group.children || []).map(paintNode));
  }
  if (n.collapsible) {
    return $("details", { open: !n.collapsible.collapsedByDefault },
      $("summary", {}, n.collapsible.summary || ""),
      (n.collapsible.children || []).map(paintNode));
  }
  if (n.subSession) {
    return $("a", { href: "/s/" + encodeURIComponent(n.subSession.sessionId) },
      "sub-session " + n.subSession.sessionId + (n.subSession.summary ? ": " + n.subSession.summary : ""));
  }
  if (n.action) {
    return $("button", { className: "action", "data-node": n.action.id,
      onclick: (ev) => triggerAction(ev.target, n.action) }, n.action.label || n.action.toolName);
  }
  return $("span", { className: "t-dim" }, "(a node this page does not know)");
}

function paintTree(tree) {
  return paintNode(tree && tree.root);
}

// ----- the session list -----------------------------------------------------

async function listPage(root) {
  const status = $("select", { id: "f-status" },
    [["all", "all statuses"], ["running", "running"], ["completed", "completed"], ["failed", "failed"],
      ["cancelled", "cancelled"], ["error_max_turns", "max turns"], ["error_max_budget_usd", "max cost"],
      ["error_max_wall_clock", "max wall clock"]]
      .map(([v, label]) => $("option", { value: v }, label)));
  const profile = $("select", { id: "f-profile" }, $("option", { value: "all" }, "all profiles"));
  const text = $("input", { id: "f-text", type: "search", placeholder: "session id" });
  const body = $("tbody", {});
  const prompt = $("input", { id: "new-prompt", type: "text", placeholder: "Start a new session with a prompt" });
  const newForm = $("form", { id: "new-session", onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      const r = await api("/api/sessions", { method: "POST", body: JSON.stringify({ prompt: prompt.value }) });
      location.href = "/s/" + encodeURIComponent(r.id);
    } catch (err) { showError(err); }
  } }, prompt, $("button", { type: "submit" }, "New session"));
  root.append(
    $("h1", {}, "Sessions"),
    newForm,
    $("div", { className: "filters" }, "Status ", status, " Profile ", profile, " ", text),
    $("table", { id: "sessions" },
      $("thead", {}, $("tr", {}, ["Session", "Status", "Profile", "Cost", "Started", "Duration"].map((h) => $("th", {}, h)))),
      body),
  );
  const { sessions } = await api("/api/sessions");
  for (const p of [...new Set(sessions.map((s) => s.profile))].sort()) {
    profile.append($("option", { value: p }, p));
  }
  const byParent = new Map();
  const ids = new Set(sessions.map((s) => s.id));
  for (const s of sessions) {
    const key = s.parent && ids.has(s.parent) ? s.parent : "";
    if (!byParent.has(key)) byParent.set(key, []);
    byParent.get(key).push(s);
  }
  const ordered = [];
  const walk = (key, level) => {
    for (const s of byParent.get(key) || []) {
      ordered.push([s, level]);
      walk(s.id, level + 1);
    }
  };
  walk("", 0);
  const paint = () => {
    body.replaceChildren();
    const q = text.value.trim().toUpperCase();
    for (const [s, level] of ordered) {
      if (status.value !== "all" && s.status !== status.value) continue;
      if (profile.value !== "all" && s.profile !== profile.value) continue;
      if (q && !s.id.includes(q)) continue;
      body.append($("tr", { className: "session", "data-id": s.id, "data-status": s.status },
        $("td", { style: "padding-left:" + (0.5 + level * 1.5) + "em" },
          level ? "\u21b3 " : "", $("a", { href: "/s/" + encodeURIComponent(s.id) }, s.id)),
        $("td", {}, $("span", { className: "status s-" + s.status }, s.status.replaceAll("_", " "))),
        $("td", {}, s.profile),
        $("td", { className: "num" }, fmtCost(s.cost)),
        $("td", {}, fmtTime(s.started)),
        $("td", { className: "num" }, fmtDuration(s))));
    }
    document.body.dataset.sessions = String(body.children.length);
  };
  status.addEventListener("change", paint);
  profile.addEventListener("change", paint);
  text.addEventListener("input", paint);
  paint();
}

// ----- a session ------------------------------------------------------------

let current = "";

async function triggerAction(button, action) {
  try {
    button.disabled = true;
    await api("/api/sessions/" + encodeURIComponent(current) + "/action", {
      method: "POST",
      body: JSON.stringify({ nodeId: action.id, toolName: action.toolName, provider: action.provider, args: action.args || {} }),
    });
  } catch (err) {
    showError(err);
  } finally {
    button.disabled = false;
  }
}

function showError(err) {
  const box = document.getElementById("error") || document.body.appendChild($("div", { id: "error" }));
  box.textContent = err.message || String(err);
}

function blockText(b) {
  return (b.text && b.text.text) || "";
}

function paintMessage(e) {
  const m = (e.payload && e.payload.message) || {};
  const role = enumName(m.role, "ROLE_") || "message";
  const parts = [];
  for (const b of m.content || []) {
    if (b.text) parts.push($("div", { className: "text" }, blockText(b)));
    else if (b.thinking) parts.push($("details", { className: "thinking" }, $("summary", {}, "thinking"), $("div", {}, b.thinking.text || "")));
    else if (b.toolUse) parts.push($("div", { className: "tool-use" }, "\u2192 " + b.toolUse.name + " ", $("code", {}, JSON.stringify(b.toolUse.arguments || {}))));
    else if (b.toolResult) parts.push($("div", { className: "t-dim" }, "(tool result for " + (b.toolResult.toolUseId || "") + ")"));
    else parts.push($("div", { className: "t-dim" }, "(" + Object.keys(b).join(", ") + " block)"));
  }
  return $("div", { className: "msg role-" + role }, $("div", { className: "who" }, role), parts);
}

const pending = new Map();

function paintPlan(e, live) {
  const items = ((e.payload && e.payload.plan) || {}).items || [];
  const rows = items.map((it) => {
    const decision = enumName(it.decision, "PLAN_DECISION_");
    const row = $("div", { className: "plan-item", "data-item": it.id },
      $("div", {}, $("b", {}, it.provider + "." + it.operationName), " ",
        $("span", { className: "decision d-" + decision }, decision),
        it.decidedBy ? $("span", { className: "t-dim" }, " by " + it.decidedBy) : ""),
      it.description ? $("div", { className: "t-dim" }, it.description) : "",
      it.preview ? paintTree(it.preview) : $("pre", { className: "code" }, $("code", {}, JSON.stringify(it.input || {}, null, 2))));
    if (decision === "ask" && live) pending.set(it.id, { item: it, callId: it.callId });
    return row;
  });
  return $("div", { className: "plan" }, $("div", { className: "who" }, "plan"), rows);
}

function paintEvent(e, live) {
  let inner;
  if (e.kind === "message" && e.payload) inner = paintMessage(e);
  else if (e.kind === "plan" && e.payload) inner = paintPlan(e, live);
  else if (e.kind === "apply" && e.payload) {
    const items = ((e.payload.result || {}).items) || [];
    for (const i of items) pending.delete(i.planItemId);
    inner = $("div", { className: "apply" }, $("div", { className: "who" }, "apply"),
      items.map((i) => $("div", {}, enumName(i.outcome, "APPLY_OUTCOME_") + " " + (i.callId || ""))));
  } else {
    if (e.kind === "tool_result" && e.payload) {
      for (const [id, p] of pending) if (p.callId === e.payload.toolCallId) pending.delete(id);
    }
    const who = $("div", { className: "who" }, e.kind.replaceAll("_", " "));
    if (e.fallback) {
      // The kernel rendered the raw payload: shown, folded, with the reason.
      let summary = "rendered by the kernel: " + e.fallback;
      const p = e.payload || {};
      if (e.kind === "control") summary = (p.channel || "control") + " (" + (p.direction || "").replaceAll("_", " ") + ")";
      else if (e.kind === "tool_call" && p.call) summary = p.call.toolName + " " + JSON.stringify(p.call.arguments || {});
      else if (e.kind === "tool_result" && p.result) summary = "result of " + p.toolCallId;
      else if (e.kind === "tool_result" && p.error) summary = "error of " + p.toolCallId + ": " + (p.error.message || "");
      // The kernel's tree is its JSON of the payload: painted here from it.
      inner = $("div", { className: "rendered fallback" }, who,
        $("details", {}, $("summary", {}, summary),
          e.tree ? paintTree(e.tree) : [
            $("div", { className: "t-warning" }, "Rendered by the kernel (" + e.fallback + "): " + e.kind.replaceAll("_", " ") + " from " + e.producer),
            $("pre", { className: "code" }, $("code", {}, JSON.stringify(e.payload, null, 2)))]));
    } else {
      inner = $("div", { className: "rendered" }, who, paintTree(e.tree));
    }
  }
  return $("li", { className: "event k-" + e.kind, "data-seq": e.seq, title: e.producer + " " + fmtTime(e.time) }, inner);
}

function paintPending(box) {
  box.replaceChildren();
  for (const [id, p] of pending) {
    const it = p.item;
    const answer = (decision, scope) => async (ev) => {
      for (const b of ev.target.parentElement.querySelectorAll("button")) b.disabled = true;
      try {
        await api("/api/sessions/" + encodeURIComponent(current) + "/decide", {
          method: "POST", body: JSON.stringify({ planItemId: id, decision, scope }),
        });
        pending.delete(id);
        paintPending(box);
      } catch (err) {
        showError(err);
        for (const b of ev.target.parentElement.querySelectorAll("button")) b.disabled = false;
      }
    };
    box.append($("div", { className: "approval", "data-item": id },
      $("div", {}, $("b", {}, it.provider + "." + it.operationName), " asks for approval"),
      it.description ? $("div", { className: "t-dim" }, it.description) : "",
      it.preview ? paintTree(it.preview) : $("pre", { className: "code" }, $("code", {}, JSON.stringify(it.input || {}, null, 2))),
      $("div", { className: "buttons" },
        $("button", { className: "approve", onclick: answer("allow", "once") }, "Approve"),
        $("button", { className: "approve-session", onclick: answer("allow", "session") }, "Approve for session"),
        $("button", { className: "always", onclick: answer("allow", "always") }, "Always"),
        $("button", { className: "reject", onclick: answer("deny", "once") }, "Reject"))));
  }
  box.hidden = pending.size === 0;
  document.body.dataset.pending = String(pending.size);
}

function paintState(box, state) {
  box.replaceChildren();
  if (!state) return;
  const info = state.info || {};
  const rows = [
    ["status", enumName(info.status, "SESSION_STATUS_")],
    ["profile", info.profile],
    ["model", state.model ? state.model.provider + " / " + state.model.id : ""],
    ["context", state.context ? state.context.usedTokens + " / " + state.context.windowTokens + " tokens" : ""],
    ["turns", state.turnCount || 0],
    ["tokens", state.totalTokens || 0],
    ["cost", fmtCost(info.costUsd)],
    ["directory", state.workingDirectory],
  ];
  box.append($("h2", {}, "State"), $("dl", {}, rows.filter((r) => r[1] !== "" && r[1] !== undefined)
    .map(([k, v]) => [$("dt", {}, k), $("dd", { "data-field": k }, String(v))])));
}

function paintMetadata(box, blocks) {
  box.replaceChildren($("h2", {}, "Metadata"));
  if (!blocks.length) box.append($("div", { className: "t-dim" }, "no blocks"));
  for (const b of blocks) {
    let body = "";
    if (b.keyValue) body = b.keyValue.key + ": " + b.keyValue.value;
    else if (b.progress) body = b.progress.label + " " + (b.progress.completed || 0) + (b.progress.total ? " / " + b.progress.total : "");
    else if (b.status) body = b.status.text + (b.status.detail ? " (" + b.status.detail + ")" : "");
    else if (b.itemList) body = (b.itemList.title ? b.itemList.title + ": " : "") + (b.itemList.items || []).join(", ");
    else if (b.timer) body = (b.timer.label || "timer") + " since " + b.timer.startedAt;
    box.append($("div", { className: "meta tone-" + enumName(b.tone, "TONE_") + (b.liveness === "LIVENESS_DISCONNECTED" ? " gone" : "") }, body));
  }
}

async function sessionPage(root, id) {
  current = id;
  const started = performance.now();
  const transcript = $("ol", { id: "transcript" });
  const streaming = $("div", { id: "streaming" });
  const approvals = $("div", { id: "approvals", hidden: true });
  const state = $("section", { id: "state", className: "panel" });
  const meta = $("section", { id: "metadata", className: "panel" });
  const verify = $("div", { id: "verify" }, "verifying the hash chain\u2026");
  const input = $("textarea", { id: "input", rows: 2, placeholder: "Send a prompt (Ctrl+Enter)" });
  const send = async () => {
    const text = input.value.trim();
    if (!text) return;
    try {
      await api("/api/sessions/" + encodeURIComponent(id) + "/input", { method: "POST", body: JSON.stringify({ text }) });
      input.value = "";
    } catch (err) { showError(err); }
  };
  input.addEventListener("keydown", (ev) => { if (ev.key === "Enter" && ev.ctrlKey) send(); });
  const base = "/api/sessions/" + encodeURIComponent(id);
  const head = $("div", { className: "head" },
    $("a", { href: "/" }, "\u2190 Sessions"),
    $("h1", {}, "Session ", $("code", {}, id)),
    $("span", { id: "status", className: "status" }),
    $("span", { className: "spacer" }),
    $("a", { id: "export-md", href: base + "/export?format=md", download: "" }, "Markdown"),
    $("a", { id: "export-json", href: base + "/export?format=json", download: "" }, "JSON"),
    $("button", { id: "interrupt", onclick: async () => {
      try { await api(base + "/interrupt", { method: "POST", body: "{}" }); } catch (err) { showError(err); }
    } }, "Interrupt"));
  root.append(head, verify,
    $("div", { className: "columns" },
      $("main", {}, transcript, streaming, approvals,
        $("form", { id: "send", onsubmit: (ev) => { ev.preventDefault(); send(); } }, input, $("button", { type: "submit" }, "Send"))),
      $("aside", {}, state, meta)));
  const info = await api(base);
  const setStatus = (s) => {
    const el = document.getElementById("status");
    el.textContent = s.replaceAll("_", " ");
    el.className = "status s-" + s;
    document.body.dataset.status = s;
  };
  setStatus(info.session.status);
  paintState(state, info.state);
  paintMetadata(meta, info.metadata || []);
  const live = info.session.status === "running";
  const { events } = await api(base + "/events");
  const frag = document.createDocumentFragment();
  let last = 0;
  for (const e of events) { frag.append(paintEvent(e, live)); last = e.seq; }
  transcript.append(frag);
  paintPending(approvals);
  document.body.dataset.events = String(events.length);
  window.__replayMs = performance.now() - started;
  document.body.dataset.replayed = "true";
  api(base + "/verify").then((v) => {
    verify.textContent = "Hash chain: " + v.summary;
    verify.className = v.ok ? "ok" : "broken";
  }, (err) => { verify.textContent = "Hash chain: " + err.message; verify.className = "broken"; });
  const source = new EventSource(base + "/stream?from=" + (last + 1));
  const targets = new Map();
  source.addEventListener("event", (m) => {
    const e = JSON.parse(m.data);
    if (e.kind === "message") { streaming.replaceChildren(); targets.clear(); }
    transcript.append(paintEvent(e, true));
    paintPending(approvals);
    document.body.dataset.events = String(transcript.children.length);
  });
  source.addEventListener("delta", (m) => {
    const d = JSON.parse(m.data);
    const key = d.target + "/" + d.kind;
    let el = targets.get(key);
    if (!el) {
      el = $("div", { className: "delta " + d.kind });
      targets.set(key, el);
      streaming.append(el);
    }
    el.textContent += d.text;
  });
  source.addEventListener("state", (m) => {
    const s = JSON.parse(m.data);
    paintState(state, s);
    if (s && s.info) setStatus(enumName(s.info.status, "SESSION_STATUS_").replaceAll(" ", "_"));
  });
  source.addEventListener("metadata", (m) => paintMetadata(meta, JSON.parse(m.data)));
  source.addEventListener("failure", (m) => showError(new Error(JSON.parse(m.data).error)));
}

const root = document.getElementById("app");
const match = /^\/s\/([^/]+)$/.exec(location.pathname);
(match ? sessionPage(root, decodeURIComponent(match[1])) : listPage(root))
  .catch(showError);
`;
