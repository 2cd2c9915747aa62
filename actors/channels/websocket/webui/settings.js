// The settings view (issue 20, part 2): the model and fallbacks, channels
// with their live state, tools, MCP servers, agents and bindings. Every
// Save sends one form; the gateway checks it with the config loader (an
// error names the key), writes config.json and applies it: the model,
// tools and MCP servers at once, a channel by restarting that channel only;
// what waits for a restart (agents, bindings) is named. Secrets never come
// back: a saved one shows as saved, an empty field keeps it.
"use strict";

const settings = {
  view: null,
  timer: null,

  init() {
    document.getElementById("mcp-test").addEventListener("click", () => this.testMcp());
    document.getElementById("mcp-save").addEventListener("click", () => this.saveMcp());
    document.getElementById("set-model-save").addEventListener("click", () => this.saveModel());
    document.getElementById("set-tools-save").addEventListener("click", () => this.saveTools());
    channelAdd.init();
    agentsForm.init();
  },

  async start() {
    await this.load();
    this.pollChannels();
    if (!this.timer) this.timer = setInterval(() => this.pollChannels(), 3000);
  },

  stop() { clearInterval(this.timer); this.timer = null; },

  async call(method, name, body) {
    const init = { method, cache: "no-store", headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch("/api/" + name, init);
    let doc = {};
    try { doc = await res.json(); } catch (e) { /* not JSON */ }
    if (!res.ok) throw new Error(doc.error || doc.detail || `HTTP ${res.status}`);
    return doc;
  },

  say(id, text, bad) {
    const out = document.getElementById(id);
    out.textContent = text;
    out.classList.toggle("error", !!bad);
    out.classList.toggle("ok", !bad);
  },

  // Runs one save: the answer's "applied" tells when it takes effect.
  async submit(resultId, method, name, body) {
    this.say(resultId, "Saving…");
    try {
      const doc = await this.call(method, name, body);
      const when = { now: "in effect now", restart: "takes effect when the gateway restarts" };
      const later = doc.restart_keys || [];
      let text = later.length && doc.applied === "restart"
        ? "Saved; takes effect after a restart: " + later.join(", ") + "."
        : "Saved: " + (when[doc.applied] || doc.applied) + "."
          + (later.length ? " Takes effect after a restart: " + later.join(", ") + "." : "");
      if (doc.warnings && doc.warnings.length) text += " Warnings: " + doc.warnings.join("; ");
      await this.load(); // redraws the channel rows: say it after
      this.say(resultId, text);
      return true;
    } catch (e) {
      this.say(resultId, String(e.message || e), true);
      return false;
    }
  },

  async load() {
    const v = await this.call("GET", "settings");
    if (v.error) { this.say("set-model-result", v.error, true); return; }
    this.view = v;
    this.renderModel(v);
    this.renderChannels(v.channels || []);
    channelAdd.render(v.channel_kinds);
    this.renderTools(v.tools || {});
    this.renderMcp(v.mcp_servers || []);
    this.renderAgents(v);
  },

  // -- model ------------------------------------------------------------------

  renderModel(v) {
    const m = v.model || {};
    document.getElementById("set-model").value = m.model || "";
    const pick = document.getElementById("set-provider");
    pick.innerHTML = "";
    const names = ["auto", ...(v.providers || []).map((p) => p.name)];
    if (m.provider && !names.includes(m.provider)) names.push(m.provider);
    for (const n of names) pick.appendChild(option(n, n));
    pick.value = m.provider || "auto";
    document.getElementById("set-fallbacks").value =
      (m.fallback_models || []).map(fallbackLine).join("\n");
    document.getElementById("set-presets").textContent = (v.presets || []).length
      ? "Presets: " + v.presets.join(", ") : "No modelPresets configured.";
  },

  saveModel() {
    const lines = document.getElementById("set-fallbacks").value.split("\n")
      .map((l) => l.trim()).filter(Boolean);
    return this.submit("set-model-result", "PUT", "settings/model", {
      model: document.getElementById("set-model").value.trim(),
      provider: document.getElementById("set-provider").value,
      fallback_models: lines.map(parseFallback),
    });
  },

  // -- channels ---------------------------------------------------------------

  renderChannels(list) {
    const box = document.getElementById("set-channels");
    box.innerHTML = "";
    if (!list.length) box.appendChild(el("p", "sub", "No channels configured."));
    for (const c of list) {
      const row = el("div", "channel-row");
      row.dataset.channel = c.name;
      const head = el("div", "row");
      head.appendChild(el("strong", "", c.name));
      if (c.kind !== c.name) head.appendChild(el("span", "sub", `(${c.kind})`));
      const state = el("span", "ch-state", "…");
      head.appendChild(state);
      row.appendChild(head);
      const other = Object.entries(c.other || {}).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
      if (other.length) row.appendChild(el("p", "sub", "Also set: " + other.join(", ")));
      const enabled = input("checkbox", "ch-enabled");
      enabled.checked = !!c.enabled;
      row.appendChild(labelled("Enabled", enabled, true));
      const allow = input("text", "ch-allow");
      allow.value = Array.isArray(c.allow_from) ? c.allow_from.join(", ") : "";
      allow.placeholder = "empty: pairing (approve senders with /pairing); * = everyone";
      row.appendChild(labelled("allowFrom (ids, comma separated)", allow));
      const policy = document.createElement("select");
      policy.className = "ch-policy";
      for (const p of ["", "mention", "open", "allowlist"])
        policy.appendChild(option(p, p || "(default)"));
      policy.value = typeof c.group_policy === "string" ? c.group_policy : "";
      row.appendChild(labelled("Group policy", policy));
      const keys = c.secrets_set && c.secrets_set.length ? c.secrets_set : ["token"];
      for (const k of keys) {
        const s = input("password", "ch-secret");
        s.dataset.key = k;
        s.autocomplete = "new-password";
        s.placeholder = (c.secrets_set || []).includes(k) ? "•••••••• saved (empty keeps it)" : "not set";
        row.appendChild(labelled(k, s));
      }
      const buttons = el("p", "buttons");
      const save = el("button", "ch-save", "Save and restart this channel");
      save.type = "button";
      buttons.appendChild(save);
      row.appendChild(buttons);
      const result = el("p", "sub ch-result");
      result.id = "ch-result-" + c.name;
      row.appendChild(result);
      save.addEventListener("click", () => this.saveChannel(row, c));
      box.appendChild(row);
    }
  },

  saveChannel(row, c) {
    const allow = row.querySelector(".ch-allow").value.split(",").map((s) => s.trim()).filter(Boolean);
    const secrets = {};
    for (const s of row.querySelectorAll(".ch-secret")) secrets[s.dataset.key] = s.value;
    return this.submit("ch-result-" + c.name, "PUT", "settings/channels/" + encodeURIComponent(c.name), {
      enabled: row.querySelector(".ch-enabled").checked,
      allow_from: allow.length ? allow : null,
      group_policy: row.querySelector(".ch-policy").value,
      secrets,
    });
  },

  async pollChannels() {
    try {
      const doc = await this.call("GET", "channels");
      for (const s of doc.channels || []) {
        const row = document.querySelector(`.channel-row[data-channel="${CSS.escape(s.name)}"]`);
        if (!row) continue;
        const st = row.querySelector(".ch-state");
        st.textContent = s.state + (s.detail ? ": " + s.detail : "");
        st.className = "ch-state state-" + s.state;
      }
    } catch (e) { /* the next poll tries again */ }
  },

  // -- tools ------------------------------------------------------------------

  renderTools(t) {
    document.getElementById("set-exec-enable").checked = !!t.exec_enable;
    document.getElementById("set-exec-timeout").value = t.exec_timeout;
    document.getElementById("set-restrict").checked = !!t.restrict_to_workspace;
    document.getElementById("set-search-provider").value = t.web_search_provider || "";
    document.getElementById("set-search-base").value = t.web_search_base_url || "";
    const key = document.getElementById("set-search-key");
    key.value = "";
    key.placeholder = t.web_search_key_set ? "•••••••• saved (empty keeps it)" : "not set";
  },

  saveTools() {
    const timeout = document.getElementById("set-exec-timeout").value.trim();
    return this.submit("set-tools-result", "PUT", "settings/tools", {
      exec_enable: document.getElementById("set-exec-enable").checked,
      // A number when it is one; anything else goes as typed and the
      // loader names the key.
      exec_timeout: /^-?\d+(\.\d+)?$/.test(timeout) ? Number(timeout) : timeout,
      restrict_to_workspace: document.getElementById("set-restrict").checked,
      web_search_provider: document.getElementById("set-search-provider").value.trim(),
      web_search_api_key: document.getElementById("set-search-key").value,
      web_search_base_url: document.getElementById("set-search-base").value.trim(),
    });
  },

  // -- MCP servers ------------------------------------------------------------

  renderMcp(list) {
    const box = document.getElementById("mcp-list");
    box.innerHTML = "";
    if (!list.length) box.appendChild(el("li", "sub", "No MCP servers configured."));
    for (const m of list) {
      const li = el("li", "");
      li.dataset.mcp = m.name;
      const what = m.type === "stdio" ? [m.command, ...(m.args || [])].join(" ") : m.url;
      li.appendChild(el("strong", "", m.name + " "));
      li.appendChild(el("span", "sub", `${m.type}: ${what}` +
        (m.env_keys.length ? ` · env ${m.env_keys.join(", ")}` : "")));
      const edit = el("button", "", "Edit");
      edit.type = "button";
      edit.addEventListener("click", () => this.editMcp(m));
      const del = el("button", "", "Remove");
      del.type = "button";
      del.addEventListener("click", async () => {
        if (confirm(`Remove the MCP server ${m.name}?`))
          await this.submit("mcp-result", "DELETE", "settings/mcp/" + encodeURIComponent(m.name));
      });
      li.append(" ", edit, " ", del);
      box.appendChild(li);
    }
  },

  editMcp(m) {
    document.getElementById("mcp-name").value = m.name;
    document.getElementById("mcp-type").value = m.type;
    document.getElementById("mcp-command").value = m.command || "";
    document.getElementById("mcp-args").value = (m.args || []).join("\n");
    document.getElementById("mcp-url").value = m.url || "";
    // Values are not sent back: KEY= keeps the saved value.
    document.getElementById("mcp-env").value = m.env_keys.map((k) => k + "=").join("\n");
  },

  mcpForm() {
    const v = (id) => document.getElementById(id).value;
    const env = {};
    for (const line of v("mcp-env").split("\n")) {
      const at = line.indexOf("=");
      if (line.trim() && at > 0) env[line.slice(0, at).trim()] = line.slice(at + 1);
    }
    const type = v("mcp-type");
    const form = { type, env };
    if (type === "stdio") {
      form.command = v("mcp-command").trim();
      form.args = v("mcp-args").split("\n").map((s) => s.trim()).filter(Boolean);
      form.url = "";
    } else {
      form.url = v("mcp-url").trim();
      form.command = "";
    }
    return form;
  },

  mcpName() {
    return encodeURIComponent(document.getElementById("mcp-name").value.trim());
  },

  async testMcp() {
    const out = document.getElementById("mcp-tools");
    out.innerHTML = "";
    this.say("mcp-result", "Starting the server and asking for its tools…");
    try {
      const doc = await this.call("POST", `settings/mcp/${this.mcpName()}/test`, this.mcpForm());
      if (doc.error) { this.say("mcp-result", doc.error, true); return; }
      this.say("mcp-result", `${doc.tools.length} tools:`);
      for (const t of doc.tools) {
        const li = el("li", "");
        li.appendChild(el("code", "", t.name));
        li.appendChild(el("span", "sub", " " + (t.description || "").slice(0, 120)));
        out.appendChild(li);
      }
    } catch (e) {
      this.say("mcp-result", String(e.message || e), true);
    }
  },

  saveMcp() {
    return this.submit("mcp-result", "PUT", "settings/mcp/" + this.mcpName(), this.mcpForm());
  },

  // -- agents: agents_form.js -------------------------------------------------

  renderAgents(v) { agentsForm.render(v); },
};

// "preset:name" is a modelPresets entry; "model @ provider" or "model" an
// inline fallback.
function parseFallback(line) {
  if (line.startsWith("preset:")) return line.slice(7).trim();
  const at = line.lastIndexOf(" @ ");
  return at > 0 ? { model: line.slice(0, at).trim(), provider: line.slice(at + 3).trim() }
                : { model: line };
}

function fallbackLine(f) {
  if (typeof f === "string") return "preset:" + f;
  return f.provider ? `${f.model} @ ${f.provider}` : String(f.model || "");
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function input(type, cls) {
  const i = document.createElement("input");
  i.type = type;
  i.className = cls;
  i.spellcheck = false;
  return i;
}

function option(value, text) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  return o;
}

function labelled(text, control, inline) {
  const l = el("label", inline ? "inline" : "", text + " ");
  l.appendChild(control);
  return l;
}
