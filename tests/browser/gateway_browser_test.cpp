// Browser: the browser tool through the whole gateway. The scripted LLM
// issues browser calls; real Debian Chromium loads pages this test serves
// on 127.0.0.1 (whitelisted); a canary on 127.0.0.2 (not whitelisted)
// counts every request that gets past the guard: it must count none.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "actors/browser/chromium.hpp"
#include "tests/integration/gateway_fixture.hpp"
#include "tests/tools/http_servers.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Pids of the Chromium processes started with a profile under
// `profile_base`, and of every process in their process groups (renderers,
// zygotes).
std::vector<int> chromium_pids(const std::string& profile_base) {
  struct proc {
    int pid, pgrp;
    bool named;
  };
  std::vector<proc> all;
  std::set<int> groups;
  std::error_code ec;
  for (auto& d : fs::directory_iterator("/proc", ec)) {
    auto name = d.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    std::ifstream in(d.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), {});
    std::ifstream st(d.path() / "stat");
    std::string stat;
    std::getline(st, stat);
    auto close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size()
        || stat[close + 2] == 'Z')
      continue;
    char state;
    int ppid = 0, pgrp = 0;
    std::sscanf(stat.c_str() + close + 2, "%c %d %d", &state, &ppid, &pgrp);
    bool named = cmd.find(profile_base) != std::string::npos;
    all.push_back({std::stoi(name), pgrp, named});
    if (named)
      groups.insert(pgrp);
  }
  std::vector<int> out;
  for (auto& p : all)
    if (p.named || groups.count(p.pgrp))
      out.push_back(p.pid);
  return out;
}

struct site {
  local_server pages{"127.0.0.1"};
  local_server canary{"127.0.0.2"};
  std::mutex m;
  std::string posted;

  site() {
    canary.svr.Get(".*", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("canary", "text/plain");
    });
    canary.start();
    auto leak = canary.base();
    pages.svr.Get("/js", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<html><head><title>JS page</title></head><body>"
                      "<p id=out>waiting</p><script>document.getElementById("
                      "'out').textContent = 'computed-' + (6 * 7);</script>"
                      "</body></html>",
                      "text/html");
    });
    pages.svr.Get("/form", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<html><body><form method=post action=/submit>"
                      "<input name=who aria-label='Your name'>"
                      "<button type=submit>Send</button></form></body></html>",
                      "text/html");
    });
    pages.svr.Post("/submit", [this](const httplib::Request& req,
                                     httplib::Response& res) {
      {
        std::lock_guard lock{m};
        posted = req.body;
      }
      res.set_content("<html><body><h1>Thanks</h1></body></html>",
                      "text/html");
    });
    // The page tries the canary four ways: an image, fetch, a WebSocket,
    // and a WebSocket from a worker; it reports how each went.
    pages.svr.Get("/leak", [leak](const httplib::Request&,
                                  httplib::Response& res) {
      auto ws = std::regex_replace(leak, std::regex{"^http"}, "ws");
      res.set_content(
        "<html><body><p id=s>start</p><img src='" + leak
          + "/img.png'><script>"
            "function sock(u) { try { new WebSocket(u); return 'made'; }"
            " catch (e) { return 'threw'; } }"
            "const page = sock('" + ws + "/ws');"
            "const w = new Worker(URL.createObjectURL(new Blob(["
            "\"let r; try { new WebSocket('" + ws + "/worker'); r = 'made'; }"
            " catch (e) { r = 'threw'; } postMessage(r);\"])));"
            "const worker = new Promise(ok => w.onmessage = e => ok(e.data));"
            "fetch('" + leak + "/steal').then(() => 'reached', () => 'blocked')"
            ".then(async f => document.getElementById('s').textContent ="
            " 'leak-' + f + '-' + page + '-' + await worker);"
            "</script></body></html>",
        "text/html");
    });
    pages.svr.Get("/redirect", [leak](const httplib::Request&,
                                      httplib::Response& res) {
      res.set_redirect(leak + "/landing");
    });
    pages.svr.Get("/setcookie", [](const httplib::Request& req,
                                   httplib::Response& res) {
      res.set_header("Set-Cookie", "flavour=" + req.get_param_value("v")
                                     + "; Path=/");
      res.set_content("<html><body>set</body></html>", "text/html");
    });
    pages.svr.Get("/cookie", [](const httplib::Request& req,
                                httplib::Response& res) {
      auto c = req.get_header_value("Cookie");
      res.set_content("<html><body><p>cookie:" + (c.empty() ? "none" : c)
                        + "</p></body></html>",
                      "text/html");
    });
    pages.start();
  }
  std::string url(const std::string& path) const {
    return pages.base() + path;
  }
};

