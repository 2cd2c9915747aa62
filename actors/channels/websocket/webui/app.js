// Start-up: the bootstrap (WebSocket path; a local page also gets its
// login cookie, never the token), then the provider check: without a usable
// provider the setup page opens instead of a chat that cannot answer.
"use strict";

(async function main() {
  let boot = {};
  try {
    const res = await fetch("/webui/bootstrap", { cache: "no-store" });
    if (res.ok) boot = await res.json();
  } catch (e) {
    console.warn("no bootstrap", e);
  }
  chat.init(boot);
  dashboard.init(boot);
  agentPicker.init();
  automations.init();
  skills.init();
  settings.init();
  sessions.init();
  const status = await setup.init(() => show("chat"));
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => show(tab.dataset.view));
  }
  const asked = location.hash.slice(1);
  if (status && !status.ready) show("setup");
  else show(["dashboard", "setup", "automations", "skills", "settings", "sessions"].includes(asked) ? asked : "chat");

  function show(view) {
    for (const tab of document.querySelectorAll(".tab"))
      tab.classList.toggle("active", tab.dataset.view === view);
    for (const v of document.querySelectorAll("main > .view"))
      v.classList.toggle("hidden", v.id !== "view-" + view);
    for (const [name, part] of [["dashboard", dashboard], ["automations", automations], ["skills", skills], ["settings", settings], ["sessions", sessions]])
      if (view === name) part.start(); else part.stop();
  }
})();
