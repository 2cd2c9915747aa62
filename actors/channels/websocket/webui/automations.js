// The automations view (issue 20, part 4): the agent's cron jobs with their
// schedule, time zone, next and last run, target chat and last outcome; add,
// edit, pause, resume, delete and "run now"; HEARTBEAT.md edited in place,
// with the heartbeat's interval and the evaluator prompt in effect. The
// gateway's cron actor and workspace actor make every change.
"use strict";

const automations = {
  timer: null,
  jobs: [],
  editing: null,      // id of the job the form edits (null: a new job)
  hbVersion: "",      // the HEARTBEAT.md version the text area holds
  hbDirty: false,

  init() {
    const $ = (id) => document.getElementById(id);
    $("cron-kind").addEventListener("change", () => this.showKind());
    $("cron-form").addEventListener("submit", (e) => { e.preventDefault(); this.save(); });
    $("cron-cancel").addEventListener("click", () => this.resetForm());
    $("cron-jobs").addEventListener("click", (e) => {
      const b = e.target.closest("button[data-op]");
      if (b) this.act(b.dataset.op, b.closest("tr").dataset.id);
    });
    $("hb-text").addEventListener("input", () => { this.hbDirty = true; });
    $("hb-save").addEventListener("click", () => this.saveHeartbeat());
    $("hb-reload").addEventListener("click", () => { this.hbDirty = false; this.load(); });
    agentPicker.onChange(() => {
      // Another agent's jobs and HEARTBEAT.md: nothing of this one's stays.
      this.resetForm();
      this.hbDirty = false;
      this.hbVersion = "";
      this.jobs = [];
      for (const id of ["cron-result", "hb-result"]) this.note(id, "", false);
      if (this.timer) this.load();
    });
    this.resetForm();
  },

  // The chat open in the chat view: a new job answers there by default.
  openChat() {
    return (typeof chat !== "undefined" && chat.current) || "";
  },

  start() {
    if (this.timer) return;
    const target = document.getElementById("cron-chat");
    if (!this.editing && !target.value) target.value = this.openChat();
    this.load();
    // Jobs fire on their own: their last run and outcome are polled.
    this.timer = setInterval(() => this.load(), 3000);
  },

  stop() { clearInterval(this.timer); this.timer = null; },

  async load() {
    try {
      const doc = await setup.call("GET", agentPicker.path("automations"));
      agentPicker.learn(doc.agents);
      if ((doc.agent || "main") !== agentPicker.current) return; // picked another meanwhile
      this.jobs = doc.jobs || [];
      this.renderJobs(doc);
      this.renderHeartbeat(doc.heartbeat || {});
      // Whose jobs and HEARTBEAT.md the page holds now.
      document.getElementById("view-automations").dataset.agent = doc.agent || "main";
    } catch (e) {
      this.note("cron-error", String(e.message || e), true);
    }
  },

  note(id, text, bad) {
    const el = document.getElementById(id);
    el.textContent = text || "";
    el.classList.toggle("hidden", !text);
    el.classList.toggle("error", !!bad);
    el.classList.toggle("ok", !bad);
  },

  renderJobs(doc) {
    const problems = [doc.cron_error, ...(doc.problems || [])].filter(Boolean);
    this.note("cron-error", problems.join("; "), true);
    const body = document.querySelector("#cron-jobs tbody");
    body.innerHTML = "";
    if (!this.jobs.length) {
      const tr = body.insertRow();
      const td = tr.insertCell();
      td.colSpan = 8;
      td.className = "sub";
      td.textContent = "No scheduled jobs yet.";
    }
    for (const j of this.jobs) {
      const tr = body.insertRow();
      tr.dataset.id = j.id;
      tr.className = j.enabled ? "" : "paused";
      const cell = (text, cls, title) => {
        const td = tr.insertCell();
        td.textContent = text;
        if (cls) td.className = cls;
        if (title) td.title = title;
        return td;
      };
      const name = cell(j.name, "job-name", j.message);
      if (j.system) name.appendChild(badge("system"));
      if (!j.enabled) name.appendChild(badge("paused"));
      cell(j.timing, "job-timing");
      cell(j.tz, "job-tz");
      cell(j.enabled ? fmtWhen(j.next_run) : "paused", "job-next");
      cell(j.last_run ? fmtWhen(j.last_run) : "never", "job-last");
      const outcome = cell(j.last_status ? j.last_status + (j.last_error ? ": " + j.last_error : "") : "–",
                           "job-outcome status-" + (j.last_status || "none"),
                           (j.runs || []).map((r) => `${r.at} ${r.status}${r.error ? ": " + r.error : ""}`).join("\n"));
      outcome.dataset.status = j.last_status || "";
      cell(j.system ? "(system)" : `${j.channel}:${j.chat_id}`, "job-target");
      const ops = tr.insertCell();
      ops.className = "ops";
      const button = (op, label) => {
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.op = op;
        b.textContent = label;
        ops.appendChild(b);
      };
      button("run", "Run now");
      if (!j.system) {
        button(j.enabled ? "pause" : "resume", j.enabled ? "Pause" : "Resume");
        button("edit", "Edit");
        button("delete", "Delete");
      }
    }
  },

  renderHeartbeat(hb) {
    const $ = (id) => document.getElementById(id);
    const file = hb.file || {};
    const parts = [hb.enabled ? `every ${fmtSeconds(hb.interval_s)}` : "disabled (gateway.heartbeat.enabled)"];
    if (hb.file) parts.push(hb.active_tasks ? "active tasks: yes (a beat runs them)"
                                            : "no active tasks (a beat does nothing)");
    if (file.origin === "missing") parts.push("HEARTBEAT.md does not exist yet");
    $("hb-state").textContent = parts.join(" · ");
    $("hb-state").dataset.active = hb.active_tasks ? "yes" : "no";
    if (hb.error) this.note("hb-result", hb.error, true);
    if (!this.hbDirty && hb.file) {
      $("hb-text").value = file.text || "";
      this.hbVersion = file.version || "";
    }
    const ev = hb.evaluator || {};
    $("hb-evaluator-origin").textContent = ev.origin === "file" ? "from prompts/evaluator.md" : "built-in";
    $("hb-evaluator").textContent = ev.text || "";
  },

  async saveHeartbeat() {
    const text = document.getElementById("hb-text").value;
    try {
      const doc = await setup.call("PUT", agentPicker.path("heartbeat"), { text, version: this.hbVersion });
      this.hbDirty = false;
      this.hbVersion = doc.file.version;
      this.note("hb-result", "Saved HEARTBEAT.md" + (doc.active_tasks ? " (it has active tasks)." : "."), false);
      this.load();
    } catch (e) {
      this.note("hb-result", String(e.message || e), true);
    }
  },

  showKind() {
    const kind = document.getElementById("cron-kind").value;
    for (const k of ["every", "cron", "at"])
      document.getElementById("cron-" + k + "-row").classList.toggle("hidden", k !== kind);
  },

  resetForm() {
    this.editing = null;
    const $ = (id) => document.getElementById(id);
    $("cron-form").reset();
    $("cron-form-title").textContent = "Add a job";
    $("cron-save").textContent = "Add job";
    $("cron-cancel").classList.add("hidden");
    $("cron-channel").value = "websocket";
    $("cron-chat").value = this.openChat();
    this.showKind();
  },

  edit(j) {
    this.editing = j.id;
    const $ = (id) => document.getElementById(id);
    $("cron-form-title").textContent = `Edit “${j.name}”`;
    $("cron-save").textContent = "Save changes";
    $("cron-cancel").classList.remove("hidden");
    $("cron-name").value = j.name;
    $("cron-message").value = j.message;
    $("cron-kind").value = j.kind;
    $("cron-every").value = j.kind === "every" ? j.every_seconds : "";
    $("cron-expr").value = j.cron_expr || "";
    $("cron-tz").value = j.kind === "cron" ? j.tz : "";
    $("cron-at").value = j.kind === "at" ? j.at.slice(0, 16) : "";
    $("cron-channel").value = j.channel;
    $("cron-chat").value = j.chat_id;
    this.showKind();
    $("cron-form").scrollIntoView({ block: "nearest" });
  },

  form() {
    const v = (id) => document.getElementById(id).value.trim();
    const out = { name: v("cron-name"), message: v("cron-message"), kind: v("cron-kind"),
                  channel: v("cron-channel"), chat_id: v("cron-chat") };
    if (out.kind === "every") out.every_seconds = Number(v("cron-every"));
    if (out.kind === "cron") { out.cron_expr = v("cron-expr"); if (v("cron-tz")) out.tz = v("cron-tz"); }
    if (out.kind === "at") out.at = v("cron-at");
    return out;
  },

  async save() {
    try {
      const doc = this.editing
        ? await setup.call("PUT", agentPicker.path("cron/jobs/" + encodeURIComponent(this.editing)), this.form())
        : await setup.call("POST", agentPicker.path("cron/jobs"), this.form());
      this.note("cron-result", `Saved “${doc.job.name}”: ${doc.job.timing}, next run ${fmtWhen(doc.job.next_run)}.`, false);
      this.resetForm();
      this.load();
    } catch (e) {
      this.note("cron-result", String(e.message || e), true);
    }
  },

  async act(op, id) {
    const j = this.jobs.find((x) => x.id === id);
    if (!j) return;
    if (op === "edit") { this.edit(j); return; }
    try {
      let doc;
      if (op === "delete") {
        if (!confirm(`Delete the job “${j.name}”?`)) return;
        doc = await setup.call("DELETE", agentPicker.path("cron/jobs/" + encodeURIComponent(id)));
        this.note("cron-result", `Deleted “${j.name}”.`, false);
      } else {
        doc = await setup.call("POST", agentPicker.path(`cron/jobs/${encodeURIComponent(id)}/${op}`));
        this.note("cron-result", op === "run" ? doc.text : `${op === "pause" ? "Paused" : "Resumed"} “${j.name}”.`, false);
      }
      if (this.editing === id && op === "delete") this.resetForm();
      this.load();
    } catch (e) {
      this.note("cron-result", String(e.message || e), true);
    }
  },
};

function badge(text) {
  const b = document.createElement("span");
  b.className = "badge";
  b.textContent = text;
  return b;
}

// "2026-12-02T15:40:00+01:00" -> "2026-12-02 15:40:00 (+01:00)".
function fmtWhen(iso) {
  if (!iso) return "–";
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(.*)$/.exec(iso);
  return m ? `${m[1]} ${m[2]}${m[3] ? " (" + m[3] + ")" : ""}` : iso;
}

function fmtSeconds(s) {
  if (!s) return "–";
  if (s % 3600 === 0) return `${s / 3600} h`;
  if (s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}
