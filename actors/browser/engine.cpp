#include "actors/browser/engine.hpp"

#include <filesystem>
#include <stdexcept>
#include <thread>

#include "actors/browser/url_policy.hpp"

namespace nb {

using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

// Runs before any script of every document in a tab: WebSockets, WebRTC
// and WebTransport connect outside the Fetch domain, so the guard could
// not check them; pages get no such constructors.
constexpr const char* no_unguarded_sockets = R"JS(
(() => {
  for (const name of ['WebSocket', 'WebTransport', 'RTCPeerConnection',
                      'webkitRTCPeerConnection']) {
    try {
      Object.defineProperty(globalThis, name, {
        value: undefined, writable: false, configurable: false });
    } catch (e) {}
  }
})();
)JS";

} // namespace

browser_engine::browser_engine(browser_settings cfg, ssrf_policy policy,
                               std::string workspace)
  : cfg_(std::move(cfg)),
    policy_(std::move(policy)),
    workspace_(std::move(workspace)) {
  cdp_.on_event([this](const json& ev) { on_event(ev); });
}

browser_engine::~browser_engine() {
  stop();
}

void browser_engine::stop() {
  cdp_.detach();
  process_.stop();
  running_ = false;
  sessions_.clear();
  loading_.clear();
  loads_.clear();
  loaded_.clear();
}

int browser_engine::pages_open() const {
  int n = 0;
  for (auto& [_, s] : sessions_)
    n += static_cast<int>(s.tabs.size());
  return n;
}

void browser_engine::start() {
  stop();
  if (auto err = process_.start(cfg_); !err.empty())
    throw std::runtime_error(err);
  cdp_.attach(process_.write_fd(), process_.read_fd());
  running_ = true;
  try {
    cdp_.call("Browser.getVersion", json::object(), {}, 30s);
    // Every request of every page, worker and redirect pauses here until
    // the guard has looked at it (on_request_paused).
    cdp_.call("Fetch.enable",
              {{"patterns", json::array({{{"urlPattern", "*"}}})}});
    // Every new target (tab, popup, frame, worker) is attached and held
    // before its first script until on_attached has disarmed it.
    cdp_.call("Target.setAutoAttach", {{"autoAttach", true},
                                       {"waitForDebuggerOnStart", true},
                                       {"flatten", true}});
  } catch (const cdp_error& e) {
    // Never keep a half-started browser: without Fetch.enable nothing
    // would guard its requests.
    process_.alive();
    auto how = process_.exit_reason();
    stop();
    if (e.kind == cdp_failure::cancelled)
      throw;
    throw std::runtime_error(std::string{"Chromium did not start: "}
                             + e.what() + (how.empty() ? "" : " (" + how + ")"));
  }
}

void browser_engine::on_event(const json& ev) {
  auto method = ev.value("method", std::string{});
  auto session = ev.value("sessionId", std::string{});
  auto& params = ev.contains("params") ? ev["params"] : ev;
  if (method == "Fetch.requestPaused") {
    on_request_paused(params);
  } else if (method == "Target.attachedToTarget") {
    on_attached(params);
  } else if (method == "Page.frameStartedLoading"
             || method == "Page.frameRequestedNavigation") {
    // Any frame counts: an action's settle waits for the load event.
    if (!session.empty())
      loading_.insert(session);
  } else if (method == "Page.lifecycleEvent") {
    if (params.value("name", std::string{}) == "load")
      loaded_.insert(params.value("loaderId", std::string{}));
  } else if (method == "Page.loadEventFired") {
    loading_.erase(session);
    ++loads_[session];
  } else if (method == "Page.frameStoppedLoading") {
    loading_.erase(session);
  }
}

void browser_engine::on_request_paused(const json& params) {
  auto id = params.value("requestId", std::string{});
  std::string url;
  if (params.contains("request") && params["request"].is_object())
    url = params["request"].value("url", std::string{});
  auto why = check_subrequest(url, policy_);
  if (why.empty()) {
    cdp_.send("Fetch.continueRequest", {{"requestId", id}});
    return;
  }
  ++blocked_count_;
  auto shown = url.size() > 200 ? url.substr(0, 200) + "…" : url;
  last_blocked_ = "the browser refused " + shown + ": " + why;
  cdp_.send("Fetch.failRequest",
            {{"requestId", id}, {"errorReason", "BlockedByClient"}});
}

