// Which agent the automations and skills pages show (issue 20): where the
// gateway has several agents (agents.list), a picker above each page; both
// pages share one choice. The API takes it as ?agent=<id> (absent: main),
// and every read and change then goes to that agent's own workspace and
// cron jobs.
"use strict";

const agentPicker = {
  current: "main",
  known: ["main"],
  listeners: [],

  init() {
    for (const sel of document.querySelectorAll("select.agent-pick"))
      sel.addEventListener("change", () => this.pick(sel.value));
  },

  // `fn` runs after the user picked another agent.
  onChange(fn) { this.listeners.push(fn); },

  pick(id) {
    if (id === this.current) return;
    this.current = id;
    this.render();
    for (const fn of this.listeners) fn(id);
  },

  // "memory" -> "memory?agent=research"; main's paths stay as they were.
  path(name) {
    if (this.current === "main") return name;
    return name + (name.includes("?") ? "&" : "?") + "agent=" + encodeURIComponent(this.current);
  },

  // The agents an answer listed (its "agents"), shown in every picker.
  learn(agents) {
    if (!Array.isArray(agents) || !agents.length) return;
    this.known = agents;
    this.render();
  },

  render() {
    for (const sel of document.querySelectorAll("select.agent-pick")) {
      const have = [...sel.options].map((o) => o.value).join("\n");
      if (have !== this.known.join("\n")) {
        sel.innerHTML = "";
        for (const id of this.known) {
          const o = document.createElement("option");
          o.value = id;
          o.textContent = id;
          sel.appendChild(o);
        }
      }
      sel.value = this.current;
      sel.closest(".agent-bar").classList.toggle("hidden", this.known.length < 2);
    }
  },
};
