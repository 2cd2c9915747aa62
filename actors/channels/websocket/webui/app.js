// Start-up: fetch the bootstrap (token, WebSocket path), then wire the tabs.
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
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => show(tab.dataset.view));
  }
  show(location.hash === "#dashboard" ? "dashboard" : "chat");

  function show(view) {
    for (const tab of document.querySelectorAll(".tab"))
      tab.classList.toggle("active", tab.dataset.view === view);
    document.getElementById("view-chat").classList.toggle("hidden", view !== "chat");
    document.getElementById("view-dashboard").classList.toggle("hidden", view !== "dashboard");
    if (view === "dashboard") dashboard.start(); else dashboard.stop();
  }
})();