void browser_engine::on_attached(const json& params) {
  auto sid = params.value("sessionId", std::string{});
  if (sid.empty() || !params.contains("targetInfo"))
    return;
  auto type = params["targetInfo"].value("type", std::string{});
  // Commands on one session run in order: the sockets are gone before the
  // target runs anything. Answers are not waited for.
  if (type == "page" || type == "iframe") {
    cdp_.send("Page.addScriptToEvaluateOnNewDocument",
              {{"source", no_unguarded_sockets}, {"runImmediately", true}},
              sid);
    // Its workers and frames are held the same way.
    cdp_.send("Target.setAutoAttach", {{"autoAttach", true},
                                       {"waitForDebuggerOnStart", true},
                                       {"flatten", true}},
              sid);
  } else if (type == "worker" || type == "shared_worker"
             || type == "service_worker") {
    cdp_.send("Runtime.evaluate", {{"expression", no_unguarded_sockets}},
              sid);
  }
  if (params.value("waitingForDebugger", false))
    cdp_.send("Runtime.runIfWaitingForDebugger", json::object(), sid);
}

browser_session& browser_engine::session_for(const std::string& key) {
  auto it = sessions_.find(key);
  if (it != sessions_.end())
    return it->second;
  auto ctx = cdp_.call("Target.createBrowserContext",
                       {{"disposeOnDetach", true}});
  browser_session s;
  s.context_id = ctx.value("browserContextId", std::string{});
  // Downloads land in <workspace>/downloads and nowhere else.
  std::error_code ec;
  auto downloads = std::filesystem::path{workspace_} / "downloads";
  std::filesystem::create_directories(downloads, ec);
  cdp_.call("Browser.setDownloadBehavior",
            {{"behavior", "allow"},
             {"browserContextId", s.context_id},
             {"downloadPath", downloads.string()}});
  return sessions_.emplace(key, std::move(s)).first->second;
}

void browser_engine::prepare_tab(browser_tab& tab) {
  cdp_.call("Page.enable", json::object(), tab.session_id);
  cdp_.call("Page.setLifecycleEventsEnabled", {{"enabled", true}},
            tab.session_id);
  cdp_.call("Page.addScriptToEvaluateOnNewDocument",
            {{"source", no_unguarded_sockets}, {"runImmediately", true}},
            tab.session_id);
  cdp_.call("Runtime.evaluate", {{"expression", no_unguarded_sockets}},
            tab.session_id);
}

browser_tab& browser_engine::new_tab(browser_session& s) {
  if (static_cast<int>(s.tabs.size()) >= cfg_.max_tabs)
    throw std::runtime_error(std::to_string(s.tabs.size())
                             + " tabs are open (tools.browser.maxTabs); "
                               "close one with close_tab first");
  auto created = cdp_.call("Target.createTarget",
                           {{"url", "about:blank"},
                            {"browserContextId", s.context_id}});
  browser_tab tab;
  tab.target_id = created.value("targetId", std::string{});
  auto attached = cdp_.call("Target.attachToTarget",
                            {{"targetId", tab.target_id}, {"flatten", true}});
  tab.session_id = attached.value("sessionId", std::string{});
  prepare_tab(tab);
  s.tabs.push_back(std::move(tab));
  s.current = s.tabs.size() - 1;
  return s.tabs.back();
}

browser_tab& browser_engine::current_tab(browser_session& s) {
  if (s.tabs.empty())
    return new_tab(s);
  if (s.current >= s.tabs.size())
    s.current = s.tabs.size() - 1;
  return s.tabs[s.current];
}

void browser_engine::close_tab(browser_session& s, size_t index) {
  if (index >= s.tabs.size())
    return;
  cdp_.call("Target.closeTarget", {{"targetId", s.tabs[index].target_id}});
  loading_.erase(s.tabs[index].session_id);
  loads_.erase(s.tabs[index].session_id);
  s.tabs.erase(s.tabs.begin() + static_cast<long>(index));
  if (s.current >= s.tabs.size() && !s.tabs.empty())
    s.current = s.tabs.size() - 1;
}