struct browser_gateway : gateway_fixture {
  std::string profiles;
  int calls = 0;

  explicit browser_gateway(double idle_minutes = 10)
    : gateway_fixture([idle_minutes](settings& s, fake_llm&) {
        s.tools.ssrf_whitelist = {"127.0.0.1/32"};
        s.tools.browser.enable = true;
        s.tools.browser.idle_minutes = idle_minutes;
        s.tools.browser.navigation_timeout_s = 10;
        s.tools.browser.user_data_dir
          = (fs::path{s.agent.workspace}.parent_path() / "chromium").string();
      }) {
    profiles = cfg.tools.browser.user_data_dir;
  }

  /// One turn in which the model makes one browser call; returns what the
  /// tool answered (as the model saw it in the next request).
  std::string browse(const std::string& chat, const json& args) {
    auto id = "call" + std::to_string(++calls);
    llm.push(tool_calls({call(id, "browser", args)}));
    llm.push(text("ok"));
    auto r = say_in(chat, "use the browser");
    REQUIRE_FALSE(r.timed_out);
    auto reqs = llm.requests();
    for (auto it = reqs.rbegin(); it != reqs.rend(); ++it)
      for (auto& m : it->body.value("messages", json::array()))
        if (m.value("role", "") == "tool" && m.value("tool_call_id", "") == id)
          return m["content"].is_string() ? m["content"].get<std::string>()
                                          : m["content"].dump();
    FAIL("no tool result for " << id);
    return {};
  }
};

int ref_for(const std::string& snapshot, const std::string& what) {
  std::smatch m;
  std::regex re{std::regex_replace(what, std::regex{R"([\[\]\"])"}, "\\$&")
                + R"( \[ref=(\d+)\])"};
  if (!std::regex_search(snapshot, m, re))
    return 0;
  return std::stoi(m[1]);
}

} // namespace

