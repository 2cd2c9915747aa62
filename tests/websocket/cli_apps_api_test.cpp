// The WebUI's CLI Apps settings on a real gateway: the catalog from a
// scripted registry server on 127.0.0.1, an install through /api/settings/
// cli-apps/install (a real child process: a script named uv on PATH), and
// the composer's installed-only list naming it alone, the running agent's
// run_cli_app then naming and running the new app
// without a restart (the tools fronts took the change), in a chat that had
// a turn before (its session keeps the tool list between turns, and the
// change reaches its next turn), and a message that mentions the app
// (@name) or attaches it (the WebUI's cli_apps) naming it in that turn's
// runtime context.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/stat.h>

#include <httplib.h>

#include "actors/store/session_files.hpp"
#include "tests/support/eventually.hpp"
#include "tests/websocket/cli_registry_rig.hpp"

using namespace nb;
using namespace nb::test;

namespace {

bool cli_api_has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string tool_description(const json& body, const std::string& name) {
  for (auto& t : body.value("tools", json::array()))
    if (t["function"]["name"] == name)
      return t["function"]["description"];
  return "";
}

} // namespace

TEST_CASE("the WebUI installs a CLI app and the running agent can run it") {
  cli_registry registry{"nb-api-drawit"};
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0,
                                "streaming": false})"}}};
  auto bin = gw.home.dir / "bin";
  std::filesystem::create_directories(bin);
  {
    std::ofstream uv{bin / "uv"};
    uv << "#!/bin/sh\nprintf '#!/bin/sh\\necho drawn \"$@\"\\n' > " << bin.string()
       << "/$3\nchmod 755 " << bin.string() << "/$3\n";
  }
  ::chmod((bin / "uv").c_str(), 0755);
  std::string old_path = std::getenv("PATH");
  ::setenv("PATH", (bin.string() + ":" + old_path).c_str(), 1);
  ::setenv("NANOBOT_CLI_APPS_REGISTRY", registry.base().c_str(), 1);
  // The app lives in a folder of the test's, outside the sandbox's view.
  write_cli_apps_config(gw, {{"restrictToWorkspace", false}});

  httplib::Client http{"127.0.0.1", gw.port("websocket")};
  http.set_read_timeout(60, 0);
  // A turn before the install: the chat's session now holds the tool list.
  gw.llm.push(text("nothing yet"));
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat = ready_chat(c);
  c.send_text(
    json{{"type", "message"}, {"chat_id", chat}, {"content", "hi"}}.dump());
  CHECK(final_message(c) == "nothing yet");
  auto before = gw.llm.requests();
  REQUIRE(before.size() == 1);
  CHECK(tool_description(before[0].body, "run_cli_app")
          .find("No Settings CLI Apps are currently installed.")
        != std::string::npos);
  // The first list starts the catalog's fetch; a later one has its rows.
  json list;
  CHECK(eventually([&] {
    auto listed = http.Get("/api/settings/cli-apps");
    if (!listed || listed->status != 200)
      return false;
    list = json::parse(listed->body);
    return list["apps"].size() == 1;
  }));
  REQUIRE(list["apps"].size() == 1);
  CHECK(list["apps"][0]["status"] == "not_installed");
  // The composer's list: installed apps only, never the cached catalog's.
  auto installed_only = [&] {
    return api_get(http, "/api/settings/cli-apps?installed_only=1");
  };
  auto none = installed_only();
  CHECK(none["apps"].empty());
  CHECK(none["installed_count"] == 0);
  CHECK_FALSE(none.contains("catalog_refresh_pending"));

  // A change comes from the WebUI's own page: its Origin.
  httplib::Headers page{
    {"Origin", "http://127.0.0.1:" + std::to_string(gw.port("websocket"))}};
  auto unknown = http.Post("/api/settings/cli-apps/install?name=nope", page,
                           "", "application/json");
  REQUIRE(unknown);
  CHECK(unknown->status == 404);
  CHECK(json::parse(unknown->body)["error"] == "CLI app 'nope' not found");

  auto installed = http.Post("/api/settings/cli-apps/install?name=drawit",
                             page, "", "application/json");
  REQUIRE(installed);
  CHECK(installed->status == 200);
  auto body = json::parse(installed->body);
  CHECK(body["last_action"]["message"] == "Installed CLI for Draw It.");
  CHECK(body["installed_count"] == 1);
  CHECK_FALSE(body.contains("applied")); // the tools fronts took it
  auto one = installed_only();
  REQUIRE(one["apps"].size() == 1);
  CHECK(one["apps"][0]["name"] == "drawit");
  CHECK(one["apps"][0]["display_name"] == "Draw It");
  CHECK(one["apps"][0]["installed"] == true);
  CHECK(one["installed_count"] == 1);

  // The same chat's next turn: run_cli_app names the app and runs it.
  gw.llm.push(
    tool_calls({call("c1", "run_cli_app",
                     {{"name", "drawit"}, {"args", json::array({"x"})}})}));
  gw.llm.push(text("drawn it"));
  c.send_text(
    json{{"type", "message"}, {"chat_id", chat}, {"content", "draw"}}.dump());
  CHECK(final_message(c) == "drawn it");
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 3);
  CHECK(tool_description(reqs[1].body, "run_cli_app")
          .find("Installed Settings CLI Apps: drawit.")
        != std::string::npos);
  CHECK(reqs[2].body.dump().find("CLI app 'drawit' exited 0.") != std::string::npos);

  // `@drawit` in the text names the installed app in the turn's runtime
  // context (an unknown @name does not); the WebUI's attached apps are
  // named even without one, and kept on the stored user line.
  gw.llm.push(text("mentioned"));
  c.send_text(json{{"type", "message"},
                   {"chat_id", chat},
                   {"content", "again with @DrawIt, not @nobody"}}
                .dump());
  CHECK(final_message(c) == "mentioned");
  gw.llm.push(text("attached"));
  c.send_text(json{{"type", "message"},
                   {"chat_id", chat},
                   {"content", "and this one"},
                   {"cli_apps",
                    {{{"name", "Gimp"}, {"entry_point", "gimp-cli"}},
                     {{"name", "../etc"}},
                     {{"name", "gimp"}}}}}
                .dump());
  CHECK(final_message(c) == "attached");
  gw.llm.push(text("plain"));
  c.send_text(
    json{{"type", "message"}, {"chat_id", chat}, {"content", "a@b.c"}}.dump());
  CHECK(final_message(c) == "plain");
  reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 6);
  auto user_text = [&](size_t i) {
    auto msgs = reqs[i].body["messages"];
    return msgs.back()["content"].get<std::string>();
  };
  CHECK(cli_api_has(user_text(3),
            "CLI App Mention: @drawit (installed; tool=run_cli_app; "
            "entry_point=nb-api-drawit; "
            "skill=plugins/cli-app-drawit/skills/cli-app-drawit/SKILL.md)."));
  CHECK_FALSE(cli_api_has(user_text(3), "@nobody ("));
  CHECK(cli_api_has(user_text(4),
            "CLI App Attachment: @gimp (installed; tool=run_cli_app; "
            "entry_point=gimp-cli; "
            "skill=plugins/cli-app-gimp/skills/cli-app-gimp/SKILL.md)."));
  CHECK_FALSE(cli_api_has(user_text(4), "@etc"));
  CHECK_FALSE(cli_api_has(user_text(4), "CLI App Mention"));
  // This turn's own line: no replay note besides its runtime context.
  CHECK_FALSE(cli_api_has(user_text(4), "[CLI App Attachment"));
  CHECK_FALSE(cli_api_has(user_text(5), "CLI App"));
  // The next turn replays the attaching message with its apps named after
  // its text, as the original's history does.
  bool replayed_with_apps = false;
  for (auto& m : reqs[5].body["messages"])
    if (m["role"] == "user" && m["content"].is_string()
        && m["content"].get<std::string>().starts_with("and this one"))
      replayed_with_apps =
        m["content"]
        == "and this one\n[CLI App Attachment: @gimp; tool=run_cli_app; "
           "entry_point=gimp-cli; skill=skills/cli-app-gimp/SKILL.md]";
  CHECK(replayed_with_apps);
  // Before the runtime block's end, which closes the user's message.
  CHECK(user_text(4).find("CLI App Attachment")
        < user_text(4).rfind("[/Runtime Context]"));
  auto dir = resolve_sessions_dir(gw.cfg);
  REQUIRE(dir);
  auto snap = load_session(*dir, "websocket:" + chat);
  REQUIRE(snap);
  json stored_apps;
  for (auto& line : snap->messages) {
    auto m = json::parse(line);
    if (m.value("content", json()) == "and this one")
      stored_apps = m["cli_apps"];
  }
  CHECK(stored_apps
        == json::parse(R"([{"name": "gimp", "entry_point": "gimp-cli"}])"));
  ::setenv("PATH", old_path.c_str(), 1);
  ::unsetenv("NANOBOT_CLI_APPS_REGISTRY");
}
