// Browser: the actions of the browser tool, on the session's current tab.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "actors/browser/engine.hpp"
#include "actors/browser/page_reach.hpp"
#include "actors/common/base64.hpp"
#include "actors/common/utf8.hpp"
#include "actors/tools/untrusted.hpp"
#include "config/atomic_file.hpp"

namespace nb {

using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

using namespace page;

// Sets a form control's value as a user's typing would (React and other
// frameworks see input and change events).
constexpr const char* set_value_js = R"JS(function(v) {
  const el = this;
  if (el.isContentEditable) { el.focus(); el.textContent = v;
    el.dispatchEvent(new InputEvent('input', {bubbles: true})); return 'ok'; }
  if (el.type === 'checkbox' || el.type === 'radio') {
    const want = !['false', '0', 'off', 'no', ''].includes(String(v).toLowerCase());
    if (el.checked !== want) el.click();
    return 'ok';
  }
  if (!('value' in el)) return 'not a form field';
  el.focus();
  const proto = Object.getPrototypeOf(el);
  const desc = Object.getOwnPropertyDescriptor(proto, 'value');
  if (desc && desc.set) desc.set.call(el, v); else el.value = v;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return 'ok';
})JS";

constexpr const char* select_js = R"JS(function(v) {
  if (this.tagName !== 'SELECT') return 'not a select element';
  const want = String(v).trim().toLowerCase();
  const opts = Array.from(this.options);
  const o = opts.find(o => o.value === v) ||
            opts.find(o => o.text.trim().toLowerCase() === want);
  if (!o) return 'no option "' + v + '"; options: ' +
    opts.map(o => o.text.trim() + (o.value !== o.text.trim() ? ' (' + o.value + ')' : '')).join(', ');
  this.value = o.value;
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return 'ok:' + o.text.trim();
})JS";

std::string budgeted(std::string text, size_t max) {
  if (text.size() <= max)
    return text;
  return std::string{utf8_head(text, max)} + "\n[text cut at " + std::to_string(max)
         + " of " + std::to_string(text.size()) + " characters]";
}

// -- the actions

std::string act_open(page_ctx& p) {
  auto url = p.args.value("url", std::string{});
  if (url.empty())
    throw std::runtime_error("open needs `url`");
  auto& tab = p.eng.new_tab(p.s);
  try {
    p.eng.navigate(tab, url);
  } catch (...) {
    p.eng.close_tab(p.s, p.s.current);
    throw;
  }
  return page_view(p, tab, "Opened a new tab (" + std::to_string(p.s.tabs.size())
                             + " open).\n");
}

std::string act_navigate(page_ctx& p, browser_tab& tab) {
  auto url = p.args.value("url", std::string{});
  if (url.empty())
    throw std::runtime_error("navigate needs `url`");
  p.eng.navigate(tab, url);
  return page_view(p, tab, "");
}

std::string act_history(page_ctx& p, browser_tab& tab, int step) {
  auto h = p.eng.cdp().call("Page.getNavigationHistory", json::object(),
                            tab.session_id);
  int at = h.value("currentIndex", 0) + step;
  auto entries = h.value("entries", json::array());
  if (at < 0 || at >= static_cast<int>(entries.size()))
    throw std::runtime_error(step < 0 ? "no page to go back to"
                                      : "no page to go forward to");
  auto& e = entries[static_cast<size_t>(at)];
  // A history entry is navigated again: it passes the guard again.
  p.eng.navigate(tab, e.value("url", std::string{}));
  return page_view(p, tab, "");
}

std::string act_click(page_ctx& p, browser_tab& tab) {
  auto& r = ref_of(tab, p.args);
  auto [x, y] = centre(p, tab, r);
  auto desc = r.role + " \"" + r.name + "\"";
  mouse(p, tab, "mouseMoved", x, y);
  mouse(p, tab, "mousePressed", x, y, {{"button", "left"}, {"clickCount", 1}});
  mouse(p, tab, "mouseReleased", x, y, {{"button", "left"}, {"clickCount", 1}});
  p.eng.settle(tab, 50ms);
  return framed(p, tab, "Clicked ref " + std::to_string(r.ref) + " (" + desc
                          + "). Take a snapshot to see the page now.\n",
                "");
}