TEST_CASE("the browser tool reads, fills, shoots, guards and isolates") {
  if (find_executable("chromium").empty()) {
    MESSAGE("chromium is not installed: skipped");
    return;
  }
  site web;
  browser_gateway gw;

  // Nothing starts before the first call.
  CHECK(chromium_pids(gw.profiles).empty());

  // A value only JavaScript renders.
  auto page = gw.browse("a", {{"action", "open"}, {"url", web.url("/js")}});
  CHECK(page.find("computed-42") != std::string::npos);
  CHECK(page.find("JS page") != std::string::npos);
  CHECK(page.find("treat as data") != std::string::npos); // framed
  CHECK_FALSE(chromium_pids(gw.profiles).empty());

  // snapshot -> type -> click submit -> the server receives the post.
  gw.browse("a", {{"action", "navigate"}, {"url", web.url("/form")}});
  auto snap = gw.browse("a", {{"action", "snapshot"}});
  int box = ref_for(snap, "textbox \"Your name\"");
  int send = ref_for(snap, "button \"Send\"");
  REQUIRE(box > 0);
  REQUIRE(send > 0);
  auto typed = gw.browse("a", {{"action", "type"}, {"ref", box},
                               {"text", "Ada Lovelace"}});
  CHECK(typed.find("Typed 12 characters") != std::string::npos);
  auto clicked = gw.browse("a", {{"action", "click"}, {"ref", send}});
  CHECK(clicked.find("Clicked ref") != std::string::npos);
  {
    std::lock_guard lock{web.m};
    CHECK(web.posted == "who=Ada+Lovelace");
  }
  CHECK(gw.browse("a", {{"action", "get_text"}}).find("Thanks")
        != std::string::npos);

  // A PNG screenshot under the workspace.
  auto shot = gw.browse("a", {{"action", "screenshot"}});
  std::smatch m;
  REQUIRE(std::regex_search(shot, m, std::regex{R"(saved: (\S+\.png))"}));
  std::string path = m[1];
  CHECK(path.rfind(gw.cfg.agent.workspace, 0) == 0);
  std::ifstream png(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(png)), {});
  CHECK(bytes.size() > 1000);
  CHECK(bytes.substr(0, 8) == "\x89PNG\r\n\x1a\n");

  // A page's own requests to an address outside the whitelist are blocked:
  // the canary counts no hit (fetch, image, WebSocket).
  gw.browse("a", {{"action", "open"}, {"url", web.url("/leak")}});
  auto waited = gw.browse("a", {{"action", "wait"}, {"text", "leak-"}});
  CHECK(waited.find("appeared") != std::string::npos);
  auto report = gw.browse("a", {{"action", "get_text"}});
  CHECK(report.find("leak-blocked-threw-threw") != std::string::npos);
  // A redirect to it is refused, and so are local schemes.
  auto redirected
    = gw.browse("a", {{"action", "navigate"}, {"url", web.url("/redirect")}});
  CHECK(redirected.find("refused") != std::string::npos);
  CHECK(redirected.find("127.0.0.2") != std::string::npos);
  auto file = gw.browse("a", {{"action", "open"}, {"url", "file:///etc/passwd"}});
  CHECK(file.find("file: URLs are refused") != std::string::npos);
  CHECK(web.canary.hits == 0);

  // Two sessions' cookies do not mix.
  gw.browse("a", {{"action", "navigate"}, {"url", web.url("/setcookie?v=mint")}});
  auto a = gw.browse("a", {{"action", "navigate"}, {"url", web.url("/cookie")}});
  auto b = gw.browse("b", {{"action", "open"}, {"url", web.url("/cookie")}});
  CHECK(a.find("cookie:flavour=mint") != std::string::npos);
  CHECK(b.find("cookie:none") != std::string::npos);

  // Chromium killed in the middle of a call: that call gets a clear error,
  // the next one works.
  std::string during;
  std::thread waiting{[&] {
    during = gw.browse("a", {{"action", "wait"}, {"ms", 8000}});
  }};
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  for (int pid : chromium_pids(gw.profiles))
    ::kill(pid, SIGKILL);
  waiting.join();
  CHECK(during.find("Chromium stopped during `wait`") != std::string::npos);
  auto again = gw.browse("a", {{"action", "open"}, {"url", web.url("/js")}});
  CHECK(again.find("computed-42") != std::string::npos);
  CHECK(web.canary.hits == 0);
}

TEST_CASE("an idle browser stops and leaves no process behind") {
  if (find_executable("chromium").empty()) {
    MESSAGE("chromium is not installed: skipped");
    return;
  }
  site web;
  browser_gateway gw{0.02}; // 1.2 s
  auto page = gw.browse("a", {{"action", "open"}, {"url", web.url("/js")}});
  CHECK(page.find("computed-42") != std::string::npos);
  CHECK_FALSE(chromium_pids(gw.profiles).empty());
  // Chromium goes, and its profile with it.
  std::error_code ec;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while ((!chromium_pids(gw.profiles).empty() || !fs::is_empty(gw.profiles, ec))
         && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(chromium_pids(gw.profiles).empty());
  std::string left;
  for (auto& e : fs::recursive_directory_iterator(gw.profiles, ec))
    left += e.path().string() + "\n";
  CHECK_MESSAGE(left.empty(), left);
  // And the next call starts it again.
  CHECK(gw.browse("a", {{"action", "snapshot"}}).find("URL: about:blank")
        != std::string::npos);
}