void browser_engine::sync_tabs(browser_session& s) {
  auto targets = cdp_.call("Target.getTargets");
  std::set<std::string> live;
  for (auto& t : targets.value("targetInfos", json::array())) {
    if (t.value("type", std::string{}) != "page"
        || t.value("browserContextId", std::string{}) != s.context_id)
      continue;
    auto id = t.value("targetId", std::string{});
    live.insert(id);
    bool known = false;
    for (auto& tab : s.tabs)
      known = known || tab.target_id == id;
    if (known || static_cast<int>(s.tabs.size()) >= cfg_.max_tabs)
      continue;
    // A tab the page opened: adopt it and make it current, as a user
    // would see it come to the front.
    browser_tab tab;
    tab.target_id = id;
    auto attached = cdp_.call("Target.attachToTarget",
                              {{"targetId", id}, {"flatten", true}});
    tab.session_id = attached.value("sessionId", std::string{});
    prepare_tab(tab);
    s.tabs.push_back(std::move(tab));
    s.current = s.tabs.size() - 1;
  }
  for (size_t i = s.tabs.size(); i-- > 0;)
    if (!live.count(s.tabs[i].target_id))
      s.tabs.erase(s.tabs.begin() + static_cast<long>(i));
  if (s.current >= s.tabs.size())
    s.current = s.tabs.empty() ? 0 : s.tabs.size() - 1;
}

void browser_engine::navigate(browser_tab& tab, const std::string& url) {
  if (auto why = check_navigation(url, policy_); !why.empty())
    throw std::runtime_error("refused to open " + url + ": " + why);
  forget_blocked();
  loaded_.clear();
  auto r = cdp_.call("Page.navigate", {{"url", url}}, tab.session_id,
                     nav_timeout());
  auto error = r.value("errorText", std::string{});
  if (!error.empty()) {
    std::string text = "could not load " + url + ": " + error;
    if (!last_blocked_.empty())
      text += " (" + last_blocked_ + ")";
    throw std::runtime_error(text);
  }
  if (r.value("isDownload", false))
    return;
  tab.refs.clear();
  auto loader = r.value("loaderId", std::string{});
  if (loader.empty())
    return; // same-document navigation (#fragment): nothing loads
  // A page that never finishes loading is still usable; the model sees it
  // in the snapshot.
  cdp_.pump_until(cdp_connection::clock::now() + nav_timeout(),
                  [&] { return loaded_.count(loader) > 0; });
  loading_.erase(tab.session_id);
}

void browser_engine::settle(browser_tab& tab,
                            std::chrono::milliseconds settle) {
  auto before = loads_[tab.session_id];
  cdp_.pump_until(cdp_connection::clock::now() + settle, [&] {
    return loading_.count(tab.session_id) > 0
           || loads_[tab.session_id] > before;
  });
  if (loading_.count(tab.session_id)) {
    tab.refs.clear();
    cdp_.pump_until(cdp_connection::clock::now() + nav_timeout(), [&] {
      return !loading_.count(tab.session_id);
    });
  }
}

browser_outcome browser_engine::run(const std::string& session_key,
                                    const json& args,
                                    const cancel_fn& cancel) {
  auto action = args.value("action", std::string{});
  cdp_.on_cancel(cancel);
  struct reset {
    cdp_connection& c;
    ~reset() {
      c.on_cancel({});
    }
  } r{cdp_};
  try {
    if (running_ && !process_.alive())
      stop(); // died between calls: start afresh below
    if (!running_)
      start();
    auto& s = session_for(session_key);
    sync_tabs(s);
    return run_action(*this, s, args);
  } catch (const cdp_error& e) {
    switch (e.kind) {
      case cdp_failure::crashed: {
        process_.alive(); // reap, for the exit reason
        auto how = process_.exit_reason();
        stop();
        return {"Error: Chromium stopped during `" + action + "`"
                  + (how.empty() ? "" : " (" + how + ")")
                  + "; this call did not complete. The browser starts again "
                    "on the next call, without this session's pages and "
                    "cookies.",
                true};
      }
      case cdp_failure::cancelled:
        return {"Error: the browser action `" + action
                  + "` was stopped (/stop).",
                true};
      case cdp_failure::timeout:
        return {"Error: the browser did not answer in time during `" + action
                  + "`: " + e.what(),
                true};
      case cdp_failure::protocol:
        return {"Error: browser `" + action + "` failed: " + e.what(), true};
    }
  } catch (const std::exception& e) {
    return {std::string{"Error: "} + e.what(), true};
  }
  return {"Error: unknown browser failure", true};
}

} // namespace nb
