// "Add a channel" on the settings page (issue 20): a type from the ones
// this gateway's build has, the keys that type needs (secrets as password
// fields, never shown again), other keys as JSON, who may write. The
// gateway checks the new channels.<name> as the adapter reads it at start
// (an error names the key), writes config.json and starts that channel
// alone; the channels already running are not touched.
"use strict";

const channelAdd = {
  kinds: [],

  init() {
    document.getElementById("ch-add-type").addEventListener("change", () => this.renderKeys());
    document.getElementById("ch-add-save").addEventListener("click", () => this.save());
  },

  // The types from GET /api/settings (channel_kinds).
  render(kinds) {
    this.kinds = kinds || [];
    const sel = document.getElementById("ch-add-type");
    const was = sel.value;
    sel.innerHTML = "";
    sel.appendChild(option("", "(pick a type)"));
    for (const k of this.kinds) sel.appendChild(option(k.type, k.type));
    sel.value = this.kinds.some((k) => k.type === was) ? was : "";
    this.renderKeys();
  },

  renderKeys() {
    const type = document.getElementById("ch-add-type").value;
    const box = document.getElementById("ch-add-keys");
    const kind = this.kinds.find((k) => k.type === type);
    box.innerHTML = "";
    for (const key of (kind && kind.required) || []) {
      const secret = secretKey(key);
      const i = input(secret ? "password" : "text", secret ? "ch-add-secret" : "ch-add-option");
      i.dataset.key = key;
      if (secret) i.autocomplete = "new-password";
      box.appendChild(labelled(key + " (required)", i));
    }
    const name = document.getElementById("ch-add-name");
    if (!name.value && type) name.placeholder = type;
  },

  async save() {
    const $ = (id) => document.getElementById(id);
    const type = $("ch-add-type").value;
    const name = $("ch-add-name").value.trim() || type;
    if (!type) { settings.say("ch-add-result", "Pick the channel's type.", true); return false; }
    let options = {};
    const more = $("ch-add-more").value.trim();
    if (more) {
      try { options = JSON.parse(more); } catch (e) {
        settings.say("ch-add-result", "Other keys: not JSON: " + e.message, true);
        return false;
      }
    }
    const secrets = {};
    for (const i of document.querySelectorAll("#ch-add-keys .ch-add-secret"))
      if (i.value) secrets[i.dataset.key] = i.value;
    for (const i of document.querySelectorAll("#ch-add-keys .ch-add-option"))
      if (i.value.trim()) options[i.dataset.key] = i.value.trim();
    // Secrets typed into the JSON go with the secrets (never shown back).
    for (const k of Object.keys(options))
      if (secretKey(k) && typeof options[k] === "string") { secrets[k] = options[k]; delete options[k]; }
    const allow = $("ch-add-allow").value.split(",").map((s) => s.trim()).filter(Boolean);
    const ok = await settings.submit("ch-add-result", "POST", "settings/channels/" + encodeURIComponent(name), {
      type, enabled: true, allow_from: allow.length ? allow : null, secrets, options,
    });
    if (ok) {
      for (const id of ["ch-add-name", "ch-add-more", "ch-add-allow"]) $(id).value = "";
      $("ch-add-type").value = "";
      this.renderKeys();
      settings.pollChannels();
    }
    return ok;
  },
};

// The gateway's rule for keys whose values never reach the browser
// (config/settings_forms.cpp secret_key).
function secretKey(key) {
  const k = key.toLowerCase().replace(/[_-]/g, "");
  if (k.endsWith("tokens")) return false;
  return /token|secret|password|passwd|credential|cookie|authorization/.test(k) || k.endsWith("key");
}
