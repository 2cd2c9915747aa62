// Start-up: the bootstrap (WebSocket path; a local page also gets its
// login cookie, never the token), then the provider check: without a usable
// provider the setup page opens instead of a chat that cannot answer.
"use strict";

(async function main() {
  // The tabs answer from the first moment: a tab clicked while the bootstrap
  // and the provider check are still under way is shown once they are done
  // (it was lost before, as the handlers came only after both).
  let started = false, wanted = "";
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => {
      if (started) show(tab.dataset.view); else wanted = tab.dataset.view;
    });
  }
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
  started = true;
  const asked = wanted || location.hash.slice(1);
  if (status && !status.ready) show("setup");
  else show(["dashboard", "setup", "automations", "skills", "settings", "sessions"].includes(asked) ? asked : "chat");
  // Every control has its handler from here on; scripted browsers wait for it.
  document.body.dataset.ready = "1";

  function show(view) {
    for (const tab of document.querySelectorAll(".tab"))
      tab.classList.toggle("active", tab.dataset.view === view);
    for (const v of document.querySelectorAll("main > .view"))
      v.classList.toggle("hidden", v.id !== "view-" + view);
    for (const [name, part] of [["dashboard", dashboard], ["automations", automations], ["skills", skills], ["settings", settings], ["sessions", sessions]])
      if (view === name) part.start(); else part.stop();
  }
})();
