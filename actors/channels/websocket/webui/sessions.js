// The sessions view (issue 20, part 3): every stored session of every
// channel and agent, grouped by channel, newest first, searchable; a
// transcript with its tool calls; rename, archive, delete (asked first).
// Also the chat view's "Temporary chat": a chat id starting "tmp-" that the
// gateway keeps in memory only and never consolidates into memory.
"use strict";

const sessions = {
  rows: [],        // /api/sessions, newest first
  selected: null,  // the key shown

  init() {
    const $ = (id) => document.getElementById(id);
    $("sess-search").addEventListener("input", () => this.render());
    $("sess-archived").addEventListener("change", () => this.render());
    $("sess-rename").addEventListener("click", () => this.rename());
    $("sess-title").addEventListener("keydown", (e) => {
      if (e.key === "Enter") this.rename();
    });
    $("sess-archive").addEventListener("click", () => this.toggleArchived());
    $("sess-delete").addEventListener("click", () => this.askDelete(true));
    $("sess-confirm-no").addEventListener("click", () => this.askDelete(false));
    $("sess-confirm-yes").addEventListener("click", () => this.remove());
    $("temp-chat").addEventListener("click", () => this.startTemporary());
  },

  // A fresh temporary chat: never listed in the browser's saved chats
  // either (chat.js skips "tmp-" ids).
  startTemporary() {
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    const id = "tmp-" + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
    chat.request({ type: "attach", chat_id: id });
  },

  async call(method, name, body) {
    const init = { method, cache: "no-store", headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch("/api/" + name, init);
    let doc = {};
    try { doc = await res.json(); } catch (e) { /* not JSON */ }
    if (!res.ok) throw new Error(doc.detail || doc.error || `HTTP ${res.status}`);
    return doc;
  },

  path(key) { return "sessions/" + encodeURIComponent(key); },

  say(text, bad) {
    const p = document.getElementById("sess-status");
    p.textContent = text || "";
    p.classList.toggle("error", !!bad);
  },

  // The view switch (app.js) calls these.
  start() { this.refresh(); },
  stop() {},

  async refresh() {
    try {
      this.rows = (await this.call("GET", "sessions")).sessions || [];
      this.say("");
    } catch (e) {
      this.rows = [];
      this.say(String(e.message || e), true);
    }
    this.render();
    if (this.selected && !this.rows.find((r) => r.key === this.selected))
      this.showNone();
  },

  label(r) { return r.title || r.preview || r.chat_id || r.key; },

  // Groups by channel (a group's place: its newest session), newest first
  // inside; the search matches the title, the first message and the key.
  render() {
    const q = document.getElementById("sess-search").value.trim().toLowerCase();
    const withArchived = document.getElementById("sess-archived").checked;
    const groups = new Map();
    for (const r of this.rows) {
      if (r.archived && !withArchived) continue;
      const hay = [r.title, r.preview, r.key].join("\n").toLowerCase();
      if (q && !hay.includes(q)) continue;
      if (!groups.has(r.channel)) groups.set(r.channel, []);
      groups.get(r.channel).push(r);
    }
    const box = document.getElementById("sess-groups");
    box.innerHTML = "";
    for (const [channel, list] of groups) {
      const g = document.createElement("div");
      g.className = "sess-group";
      g.dataset.channel = channel;
      const h = document.createElement("h4");
      h.textContent = channel;
      g.appendChild(h);
      const ul = document.createElement("ul");
      for (const r of list) {
        const li = document.createElement("li");
        li.dataset.key = r.key;
        li.title = r.key;
        if (r.key === this.selected) li.classList.add("active");
        if (r.archived) li.classList.add("archived");
        const name = document.createElement("span");
        name.className = "name";
        name.textContent = this.label(r);
        const when = document.createElement("span");
        when.className = "when";
        when.textContent = (r.agent && r.agent !== "main" ? r.agent + " · " : "")
          + new Date(r.updated_ms).toLocaleString();
        li.append(name, when);
        li.addEventListener("click", () => this.open(r.key));
        ul.appendChild(li);
      }
      g.appendChild(ul);
      box.appendChild(g);
    }
    if (!groups.size) {
      const p = document.createElement("p");
      p.className = "sub";
      p.textContent = this.rows.length ? "No session matches." : "No sessions stored yet.";
      box.appendChild(p);
    }
  },

  showNone() {
    this.selected = null;
    document.getElementById("sess-head").classList.add("hidden");
    delete document.getElementById("sess-head").dataset.key;
    document.getElementById("sess-transcript").innerHTML = "";
    document.getElementById("sess-empty").classList.remove("hidden");
  },

  async open(key) {
    this.selected = key;
    this.askDelete(false);
    this.render();
    // Another session's head stays hidden until this one's has loaded: a
    // title typed into it meanwhile would be overwritten by the load, or
    // saved under the wrong session.
    const head = document.getElementById("sess-head");
    if (head.dataset.key !== key) head.classList.add("hidden");
    let doc;
    try {
      doc = await this.call("GET", this.path(key));
    } catch (e) {
      this.say(String(e.message || e), true);
      return;
    }
    if (this.selected !== key) return; // another one was picked meanwhile
    const row = this.rows.find((r) => r.key === key) || {};
    document.getElementById("sess-empty").classList.add("hidden");
    head.dataset.key = key;
    head.classList.remove("hidden");
    document.getElementById("sess-title").value = doc.title || "";
    document.getElementById("sess-title").placeholder = this.label(row);
    document.getElementById("sess-archive").textContent = doc.archived ? "Unarchive" : "Archive";
    document.getElementById("sess-meta").textContent =
      `${key} · ${doc.messages.length} messages` + (row.agent ? ` · agent ${row.agent}` : "");
    this.drawTranscript(doc.messages);
  },

  text(content) {
    if (typeof content === "string") return content;
    if (Array.isArray(content))
      return content.map((p) => p && p.type === "text" ? p.text
        : p && p.type === "image_url" ? "[image]" : "").filter(Boolean).join("\n");
    return content == null ? "" : JSON.stringify(content);
  },

  // User and assistant turns as bubbles; an assistant's tool calls (name and
  // arguments) and each tool's result as their own rows.
  drawTranscript(messages) {
    const box = document.getElementById("sess-transcript");
    box.innerHTML = "";
    const add = (cls, text) => {
      const d = document.createElement("div");
      d.className = cls;
      d.textContent = text;
      box.appendChild(d);
      return d;
    };
    for (const m of messages) {
      const body = this.text(m.content);
      if (m.role === "user") add("msg user", body);
      else if (m.role === "assistant") {
        if (body) add("msg assistant", body);
        for (const c of m.tool_calls || []) {
          const f = c.function || {};
          add("tool-call", `${f.name || "?"}(${f.arguments || ""})`);
        }
      } else if (m.role === "tool") {
        const d = document.createElement("details");
        d.className = "tool-result";
        const s = document.createElement("summary");
        s.textContent = `${m.name || "tool"} result`;
        const pre = document.createElement("pre");
        pre.textContent = body;
        d.append(s, pre);
        box.appendChild(d);
      } else if (body) add("msg hint", `${m.role}: ${body}`);
    }
  },

  async rename() {
    const key = this.selected;
    if (!key) return;
    const title = document.getElementById("sess-title").value.trim();
    try {
      await this.call("PUT", this.path(key), { title });
      this.say(title ? "Renamed." : "Title cleared.");
    } catch (e) {
      this.say(String(e.message || e), true);
    }
    await this.refresh();
  },

  async toggleArchived() {
    const key = this.selected;
    const row = this.rows.find((r) => r.key === key);
    if (!row) return;
    try {
      await this.call("PUT", this.path(key), { archived: !row.archived });
      this.say(row.archived ? "Back in the list." : "Archived.");
    } catch (e) {
      this.say(String(e.message || e), true);
    }
    await this.refresh();
    if (this.selected) this.open(this.selected);
  },

  askDelete(show) {
    document.getElementById("sess-confirm").classList.toggle("hidden", !show);
    document.getElementById("sess-delete").classList.toggle("hidden", show);
  },

  async remove() {
    const key = this.selected;
    this.askDelete(false);
    if (!key) return;
    try {
      await this.call("DELETE", this.path(key));
      this.say("Deleted.");
      this.showNone();
    } catch (e) {
      this.say(String(e.message || e), true);
    }
    await this.refresh();
  },
};
