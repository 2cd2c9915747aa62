// `nanobot plugins list|enable|disable` over Agent Plugins laid out as the
// original packages them, with the real executable: the enabled marker
// where and as the original writes it (its fingerprint, computed by the
// original's algorithm for this package: the constant below), a changed
// package falls back to disabled, the older marker form is upgraded; then
// `agent -m` with a plugin enabled: its skill is in the prompt and its stdio
// MCP server (a real child process) answers a call; disabled, neither;
// --agent lists and switches the plugins of an agents.list agent's own
// workspace.
#include <doctest/doctest.h>

#include <filesystem>

#include <sys/stat.h>

#include <openssl/sha.h>

#include "nb_test_paths.hpp"
#include "tests/cli/cli_home.hpp"
#include "tests/support/fake_llm.hpp"

using namespace nb::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The "notes" package below, hashed by the original's
// _package_fingerprint (Python 3.11).
constexpr const char* notes_fingerprint =
  "b73dcdc9a640e649198ffc4ebed14e1909c9d84fe04be333bc9c1384fbeada1d";

void put(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path{path}.parent_path());
  write_all(path, text);
}

void notes_plugin(const std::string& ws) {
  auto root = ws + "/plugins/notes";
  put(
    root + "/plugin.json",
    R"({"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "notes", "description": "Note-taking helpers"})");
  put(root + "/skills/notes-skill/SKILL.md",
      "---\nname: notes-skill\ndescription: Keeps notes tidy.\n---\n\n"
      "Write notes in notes/.\n");
  put(root + "/skills/Bad/SKILL.md",
      "---\nname: Bad\ndescription: invalid name\n---\n");
}

// A plugin with a stdio MCP server: a script in the package that runs the
// scripted server.
void desk_plugin(const std::string& ws) {
  auto root = ws + "/plugins/desk";
  put(
    root + "/plugin.json",
    R"({"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "desk"})");
  put(root + "/bin/server", "#!/bin/sh\nexec " NB_BINARY_DIR
                            "/tests/support/fake_mcp_stdio \"$@\"\n");
  ::chmod((root + "/bin/server").c_str(), 0755);
  put(root + "/mcp.json",
      R"({"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
    "mcpServers": {"desk": {"type": "stdio", "command": "./bin/server",
                            "cwd": "${PLUGIN_DATA}/run"},
                   "web": {"type": "streamable-http", "url": "http://example.com/mcp"}}})");
  // Not a plugin: the wrong schema.
  put(ws + "/plugins/stray/plugin.json", R"({"name": "stray"})");
}

std::string marker_of(const std::string& workspace, const std::string& config,
                      const std::string& name) {
  auto ws = fs::canonical(workspace).string();
  unsigned char d[SHA256_DIGEST_LENGTH];
  ::SHA256(reinterpret_cast<const unsigned char*>(ws.data()), ws.size(), d);
  static const char* hex = "0123456789abcdef";
  std::string key;
  for (int i = 0; i < 6; ++i) {
    key.push_back(hex[d[i] >> 4]);
    key.push_back(hex[d[i] & 0xF]);
  }
  auto dir = fs::canonical(fs::path{config}.parent_path()).string();
  return dir + "/plugin-data/" + key + "/" + name + "/enabled";
}

std::string marker_of(const cli_home& h, const std::string& name) {
  return marker_of(h.workspace, h.config, name);
}

} // namespace

