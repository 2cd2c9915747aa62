// The setup view: pick a provider from the gateway's registry (or an
// OpenAI-compatible server by URL), paste a key, pick or type a model, test
// it with one request, save. The gateway writes config.json and takes the
// provider at once. Keys only ever go from the page to the gateway: a saved
// key shows as "saved"; an empty field keeps it.
"use strict";

const setup = {
  rows: [],
  onSaved: null,

  // Returns the gateway's provider status (null when it cannot be read).
  async init(onSaved) {
    this.onSaved = onSaved;
    const $ = (id) => document.getElementById(id);
    $("setup-provider").addEventListener("change", () => this.showProvider());
    $("setup-list").addEventListener("click", () => this.listModels());
    $("setup-models").addEventListener("change", () => {
      $("setup-model").value = $("setup-models").value;
    });
    $("setup-test").addEventListener("click", () => this.test());
    $("setup-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.save();
    });
    try {
      return await this.load();
    } catch (e) {
      this.say(String(e.message || e), true);
      return null;
    }
  },

  async load() {
    const status = await this.call("GET", "setup");
    this.rows = status.providers || [];
    const pick = document.getElementById("setup-provider");
    pick.innerHTML = "";
    for (const r of this.rows) {
      const o = document.createElement("option");
      o.value = r.name;
      o.textContent = r.display;
      pick.appendChild(o);
    }
    if (this.rows.some((r) => r.name === status.provider)) pick.value = status.provider;
    else pick.value = "custom";
    document.getElementById("setup-model").value = status.ready ? status.model || "" : "";
    const note = document.getElementById("setup-problem");
    note.textContent = status.ready
      ? `In use: ${status.model} via ${status.provider}.`
      : `No model provider is usable yet: ${status.problem || "none configured"}`;
    note.classList.remove("hidden");
    this.showProvider();
    return status;
  },

  row() {
    const name = document.getElementById("setup-provider").value;
    return this.rows.find((r) => r.name === name) || { name };
  },

  showProvider() {
    const r = this.row();
    const base = document.getElementById("setup-base");
    base.value = r.api_base || "";
    base.placeholder = r.default_base || "http://127.0.0.1:8000/v1";
    document.getElementById("setup-base-row").firstChild.textContent =
      r.needs_base ? "Base URL (required) " : "Base URL (empty: the default) ";
    const key = document.getElementById("setup-key");
    key.value = "";
    key.placeholder = r.key_set ? "•••••••• saved (leave empty to keep)"
                                : r.needs_key ? "paste the API key" : "not needed for most local servers";
    document.getElementById("setup-models").classList.add("hidden");
  },

  form() {
    const v = (id) => document.getElementById(id).value.trim();
    return { provider: v("setup-provider"), api_base: v("setup-base"),
             api_key: v("setup-key"), model: v("setup-model") };
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
    if (!res.ok) throw new Error(doc.error || doc.detail || `HTTP ${res.status}`);
    return doc;
  },

  say(text, bad) {
    const out = document.getElementById("setup-result");
    out.textContent = text;
    out.classList.toggle("error", !!bad);
    out.classList.toggle("ok", !bad);
  },

  busy(on) {
    for (const id of ["setup-list", "setup-test", "setup-save"])
      document.getElementById(id).disabled = on;
  },

  async listModels() {
    this.busy(true);
    this.say("Asking the provider for its models…");
    try {
      const doc = await this.call("POST", "setup/models", this.form());
      if (doc.error) { this.say(doc.error, true); return; }
      const list = document.getElementById("setup-model-list");
      const pick = document.getElementById("setup-models");
      list.innerHTML = "";
      pick.innerHTML = "";
      for (const m of doc.models) {
        const o = document.createElement("option");
        o.value = m;
        o.textContent = m;
        list.appendChild(o.cloneNode(true));
        pick.appendChild(o);
      }
      pick.classList.toggle("hidden", doc.models.length === 0);
      this.say(`${doc.models.length} models listed.`);
    } catch (e) {
      this.say(String(e.message || e), true);
    } finally {
      this.busy(false);
    }
  },

  async test() {
    this.busy(true);
    this.say("Sending one short request…");
    try {
      const doc = await this.call("POST", "setup/test", this.form());
      if (doc.ok) this.say(`OK: the model answered in ${doc.latency_ms} ms: “${doc.answer}”`);
      else this.say(doc.error, true);
    } catch (e) {
      this.say(String(e.message || e), true);
    } finally {
      this.busy(false);
    }
  },

  async save() {
    this.busy(true);
    try {
      const doc = await this.call("PUT", "setup", this.form());
      this.say(`Saved. The gateway now uses ${doc.status.model} via ${doc.status.provider}.`);
      await this.load();
      if (this.onSaved) this.onSaved();
    } catch (e) {
      this.say(String(e.message || e), true);
    } finally {
      this.busy(false);
    }
  },
};
