// The skills and memory view (issue 20, part 5): every skill with whether
// it is available and what it lacks (programs, environment variables), its
// always-on flag and its SKILL.md; MEMORY.md viewed and edited; the
// summaries in memory/history.jsonl browsed newest first. The agent's
// workspace actor reads and writes the files.
"use strict";

const skills = {
  memVersion: "",
  history: [],      // entries loaded so far, newest first
  more: false,

  init() {
    const $ = (id) => document.getElementById(id);
    $("skills-table").addEventListener("click", (e) => {
      const tr = e.target.closest("tr[data-name]");
      if (tr) this.showSkill(tr.dataset.name);
    });
    $("memory-save").addEventListener("click", () => this.saveMemory());
    $("memory-reload").addEventListener("click", () => this.loadMemory());
    $("history-search").addEventListener("input", () => this.renderHistory());
    $("history-more").addEventListener("click", () => this.loadHistory(true));
    agentPicker.onChange(() => {
      document.getElementById("skill-view").classList.add("hidden");
      this.history = [];
      if (this.shown) this.start();
    });
  },

  start() {
    this.shown = true;
    this.loadSkills();
    this.loadMemory();
    this.loadHistory(false);
  },

  stop() { this.shown = false; },

  say(id, text, bad) {
    const el = document.getElementById(id);
    el.textContent = text || "";
    el.classList.toggle("error", !!bad);
    el.classList.toggle("ok", !bad);
  },

  async loadSkills() {
    try {
      const doc = await setup.call("GET", agentPicker.path("skills"));
      agentPicker.learn(doc.agents);
      const body = document.querySelector("#skills-table tbody");
      body.innerHTML = "";
      for (const s of doc.skills || []) {
        const tr = body.insertRow();
        tr.dataset.name = s.name;
        tr.className = s.available ? "available" : "unavailable";
        const cell = (text, cls) => {
          const td = tr.insertCell();
          td.textContent = text;
          if (cls) td.className = cls;
          return td;
        };
        const name = cell(s.name, "skill-name");
        name.title = s.description;
        cell(s.description, "skill-desc");
        cell(s.source, "skill-source");
        cell(s.available ? "yes" : "no", "skill-available");
        const missing = [];
        if ((s.missing_bins || []).length) missing.push("programs: " + s.missing_bins.join(", "));
        if ((s.missing_env || []).length) missing.push("environment: " + s.missing_env.join(", "));
        cell(missing.join("; ") || "–", "skill-missing");
        cell(s.always ? "always on" : "on demand", "skill-always");
      }
      this.say("skills-result", "", false);
    } catch (e) {
      this.say("skills-result", String(e.message || e), true);
    }
  },

  async showSkill(name) {
    try {
      const doc = await setup.call("GET", agentPicker.path("skills/" + encodeURIComponent(name)));
      document.getElementById("skill-file").textContent = doc.file;
      document.getElementById("skill-text").textContent = doc.text;
      document.getElementById("skill-view").classList.remove("hidden");
      for (const tr of document.querySelectorAll("#skills-table tr[data-name]"))
        tr.classList.toggle("selected", tr.dataset.name === name);
    } catch (e) {
      this.say("skills-result", String(e.message || e), true);
    }
  },

  async loadMemory() {
    try {
      const agent = agentPicker.current;
      const doc = await setup.call("GET", agentPicker.path("memory"));
      if (agent !== agentPicker.current) return; // another agent was picked meanwhile
      document.getElementById("memory-text").value = doc.text;
      document.getElementById("memory-text").dataset.agent = agent;
      this.memVersion = doc.version;
      this.say("memory-result", doc.origin === "missing" ? "MEMORY.md does not exist yet; saving creates it." : "", false);
    } catch (e) {
      this.say("memory-result", String(e.message || e), true);
    }
  },

  async saveMemory() {
    const text = document.getElementById("memory-text").value;
    // The gateway reads at most 64 KB of a request body.
    if (new TextEncoder().encode(text).length > 60000) {
      this.say("memory-result", "MEMORY.md is too large to save from the page (60 KB at most).", true);
      return;
    }
    try {
      const doc = await setup.call("PUT", agentPicker.path("memory"), { text, version: this.memVersion });
      this.memVersion = doc.version;
      this.say("memory-result", "Saved MEMORY.md.", false);
    } catch (e) {
      this.say("memory-result", String(e.message || e), true);
    }
  },

  async loadHistory(older) {
    try {
      const before = older && this.history.length ? this.history[this.history.length - 1].cursor : 0;
      const doc = await setup.call("GET", agentPicker.path("memory/history" + (before ? "/" + before : "")));
      this.history = older ? this.history.concat(doc.entries) : doc.entries;
      this.more = doc.more;
      document.getElementById("history-count").textContent =
        `${doc.total} entries${doc.skipped ? `, ${doc.skipped} unreadable lines skipped` : ""}`;
      this.renderHistory();
    } catch (e) {
      this.say("history-count", String(e.message || e), true);
    }
  },

  renderHistory() {
    const q = document.getElementById("history-search").value.trim().toLowerCase();
    const list = document.getElementById("history-list");
    list.innerHTML = "";
    for (const h of this.history) {
      if (q && !(h.content.toLowerCase().includes(q) || (h.session_key || "").toLowerCase().includes(q))) continue;
      const li = document.createElement("li");
      const head = document.createElement("div");
      head.className = "sub";
      head.textContent = `#${h.cursor} · ${h.timestamp}${h.session_key ? " · " + h.session_key : ""}`;
      const body = document.createElement("div");
      body.className = "history-content";
      body.textContent = h.content;
      li.append(head, body);
      list.appendChild(li);
    }
    document.getElementById("history-more").classList.toggle("hidden", !this.more);
  },
};
