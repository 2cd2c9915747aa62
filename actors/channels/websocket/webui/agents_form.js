// Agents and bindings on the settings page (issue 20): a form instead of
// raw JSON. Each agent of agents.list with its id, name, model and
// workspace, and the bindings that send it a channel's messages (a channel,
// optionally one chat or sender, direct or group chats); a new agent the
// same way. Keys the form does not show (tools, skills, heartbeat, ...)
// are kept as they are in config.json. The gateway checks the result with
// the loader (an error names the key, e.g. agents.list[1].workspace).
"use strict";

const agentsForm = {
  list: [],      // agents.list as in config.json (secrets left out)
  bindings: [],  // agents.bindings
  channels: [],  // [{name, kind}] to bind to

  init() {
    document.getElementById("set-agents-save").addEventListener("click", () => this.save());
    document.getElementById("agent-add-binding").addEventListener("click",
      () => document.getElementById("agent-new-bindings").appendChild(this.bindingRow({})));
  },

  render(v) {
    this.list = v.agents_list || [];
    this.bindings = v.bindings || [];
    this.channels = (v.channels || []).map((c) => ({ name: c.name, kind: c.kind }));
    const agents = v.agents || [];
    document.getElementById("set-agents-note").textContent = agents.length
      ? "Agents: main (agents.defaults), " + agents.map((a) => `${a.id} (${a.model})`).join(", ")
        + ". Messages no binding matches go to main."
      : "Only the implicit agent \"main\" (agents.defaults). Add an agent below to run several.";
    const box = document.getElementById("agents-list");
    box.innerHTML = "";
    this.list.forEach((entry, i) => box.appendChild(this.agentBox(entry, i)));
    document.getElementById("agent-new-bindings").innerHTML = "";
    for (const id of ["agent-new-id", "agent-new-name", "agent-new-model", "agent-new-workspace"])
      document.getElementById(id).value = "";
  },

  // One agents.list entry: its fields and its bindings.
  agentBox(entry, index) {
    const box = el("fieldset", "agent-row");
    box.dataset.index = index;
    box.dataset.agent = entry.id || "";
    box.appendChild(el("legend", "", entry.id || "(no id)"));
    for (const [key, label] of [["name", "Name"], ["model", "Model (empty: agents.defaults.model)"],
                                ["workspace", "Workspace (empty: workspace-<id> beside main's)"]]) {
      const i = input("text", "agent-" + key);
      i.value = typeof entry[key] === "string" ? entry[key] : "";
      box.appendChild(labelled(label, i));
    }
    const others = Object.keys(entry).filter((k) => !["id", "name", "model", "workspace"].includes(k));
    if (others.length) box.appendChild(el("p", "sub", "Also set (kept): " + others.join(", ")));
    const list = el("div", "agent-bindings");
    for (const b of this.bindings) if (b.agent === entry.id) list.appendChild(this.bindingRow(b));
    box.appendChild(el("p", "sub", "Bindings (the channels and chats this agent answers):"));
    box.appendChild(list);
    const buttons = el("p", "buttons");
    const add = el("button", "agent-bind", "Add a binding");
    add.type = "button";
    add.addEventListener("click", () => list.appendChild(this.bindingRow({})));
    const remove = el("button", "agent-remove", "Remove this agent");
    remove.type = "button";
    remove.addEventListener("click", () => {
      if (confirm(`Remove the agent “${entry.id}” and its bindings? Its workspace stays on disk.`)) {
        box.dataset.removed = "yes";
        box.classList.add("hidden");
      }
    });
    buttons.append(add, remove);
    box.appendChild(buttons);
    return box;
  },

  // One binding: which channel (a channels.<name>), optionally a chat or
  // a sender, and direct or group chats.
  bindingRow(b) {
    const row = el("div", "binding-row row");
    const ch = document.createElement("select");
    ch.className = "bind-channel";
    const current = b.instance || b.channel || "";
    for (const c of this.channels) ch.appendChild(option(c.name, c.name + (c.kind !== c.name ? ` (${c.kind})` : "")));
    if (current && !this.channels.some((c) => c.name === current)) ch.appendChild(option(current, current));
    ch.value = current || (this.channels[0] || {}).name || "";
    const chat = input("text", "bind-chat");
    chat.placeholder = "any chat";
    chat.value = b.chatId !== undefined ? String(b.chatId) : b.chat_id !== undefined ? String(b.chat_id) : "";
    const sender = input("text", "bind-sender");
    sender.placeholder = "any sender";
    sender.value = b.senderId !== undefined ? String(b.senderId) : b.sender_id !== undefined ? String(b.sender_id) : "";
    const group = document.createElement("select");
    group.className = "bind-group";
    group.append(option("", "direct and group chats"), option("false", "direct chats only"), option("true", "group chats only"));
    group.value = b.group === true ? "true" : b.group === false ? "false" : "";
    const drop = el("button", "bind-remove", "×");
    drop.type = "button";
    drop.title = "Remove this binding";
    drop.addEventListener("click", () => row.remove());
    row.append(labelled("Channel", ch), labelled("Chat id", chat), labelled("Sender id", sender), group, drop);
    return row;
  },

  // A row as agents.bindings writes it: "channel" is the platform and
  // "instance" the channels.<name> key when they differ.
  bindingOf(agent, row) {
    const name = row.querySelector(".bind-channel").value;
    const c = this.channels.find((x) => x.name === name);
    const out = { agent, channel: c ? c.kind : name };
    if (c && c.kind !== c.name) out.instance = c.name;
    const chat = row.querySelector(".bind-chat").value.trim();
    const sender = row.querySelector(".bind-sender").value.trim();
    const group = row.querySelector(".bind-group").value;
    if (chat) out.chatId = chat;
    if (sender) out.senderId = sender;
    if (group) out.group = group === "true";
    return out;
  },

  collect() {
    const list = [];
    const bindings = [];
    for (const box of document.querySelectorAll("#agents-list .agent-row")) {
      if (box.dataset.removed) continue;
      const entry = { ...this.list[Number(box.dataset.index)] };
      for (const key of ["name", "model", "workspace"]) {
        const v = box.querySelector(".agent-" + key).value.trim();
        if (v) entry[key] = v; else delete entry[key];
      }
      list.push(entry);
      for (const row of box.querySelectorAll(".binding-row")) bindings.push(this.bindingOf(entry.id, row));
    }
    const v = (id) => document.getElementById(id).value.trim();
    if (v("agent-new-id")) {
      const entry = { id: v("agent-new-id") };
      for (const key of ["name", "model", "workspace"]) if (v("agent-new-" + key)) entry[key] = v("agent-new-" + key);
      list.push(entry);
      for (const row of document.querySelectorAll("#agent-new-bindings .binding-row"))
        bindings.push(this.bindingOf(entry.id, row));
    }
    return { list, bindings };
  },

  save() {
    return settings.submit("set-agents-result", "PUT", "settings/agents", this.collect());
  },
};