std::string act_type(page_ctx& p, browser_tab& tab) {
  auto& r = ref_of(tab, p.args);
  auto text = p.args.value("text", std::string{});
  call_on(p, tab, r, R"JS(function() { this.focus();
    if (this.select) this.select();
    else if (this.isContentEditable) document.execCommand('selectAll'); })JS");
  p.eng.cdp().call("Input.insertText", {{"text", text}}, tab.session_id);
  std::string done = "Typed " + std::to_string(text.size())
                     + " characters into ref " + std::to_string(r.ref) + " ("
                     + r.role + " \"" + r.name + "\")";
  if (p.args.value("submit", false)) {
    press_key(p, tab, "Enter");
    p.eng.settle(tab, 50ms);
    done += " and pressed Enter";
  }
  return framed(p, tab, done + ".\n", "");
}

std::string act_fill(page_ctx& p, browser_tab& tab) {
  auto fields = p.args.value("fields", json::array());
  if (fields.empty())
    throw std::runtime_error("fill needs `fields`: [{ref, value}, ...]");
  std::string report;
  for (auto& f : fields) {
    if (!f.is_object())
      throw std::runtime_error("each field is {ref, value}");
    auto& r = ref_of(tab, f);
    auto v = f.contains("value") ? (f["value"].is_string()
                                      ? f["value"].get<std::string>()
                                      : f["value"].dump())
                                 : std::string{};
    auto res = call_on(p, tab, r, set_value_js, json::array({v}));
    if (res != "ok")
      throw std::runtime_error("ref " + std::to_string(r.ref) + ": "
                               + (res.is_string() ? res.get<std::string>()
                                                  : "cannot be filled"));
    report += "ref " + std::to_string(r.ref) + " (" + r.role + " \"" + r.name
              + "\") set\n";
  }
  return framed(p, tab, "Filled " + std::to_string(fields.size())
                          + " fields:\n" + report,
                "");
}

std::string act_select(page_ctx& p, browser_tab& tab) {
  auto& r = ref_of(tab, p.args);
  auto v = p.args.value("value", std::string{});
  auto res = call_on(p, tab, r, select_js, json::array({v}));
  auto text = res.is_string() ? res.get<std::string>() : "";
  if (text.rfind("ok:", 0) != 0)
    throw std::runtime_error("ref " + std::to_string(r.ref) + ": " + text);
  p.eng.settle(tab, 200ms);
  return framed(p, tab, "Selected \"" + text.substr(3) + "\" in ref "
                          + std::to_string(r.ref) + ".\n",
                "");
}

std::string act_press(page_ctx& p, browser_tab& tab) {
  auto key = p.args.value("key", std::string{});
  press_key(p, tab, key);
  p.eng.settle(tab, 50ms);
  return framed(p, tab, "Pressed " + key + ".\n", "");
}

std::string act_hover(page_ctx& p, browser_tab& tab) {
  auto& r = ref_of(tab, p.args);
  auto [x, y] = centre(p, tab, r);
  mouse(p, tab, "mouseMoved", x, y);
  p.eng.settle(tab, 150ms);
  return framed(p, tab, "Hovering over ref " + std::to_string(r.ref) + ".\n",
                "");
}

