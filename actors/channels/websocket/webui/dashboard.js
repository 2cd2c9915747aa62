// The operations dashboard: the gateway's /stats and the channel states,
// polled every 2 s, with short histories drawn as charts.
"use strict";

const dashboard = {
  timer: null,
  rss: [],
  turns: [],
  keep: 60,

  init() {},

  start() {
    if (this.timer) return;
    this.poll();
    this.timer = setInterval(() => this.poll(), 2000);
  },

  stop() { clearInterval(this.timer); this.timer = null; },

  async fetchJson(name) {
    // The login cookie goes along (same origin); the page holds no token.
    const res = await fetch("/api/" + name, { cache: "no-store" });
    if (!res.ok) throw new Error(`/api/${name}: HTTP ${res.status}`);
    return res.json();
  },

  async poll() {
    const err = document.getElementById("dash-error");
    try {
      const [stats, ch] = await Promise.all([this.fetchJson("stats"), this.fetchJson("channels")]);
      if (stats.error) throw new Error(stats.error);
      this.render(stats);
      this.renderChannels(ch.channels || []);
      err.classList.add("hidden");
    } catch (e) {
      err.textContent = String(e.message || e);
      err.classList.remove("hidden");
    }
  },

  render(s) {
    const set = (id, text) => { document.getElementById(id).textContent = text; };
    set("dash-uptime", fmtDuration(s.uptime_s));
    set("dash-rss", fmtBytes(s.rss_bytes));
    set("dash-threads", String(s.threads));
    const t = s.turns || {};
    set("dash-turns", String(t.count || 0));
    set("dash-latency", `p50 ${fmtUs(t.p50_us)}`);
    set("dash-latency-sub", `p99 ${fmtUs(t.p99_us)}`);
    const p = s.provider || {};
    set("dash-provider", String((p.calls_ok || 0) + (p.calls_failed || 0)));
    set("dash-provider-sub", `${p.calls_failed || 0} failed · p50 ${fmtUs(p.p50_us)} · ${p.total_tokens || 0} tokens`);
    this.push(this.rss, s.rss_bytes || 0);
    this.push(this.turns, t.count || 0);
    charts.line(document.getElementById("chart-rss"), this.rss, "#7c3aed");
    charts.line(document.getElementById("chart-turns"), this.turns, "#2563eb");

    const actors = Object.entries(s.actors || {});
    fillTable("dash-actors", actors.map(([kind, a]) =>
      [kind, a.live, a.handled, a.mailbox_high, fmtUs(a.p50_us), fmtUs(a.p99_us), a.errors]));
    charts.bars(document.getElementById("chart-mailbox"),
                actors.map(([kind, a]) => [kind, a.mailbox_high]), "#f59e0b");
    fillTable("dash-tools", Object.entries(s.tools || {}).map(([name, x]) =>
      [name, x.calls, x.errors, fmtUs(x.p50_us), fmtUs(x.p99_us)]));
    this.renderNodes(s.nodes || [], (s.gauges || {}).schedules_owner);
  },

  // Only a cluster gateway (nanobot node --role gateway) lists nodes.
  renderNodes(nodes, schedulesOwner) {
    document.getElementById("dash-cluster").classList.toggle("hidden", nodes.length === 0);
    if (nodes.length === 0) return;
    fillTable("dash-nodes", nodes.map((n) =>
      [n.node_id, n.role, n.address,
       { text: n.up ? "up" : "down", cls: n.up ? "state-connected" : "state-error" },
       n.actors, n.sessions, n.mailbox, fmtBytes(n.rss_bytes), fmtDuration(n.uptime_s)]));
    document.getElementById("dash-schedules").textContent =
      schedulesOwner === undefined ? ""
        : schedulesOwner ? "Schedules (cron, heartbeat): run by this gateway"
          : "Schedules (cron, heartbeat): on standby, another gateway holds the lease";
  },

  renderChannels(list) {
    fillTable("dash-channels", list.map((c) =>
      [c.name, { text: c.state, cls: "state-" + c.state }, c.sent, c.received, c.failed, c.detail]));
  },

  push(arr, v) {
    arr.push(v);
    if (arr.length > this.keep) arr.shift();
  },
};

function fillTable(id, rows) {
  const body = document.querySelector(`#${id} tbody`);
  body.innerHTML = "";
  for (const row of rows) {
    const tr = document.createElement("tr");
    for (const cell of row) {
      const td = document.createElement("td");
      if (cell && typeof cell === "object") {
        td.textContent = cell.text;
        td.className = cell.cls;
      } else {
        td.textContent = cell === undefined || cell === null ? "" : String(cell);
        if (typeof cell === "number") td.className = "num";
      }
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

function fmtUs(us) {
  if (us === undefined || us === null) return "–";
  if (us < 1000) return `${us} µs`;
  if (us < 1e6) return `${(us / 1000).toFixed(1)} ms`;
  return `${(us / 1e6).toFixed(2)} s`;
}

function fmtBytes(b) {
  if (!b) return "–";
  return `${(b / 1048576).toFixed(1)} MB`;
}

function fmtDuration(s) {
  if (s === undefined) return "–";
  s = Math.floor(s);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return h ? `${h} h ${m} min` : m ? `${m} min ${s % 60} s` : `${s} s`;
}
