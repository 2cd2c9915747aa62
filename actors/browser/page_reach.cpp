#include "actors/browser/page_reach.hpp"

#include <cstdlib>
#include <stdexcept>

#include "actors/browser/keys.hpp"
#include "actors/common/utf8.hpp"
#include "actors/tools/untrusted.hpp"

namespace nb::page {

using namespace std::chrono_literals;

std::string short_text(const std::string& s, size_t max) {
  return s.size() > max ? std::string{utf8_head(s, max)} + "…" : s;
}

json eval(page_ctx& p, browser_tab& tab, const std::string& expr,
          std::chrono::milliseconds timeout) {
  auto r = p.eng.cdp().call("Runtime.evaluate",
                            {{"expression", expr},
                             {"returnByValue", true},
                             {"awaitPromise", true}},
                            tab.session_id, timeout);
  if (r.contains("exceptionDetails")) {
    auto& d = r["exceptionDetails"];
    std::string what = d.value("text", std::string{"exception"});
    if (d.contains("exception") && d["exception"].is_object())
      what = d["exception"].value("description", what);
    throw std::runtime_error("the page's script failed: " + short_text(what, 500));
  }
  return r.contains("result") ? r["result"].value("value", json{}) : json{};
}

std::pair<std::string, std::string> where(page_ctx& p, browser_tab& tab) {
  auto v = eval(p, tab, "[location.href, document.title]");
  if (!v.is_array() || v.size() != 2)
    return {"", ""};
  return {v[0].is_string() ? v[0].get<std::string>() : "",
          v[1].is_string() ? v[1].get<std::string>() : ""};
}

std::string framed(page_ctx& p, browser_tab& tab, const std::string& lead,
                   const std::string& body) {
  auto [url, title] = where(p, tab);
  return lead + frame_untrusted("browser " + url,
                                "URL: " + url + "\nTitle: " + title
                                  + (body.empty() ? "" : "\n\n" + body));
}

std::string snapshot_of(page_ctx& p, browser_tab& tab) {
  auto tree = p.eng.cdp().call("Accessibility.getFullAXTree",
                               json::object(), tab.session_id, 20s);
  auto snap = render_snapshot(tree.value("nodes", json::array()),
                              static_cast<size_t>(
                                p.eng.settings().max_snapshot_chars));
  tab.refs = std::move(snap.refs);
  return snap.text;
}

std::string page_view(page_ctx& p, browser_tab& tab, const std::string& lead) {
  auto body = snapshot_of(p, tab);
  return framed(p, tab,
                lead + "Act on elements by their [ref=N] (refs change with "
                       "every snapshot).\n",
                body);
}

const snapshot_ref& ref_of(browser_tab& tab, const json& args) {
  if (!args.contains("ref"))
    throw std::runtime_error("this action needs `ref` (a number from the "
                             "last snapshot)");
  int ref = args["ref"].is_number_integer() ? args["ref"].get<int>() : 0;
  if (args["ref"].is_string()) {
    auto t = args["ref"].get<std::string>();
    t.erase(0, t.find_first_of("0123456789"));
    ref = std::atoi(t.c_str());
  }
  if (tab.refs.empty())
    throw std::runtime_error("no snapshot of this page yet: take a snapshot "
                             "and use its refs");
  if (ref < 1 || ref > static_cast<int>(tab.refs.size()))
    throw std::runtime_error("ref " + std::to_string(ref)
                             + " is not in the last snapshot (refs 1-"
                             + std::to_string(tab.refs.size()) + ")");
  return tab.refs[static_cast<size_t>(ref - 1)];
}

namespace {

[[noreturn]] void gone(const snapshot_ref& r) {
  throw std::runtime_error("ref " + std::to_string(r.ref) + " (" + r.role
                           + " \"" + r.name
                           + "\") is gone: the page changed since the "
                             "snapshot; take a new snapshot");
}

} // namespace

json call_on(page_ctx& p, browser_tab& tab, const snapshot_ref& r,
             const std::string& fn, json arguments) {
  json obj;
  try {
    obj = p.eng.cdp().call("DOM.resolveNode",
                           {{"backendNodeId", r.backend_node}},
                           tab.session_id);
  } catch (const cdp_error& e) {
    if (e.kind != cdp_failure::protocol)
      throw;
    gone(r);
  }
  auto id = obj.contains("object") ? obj["object"].value("objectId", "") : "";
  if (id.empty())
    gone(r);
  json args = json::array();
  for (auto& a : arguments)
    args.push_back({{"value", a}});
  auto res = p.eng.cdp().call("Runtime.callFunctionOn",
                              {{"functionDeclaration", fn},
                               {"objectId", id},
                               {"arguments", args},
                               {"returnByValue", true},
                               {"awaitPromise", true}},
                              tab.session_id);
  if (res.contains("exceptionDetails"))
    throw std::runtime_error("the page refused the action on ref "
                             + std::to_string(r.ref) + ": "
                             + short_text(res["exceptionDetails"].value(
                                            "text", std::string{"exception"}),
                                          300));
  return res.contains("result") ? res["result"].value("value", json{}) : json{};
}

std::pair<double, double> centre(page_ctx& p, browser_tab& tab,
                                 const snapshot_ref& r) {
  auto& cdp = p.eng.cdp();
  try {
    cdp.call("DOM.scrollIntoViewIfNeeded", {{"backendNodeId", r.backend_node}},
             tab.session_id);
    auto q = cdp.call("DOM.getContentQuads",
                      {{"backendNodeId", r.backend_node}}, tab.session_id);
    auto quads = q.value("quads", json::array());
    if (quads.empty() || !quads[0].is_array() || quads[0].size() < 8)
      throw std::runtime_error("ref " + std::to_string(r.ref)
                               + " is not visible on the page");
    auto& a = quads[0];
    double x = 0, y = 0;
    for (int i = 0; i < 4; ++i) {
      x += a[i * 2].get<double>() / 4;
      y += a[i * 2 + 1].get<double>() / 4;
    }
    return {x, y};
  } catch (const cdp_error& e) {
    if (e.kind != cdp_failure::protocol)
      throw;
    gone(r);
  }
}

void mouse(page_ctx& p, browser_tab& tab, const char* type, double x, double y,
           json extra) {
  json ev{{"type", type}, {"x", x}, {"y", y}};
  ev.update(extra);
  p.eng.cdp().call("Input.dispatchMouseEvent", ev, tab.session_id);
}

void press_key(page_ctx& p, browser_tab& tab, const std::string& spec) {
  auto k = parse_key(spec);
  if (!k.error.empty())
    throw std::runtime_error(k.error);
  json down{{"type", k.text.empty() ? "rawKeyDown" : "keyDown"},
            {"key", k.key},
            {"code", k.code},
            {"windowsVirtualKeyCode", k.key_code},
            {"modifiers", k.modifiers}};
  if (!k.text.empty())
    down["text"] = k.text;
  p.eng.cdp().call("Input.dispatchKeyEvent", down, tab.session_id);
  p.eng.cdp().call("Input.dispatchKeyEvent",
                   {{"type", "keyUp"},
                    {"key", k.key},
                    {"code", k.code},
                    {"windowsVirtualKeyCode", k.key_code},
                    {"modifiers", k.modifiers}},
                   tab.session_id);
}

} // namespace nb::page
