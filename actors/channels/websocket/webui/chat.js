// The chat view: one WebSocket, chats kept in localStorage, streamed
// replies drawn as they arrive (protocol: REFERENCE §12.4). The login
// cookie (HttpOnly) authenticates the handshake; the page never holds a token.
"use strict";

const chat = {
  ws: null,
  wsPath: "/",
  current: null,        // chat id shown
  sessions: [],         // [{id, title, updated}]
  live: {},             // chat id -> assistant bubble being streamed
  history: {},          // chat id -> [{role, text}] shown this page load
  retryMs: 500,
  agent: "",            // agent= in the connect URL ("" = the bindings')

  init(boot) {
    this.wsPath = boot.ws_path || "/";
    this.initAgents(boot.agents || []);
    this.sessions = JSON.parse(localStorage.getItem("nb.sessions") || "[]");
    this.current = localStorage.getItem("nb.current");
    document.getElementById("composer").addEventListener("submit", (e) => {
      e.preventDefault();
      this.send();
    });
    document.getElementById("input").addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey) {
        e.preventDefault();
        this.send();
      }
    });
    document.getElementById("new-chat").addEventListener("click", () => {
      this.request({ type: "new_chat" });
    });
    this.renderSessions();
    this.connect();
  },

  // The agent picker: shown when bindings for this channel name agents;
  // a choice reconnects with agent=<id> (each agent has its own sessions).
  initAgents(agents) {
    const pick = document.getElementById("agent-picker");
    if (!agents.length) return;
    const saved = localStorage.getItem("nb.agent") || "";
    this.agent = agents.includes(saved) ? saved : "";
    const add = (value, label) => {
      const o = document.createElement("option");
      o.value = value;
      o.textContent = label;
      pick.appendChild(o);
    };
    add("", "agent: default");
    for (const a of agents) add(a, "agent: " + a);
    pick.value = this.agent;
    pick.classList.remove("hidden");
    pick.addEventListener("change", () => {
      this.agent = pick.value;
      localStorage.setItem("nb.agent", this.agent);
      if (this.ws) this.ws.close(); // onclose reconnects with the new agent
    });
  },

  connect() {
    const q = new URLSearchParams();
    q.set("client_id", this.clientId());
    if (this.agent) q.set("agent", this.agent);
    if (this.current) q.set("chat_id", this.current);
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}${this.wsPath}?${q}`);
    this.ws = ws;
    // "online" once the gateway's ready has named the chat (onEvent), not
    // at the socket's open: on a first visit a message sent in between had
    // no chat to go to and Send did nothing (a busy gateway's ready came
    // 80 ms after the open here).
    ws.onopen = () => { this.retryMs = 500; };
    ws.onclose = () => {
      this.setOnline(false);
      setTimeout(() => this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 8000);
    };
    ws.onmessage = (e) => {
      try { this.onEvent(JSON.parse(e.data)); } catch (err) { console.error(err); }
    };
  },

  clientId() {
    let id = localStorage.getItem("nb.client");
    if (!id) {
      id = "webui-" + Math.random().toString(16).slice(2, 14);
      localStorage.setItem("nb.client", id);
    }
    return id;
  },

  setOnline(on) {
    const el = document.getElementById("conn");
    el.textContent = on ? "online" : "offline";
    el.className = "conn " + (on ? "on" : "off");
  },

  request(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN)
      this.ws.send(JSON.stringify(obj));
  },

  send() {
    const input = document.getElementById("input");
    const text = input.value.trim();
    if (!text || !this.current) return;
    input.value = "";
    this.addBubble(this.current, "user", text);
    this.touch(this.current, text);
    this.request({ type: "message", chat_id: this.current, content: text });
  },

  onEvent(ev) {
    document.dispatchEvent(new CustomEvent("nb:event", { detail: ev }));
    switch (ev.event) {
      case "ready":
        this.select(ev.chat_id);
        this.setOnline(true);
        break;
      case "attached":
        this.select(ev.chat_id);
        break;
      case "delta": {
        let b = this.live[ev.chat_id];
        if (!b) {
          b = this.addBubble(ev.chat_id, "assistant", "");
          b.classList.add("streaming");
          this.live[ev.chat_id] = b;
        }
        b.textContent += ev.text;
        b.entry.text = b.textContent;
        this.scroll();
        break;
      }
      case "stream_end":
        this.endStream(ev.chat_id);
        break;
      case "message": {
        const role = ev.kind === "tool_hint" || ev.kind === "progress" ? "hint" : "assistant";
        const b = this.addBubble(ev.chat_id, role, ev.text);
        if (ev.error) b.classList.add("error");
        break;
      }
      case "turn_end":
        this.endStream(ev.chat_id);
        break;
      case "error":
        this.addBubble(this.current, "hint", "error: " + ev.detail);
        break;
    }
  },

  endStream(chatId) {
    const b = this.live[chatId];
    if (b) b.classList.remove("streaming");
    delete this.live[chatId];
  },

  addBubble(chatId, role, text) {
    const entry = { role, text };
    (this.history[chatId] = this.history[chatId] || []).push(entry);
    const div = document.createElement("div");
    div.className = "msg " + role;
    div.textContent = text;
    div.entry = entry;
    if (chatId === this.current) {
      document.getElementById("messages").appendChild(div);
      this.scroll();
    }
    return div;
  },

  scroll() {
    const m = document.getElementById("messages");
    m.scrollTop = m.scrollHeight;
  },

  select(chatId) {
    if (!chatId) return;
    this.current = chatId;
    localStorage.setItem("nb.current", chatId);
    // A temporary chat (sessions.js) is not kept in the browser's list.
    const temporary = chatId.startsWith("tmp-");
    document.getElementById("temp-banner").classList.toggle("hidden", !temporary);
    if (!temporary && !this.sessions.find((s) => s.id === chatId))
      this.sessions.unshift({ id: chatId, title: "New chat", updated: Date.now() });
    this.save();
    const m = document.getElementById("messages");
    m.innerHTML = "";
    for (const e of this.history[chatId] || []) {
      const div = document.createElement("div");
      div.className = "msg " + e.role;
      div.textContent = e.text;
      m.appendChild(div);
    }
    this.renderSessions();
  },

  touch(chatId, text) {
    const s = this.sessions.find((x) => x.id === chatId);
    if (!s) return;
    if (s.title === "New chat") s.title = text.slice(0, 40);
    s.updated = Date.now();
    this.sessions.sort((a, b) => b.updated - a.updated);
    this.save();
    this.renderSessions();
  },

  save() {
    localStorage.setItem("nb.sessions", JSON.stringify(this.sessions.slice(0, 50)));
  },

  renderSessions() {
    const ul = document.getElementById("session-list");
    ul.innerHTML = "";
    for (const s of this.sessions) {
      const li = document.createElement("li");
      li.textContent = s.title;
      li.title = s.id;
      if (s.id === this.current) li.classList.add("active");
      li.addEventListener("click", () => this.request({ type: "attach", chat_id: s.id }));
      ul.appendChild(li);
    }
  },
};
