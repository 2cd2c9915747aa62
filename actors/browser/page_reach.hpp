// Browser: reaching into a session's tab for the actions — evaluating
// script, reading the snapshot, resolving a snapshot ref to its element,
// and the mouse and key events the actions are made of.
#pragma once

#include <chrono>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "actors/browser/engine.hpp"

namespace nb::page {

using json = nlohmann::json;

/// What one action works with: the engine, the session and the call's
/// arguments.
struct page_ctx {
  browser_engine& eng;
  browser_session& s;
  const json& args;
};

/// `s` cut to `max` bytes on a character boundary, "…" when cut.
std::string short_text(const std::string& s, size_t max = 120);

/// The value of `expr` evaluated in the page; a script error is thrown
/// with its text.
json eval(page_ctx& p, browser_tab& tab, const std::string& expr,
          std::chrono::milliseconds timeout = std::chrono::seconds(10));

/// The page's URL and title (both page-controlled: show them framed).
std::pair<std::string, std::string> where(page_ctx& p, browser_tab& tab);

/// `body` framed as untrusted page content, with the page's URL and title
/// (both page-controlled), after `lead`.
std::string framed(page_ctx& p, browser_tab& tab, const std::string& lead,
                   const std::string& body);

/// A fresh snapshot of the tab; its refs replace the tab's.
std::string snapshot_of(page_ctx& p, browser_tab& tab);

/// A fresh snapshot, framed, with how to use its refs.
std::string page_view(page_ctx& p, browser_tab& tab, const std::string& lead);

/// The element the call's `ref` names in the last snapshot; a clear error
/// when there is none.
const snapshot_ref& ref_of(browser_tab& tab, const json& args);

/// Calls `fn` (a JS function declaration) with `this` = the element.
json call_on(page_ctx& p, browser_tab& tab, const snapshot_ref& r,
             const std::string& fn, json arguments = json::array());

/// The element's centre in viewport coordinates, scrolled into view.
std::pair<double, double> centre(page_ctx& p, browser_tab& tab,
                                 const snapshot_ref& r);

/// One mouse event of `type` at (x, y).
void mouse(page_ctx& p, browser_tab& tab, const char* type, double x, double y,
           json extra = json::object());

/// Presses and releases a key or chord like "Enter" or "Control+a".
void press_key(page_ctx& p, browser_tab& tab, const std::string& spec);

} // namespace nb::page