std::string act_scroll(page_ctx& p, browser_tab& tab) {
  auto dir = p.args.value("direction", std::string{"down"});
  double dx = 0, dy = 0, step = 700;
  if (dir == "down")
    dy = step;
  else if (dir == "up")
    dy = -step;
  else if (dir == "right")
    dx = step;
  else if (dir == "left")
    dx = -step;
  else if (dir == "top" || dir == "bottom") {
    eval(p, tab, dir == "top" ? "window.scrollTo(0, 0)"
                              : "window.scrollTo(0, document.documentElement"
                                ".scrollHeight)");
  } else
    throw std::runtime_error("direction is up, down, left, right, top or "
                             "bottom");
  if (dx != 0 || dy != 0)
    mouse(p, tab, "mouseWheel", 640, 450, {{"deltaX", dx}, {"deltaY", dy}});
  p.eng.settle(tab, 150ms);
  auto pos = eval(p, tab,
                  "[Math.round(scrollY), Math.round(document.documentElement"
                  ".scrollHeight - innerHeight)]");
  std::string where = pos.is_array() && pos.size() == 2
                        ? " Now at " + pos[0].dump() + " of " + pos[1].dump()
                            + " px."
                        : "";
  return "Scrolled " + dir + "." + where
         + " Take a snapshot to see what is in view.";
}

std::string act_get_text(page_ctx& p, browser_tab& tab) {
  json text;
  if (p.args.contains("ref"))
    text = call_on(p, tab, ref_of(tab, p.args),
                   "function() { return this.innerText ?? this.textContent; }");
  else
    text = eval(p, tab, "document.body ? document.body.innerText : ''");
  auto s = text.is_string() ? text.get<std::string>() : std::string{};
  return framed(p, tab, "",
                budgeted(s, static_cast<size_t>(
                              p.eng.settings().max_snapshot_chars)));
}

std::string act_screenshot(page_ctx& p, browser_tab& tab) {
  json params{{"format", "png"}};
  if (p.args.value("fullPage", false)) {
    auto m = p.eng.cdp().call("Page.getLayoutMetrics", json::object(),
                              tab.session_id);
    auto size = m.value("cssContentSize", m.value("contentSize", json::object()));
    double w = std::min(size.value("width", 1280.0), 10000.0);
    double h = std::min(size.value("height", 900.0), 20000.0);
    params["captureBeyondViewport"] = true;
    params["clip"] = {{"x", 0}, {"y", 0}, {"width", w}, {"height", h},
                      {"scale", 1}};
  }
  auto shot = p.eng.cdp().call("Page.captureScreenshot", params,
                               tab.session_id, 30s);
  auto decoded = base64_decode(shot.value("data", std::string{}));
  if (!decoded)
    throw std::runtime_error("Chromium sent an unreadable screenshot");
  auto png = std::move(*decoded);
  namespace fs = std::filesystem;
  auto dir = fs::path{p.eng.workspace()} / "screenshots";
  std::error_code ec;
  fs::create_directories(dir, ec);
  // browser-20260101-120000-1.png; the counter keeps names apart within a
  // second (create_file_atomic never replaces an existing file).
  char stamp[32];
  auto now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  std::string path;
  for (int n = 1;; ++n) {
    path = (dir / ("browser-" + std::string{stamp} + "-" + std::to_string(n)
                   + ".png"))
             .string();
    auto w = create_file_atomic(path, png, 0644);
    if (w.outcome == write_outcome::written)
      break;
    if (w.outcome == write_outcome::failed || n > 1000)
      throw std::runtime_error(w.error.empty() ? "cannot save " + path
                                               : w.error);
  }
  return "Screenshot saved: " + path + " (PNG, " + std::to_string(png.size())
         + " bytes" + (p.args.value("fullPage", false) ? ", full page" : "")
         + "). Read or send it from there.";
}

