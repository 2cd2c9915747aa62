// Context use per chat (issue 20, part 6): after each turn the gateway's
// turn_end carries the turn's usage and the model's window; the header shows
// the current chat's last request against that window and the cached share.
// Kept per chat in localStorage, so a reload or a switch back shows it.
"use strict";

const contextUse = {
  shownFor: undefined,

  init() {
    document.addEventListener("nb:event", (e) => this.onEvent(e.detail));
    setInterval(() => this.render(), 1000); // follows chat switches
  },

  onEvent(ev) {
    if (ev.event === "turn_end" && ev.usage && ev.chat_id) {
      localStorage.setItem("nb.context." + ev.chat_id, JSON.stringify({
        context: ev.usage.context_tokens || 0,
        prompt: ev.usage.prompt_tokens || 0,
        cached: ev.usage.cached_tokens || 0,
        window: ev.context_window_tokens || 0,
      }));
      this.shownFor = undefined;
    }
    this.render();
  },

  render() {
    const id = typeof chat === "object" ? chat.current : null;
    const out = document.getElementById("context-use");
    const saved = id ? localStorage.getItem("nb.context." + id) : null;
    const key = id + "|" + saved;
    if (key === this.shownFor) return;
    this.shownFor = key;
    if (!saved) { out.classList.add("hidden"); return; }
    const u = JSON.parse(saved);
    const pct = u.window ? ((u.context * 100) / u.window).toFixed(1) : "?";
    out.textContent = `context ${fmtTokens(u.context)} / ${fmtTokens(u.window)} (${pct}%)` +
      ` · cached ${fmtTokens(u.cached)} of ${fmtTokens(u.prompt)}`;
    out.dataset.context = String(u.context);
    out.dataset.window = String(u.window);
    out.classList.remove("hidden");
  },
};

function fmtTokens(n) {
  if (!n) return "0";
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(n < 10000 ? 1 : 0)}k`;
}

contextUse.init();