TEST_CASE("plugins list enable and disable keep the original's marker") {
  cli_home h;
  auto r = h.nanobot({"plugins", "list"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "No Agent Plugins in "));
  notes_plugin(h.workspace);
  desk_plugin(h.workspace);
  r = h.nanobot({"plugins", "list"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(has(r.out, "  notes  disabled\n    Note-taking helpers\n"
                   "    skills: notes-skill\n    MCP servers: -\n"));
  CHECK(has(r.out, "  desk  disabled\n    skills: -\n    MCP servers: desk\n"));
  CHECK_FALSE(has(r.out, "stray"));

  r = h.nanobot({"plugins", "enable", "notes"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(has(r.out, "Enabled Agent Plugin 'notes'"));
  auto marker = marker_of(h, "notes");
  REQUIRE(fs::exists(marker));
  auto root = fs::canonical(h.workspace + "/plugins/notes").string();
  CHECK(read_all(marker)
        == json{{"fingerprint", notes_fingerprint}, {"root", root}}.dump());
  struct stat st {};
  REQUIRE(::stat(marker.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(has(h.nanobot({"plugins", "list"}).out, "  notes  enabled\n"));

  // A changed package is no longer the one the user enabled.
  write_all(root + "/skills/notes-skill/SKILL.md",
            "---\nname: notes-skill\ndescription: Changed.\n---\n");
  CHECK(has(h.nanobot({"plugins", "list"}).out, "  notes  disabled\n"));
  CHECK_FALSE(fs::exists(marker));
  // The older marker (the package root alone) is upgraded.
  write_all(marker, root);
  CHECK(has(h.nanobot({"plugins", "list"}).out, "  notes  enabled\n"));
  CHECK(has(read_all(marker), "\"fingerprint\":\""));

  r = h.nanobot({"plugins", "disable", "notes"});
  CHECK(r.code == 0);
  CHECK_FALSE(fs::exists(marker));
  r = h.nanobot({"plugins", "enable", "nope"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "unknown Agent Plugin 'nope'"));
  r = h.nanobot({"plugins", "enabel", "notes"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "did you mean 'enable'?"));
  r = h.nanobot({"plugins", "enable"});
  CHECK(r.code == 2);
}

TEST_CASE("an enabled plugin's skill and stdio MCP server reach the agent") {
  fake_llm llm;
  cli_home h{{{"providers", {{"custom", {{"apiBase", llm.base_url()}}}}}}};
  notes_plugin(h.workspace);
  desk_plugin(h.workspace);
  auto tool_names = [](const json& body) {
    std::string names;
    for (auto& t : body.value("tools", json::array()))
      names += t["function"]["name"].get<std::string>() + " ";
    return names;
  };
  // Installed but not enabled: inert.
  llm.push(text("nothing here"));
  auto r = h.nanobot({"agent", "-m", "hi", "--no-stream"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  auto body = llm.requests().back().body;
  CHECK_FALSE(
    has(body["messages"][0]["content"].get<std::string>(), "notes-skill"));
  CHECK_FALSE(has(tool_names(body), "mcp_desk_echo"));

  REQUIRE(h.nanobot({"plugins", "enable", "notes"}).code == 0);
  REQUIRE(h.nanobot({"plugins", "enable", "desk"}).code == 0);
  llm.push(tool_calls({call("m1", "mcp_desk_echo", json{{"text", "ping"}})}));
  llm.push(text("done"));
  r = h.nanobot({"agent", "-m", "use the desk", "--no-stream"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  auto reqs = llm.requests();
  REQUIRE(reqs.size() == 3);
  auto prompt = reqs[1].body["messages"][0]["content"].get<std::string>();
  CHECK(has(prompt, "notes-skill"));
  CHECK(has(prompt, "plugins/notes/skills/notes-skill/SKILL.md"));
  CHECK(has(tool_names(reqs[1].body), "mcp_desk_echo"));
  auto result = reqs[2].body["messages"].back();
  CHECK(result["role"] == "tool");
  auto root = fs::canonical(h.workspace + "/plugins/desk").string();
  auto data = fs::path{marker_of(h, "desk")}.parent_path().string();
  CHECK(
    has(result["content"].get<std::string>(),
        "echo: ping root=" + root + " data=" + data + " cwd=" + data + "/run"));
}

TEST_CASE("plugins --agent acts on that agent's own workspace") {
  scratch_dir elsewhere;
  auto writer_ws = elsewhere.at("writer-ws");
  cli_home multi{{{"agents",
                   {{"list",
                     {{{"id", "writer"}, {"workspace", writer_ws}}}}}}}};
  notes_plugin(writer_ws);
  auto r = multi.nanobot({"plugins", "list", "--agent", "writer"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(has(r.out, "Agent Plugins in " + writer_ws + "/plugins:\n"));
  CHECK(has(r.out, "  notes  disabled\n"));
  // main's workspace has none.
  CHECK(has(multi.nanobot({"plugins", "list"}).out, "No Agent Plugins in "));

  r = multi.nanobot({"plugins", "enable", "notes", "-a", "writer"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(has(multi.nanobot({"plugins", "list", "-a", "writer"}).out,
            "  notes  enabled\n"));
  // The marker is keyed by the writer's workspace, as the gateway reads it
  // for that agent's sessions.
  auto marker = marker_of(writer_ws, multi.config, "notes");
  CHECK(fs::exists(marker));
  r = multi.nanobot({"plugins", "disable", "notes", "--agent", "writer"});
  CHECK(r.code == 0);
  CHECK_FALSE(fs::exists(marker));

  r = multi.nanobot({"plugins", "list", "--agent", "writr"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "unknown agent 'writr'; did you mean 'writer'?"));
  r = multi.nanobot({"plugins", "list", "--agent", "writer", "-w", writer_ws});
  CHECK(r.code == 2);
  CHECK(has(r.err, "give --agent or --workspace, not both"));
}