std::string act_wait(page_ctx& p, browser_tab& tab) {
  auto& cdp = p.eng.cdp();
  if (p.args.contains("text")) {
    auto text = p.args.value("text", std::string{});
    auto until = cdp_connection::clock::now() + p.eng.nav_timeout();
    auto probe = "(document.body ? document.body.innerText : '').includes("
                 + json(text).dump() + ")";
    for (;;) {
      if (eval(p, tab, probe) == true)
        return framed(p, tab, "The text appeared.\n", "");
      if (cdp_connection::clock::now() >= until)
        throw std::runtime_error("\"" + short_text(text)
                                 + "\" did not appear within "
                                 + std::to_string(
                                   p.eng.settings().navigation_timeout_s)
                                 + " s");
      cdp.pump_until(cdp_connection::clock::now() + 200ms);
    }
  }
  auto ms = p.args.value("ms", 1000);
  ms = std::clamp(ms, 0, 60000);
  cdp.pump_until(cdp_connection::clock::now() + std::chrono::milliseconds(ms));
  return "Waited " + std::to_string(ms) + " ms.";
}

std::string act_tabs(page_ctx& p) {
  if (p.s.tabs.empty())
    return "No tabs open. Use open {url}.";
  std::string list;
  for (size_t i = 0; i < p.s.tabs.size(); ++i) {
    auto [url, title] = where(p, p.s.tabs[i]);
    list += std::to_string(i + 1) + (i == p.s.current ? "* " : "  ")
            + short_text(title, 80) + " — " + short_text(url, 200) + "\n";
  }
  return "Tabs (* = current):\n" + frame_untrusted("browser tabs", list);
}

std::string act_close_tab(page_ctx& p) {
  if (p.s.tabs.empty())
    return "No tab to close.";
  size_t index = p.s.current;
  if (p.args.contains("index"))
    index = static_cast<size_t>(p.args.value("index", 1) - 1);
  if (index >= p.s.tabs.size())
    throw std::runtime_error("no tab " + std::to_string(index + 1) + " ("
                             + std::to_string(p.s.tabs.size()) + " open)");
  p.eng.close_tab(p.s, index);
  return "Closed tab " + std::to_string(index + 1) + "; "
         + std::to_string(p.s.tabs.size()) + " open.";
}

std::string act_evaluate(page_ctx& p, browser_tab& tab) {
  if (!p.eng.settings().allow_evaluate)
    throw std::runtime_error("evaluate is off (tools.browser.allowEvaluate)");
  auto v = eval(p, tab, p.args.value("expression", std::string{}),
                p.eng.nav_timeout());
  return framed(p, tab, "",
                "Result: "
                  + budgeted(v.is_string() ? v.get<std::string>() : v.dump(),
                             static_cast<size_t>(
                               p.eng.settings().max_snapshot_chars)));
}

} // namespace

browser_outcome run_action(browser_engine& eng, browser_session& s,
                           const json& args) {
  page_ctx p{eng, s, args};
  auto a = args.value("action", std::string{});
  if (a == "open")
    return {act_open(p)};
  if (a == "tabs")
    return {act_tabs(p)};
  if (a == "close_tab")
    return {act_close_tab(p)};
  auto& tab = eng.current_tab(s);
  if (a == "navigate")
    return {act_navigate(p, tab)};
  if (a == "back" || a == "forward")
    return {act_history(p, tab, a == "back" ? -1 : 1)};
  if (a == "snapshot")
    return {page_view(p, tab, "")};
  if (a == "click")
    return {act_click(p, tab)};
  if (a == "type")
    return {act_type(p, tab)};
  if (a == "fill")
    return {act_fill(p, tab)};
  if (a == "select")
    return {act_select(p, tab)};
  if (a == "press")
    return {act_press(p, tab)};
  if (a == "hover")
    return {act_hover(p, tab)};
  if (a == "scroll")
    return {act_scroll(p, tab)};
  if (a == "get_text")
    return {act_get_text(p, tab)};
  if (a == "screenshot")
    return {act_screenshot(p, tab)};
  if (a == "wait")
    return {act_wait(p, tab)};
  if (a == "evaluate")
    return {act_evaluate(p, tab)};
  throw std::runtime_error("unknown action \"" + a + "\"");
}

} // namespace nb
