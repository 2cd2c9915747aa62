// The system prompt: section order, template skipping, its cache, the
// runtime block and image attachments.
#include <doctest/doctest.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "actors/common/image_content.hpp"
#include "actors/session/prompt.hpp"
#include "actors/session/session.hpp"
#include "config/templates.hpp"

namespace fs = std::filesystem;

namespace {

struct temp_ws {
  temp_ws() {
    char tmpl[] = "/tmp/nb-prompt-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~temp_ws() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((fs::path{dir} / rel).parent_path());
    std::ofstream{dir + "/" + rel} << text;
  }
  std::string dir;
};

std::string shipped(const std::string& rel) {
  for (auto& t : nb::workspace_templates())
    if (t.path == rel)
      return t.content;
  return {};
}

nb::prompt_inputs inputs(const temp_ws& ws) {
  return {ws.dir, "telegram", "telegram:42", "", "", "/usr/bin:/bin"};
}

} // namespace

TEST_CASE("the system prompt follows edits of the bootstrap files") {
  temp_ws ws;
  nb::system_prompt_cache cache;
  auto first = cache.get(inputs(ws));
  CHECK(first.find(ws.dir) != std::string::npos);
  CHECK(first.find("## USER.md") == std::string::npos);
  ws.write("USER.md", "The user's name is Ada.\n");
  auto second = cache.get(inputs(ws));
  CHECK(second.find("The user's name is Ada.") != std::string::npos);
  CHECK(cache.get(inputs(ws)) == second);
  ws.write("USER.md", "The user's name is Grace, now.\n");
  CHECK(cache.get(inputs(ws)).find("Grace") != std::string::npos);
  // Empty files are left out of the prompt.
  ws.write("SOUL.md", "   \n");
  CHECK(cache.get(inputs(ws)).find("## SOUL.md") == std::string::npos);
}

TEST_CASE("bootstrap files identical to the shipped template are skipped") {
  temp_ws ws;
  REQUIRE_FALSE(shipped("SOUL.md").empty());
  ws.write("SOUL.md", shipped("SOUL.md"));
  ws.write("memory/MEMORY.md", shipped("memory/MEMORY.md"));
  auto p = nb::build_system_prompt(inputs(ws));
  CHECK(p.find("## SOUL.md") == std::string::npos);
  CHECK(p.find("# Memory") == std::string::npos);
  ws.write("SOUL.md", shipped("SOUL.md") + "\nAlways answer in rhymes.\n");
  ws.write("memory/MEMORY.md", "The user's cat is called Miso.\n");
  p = nb::build_system_prompt(inputs(ws));
  CHECK(p.find("## SOUL.md") != std::string::npos);
  CHECK(p.find("Always answer in rhymes.") != std::string::npos);
  CHECK(p.find("# Memory\n\n## Long-term Memory\n\nThe user's cat is called Miso.")
        != std::string::npos);
}

TEST_CASE("prompt sections come in the documented order") {
  temp_ws ws;
  ws.write("AGENTS.md", "Agent rules here.");
  ws.write("USER.md", "User facts here.");
  ws.write("TOOLS.md", "Tool notes here.");
  ws.write("IDENTITY.md", "Identity notes here.");
  ws.write("memory/MEMORY.md", "Memory facts here.");
  ws.write("skills/house-style/SKILL.md",
           "---\nname: house-style\ndescription: How we write\nalways: true\n"
           "---\nWrite plainly.\n");
  ws.write("skills/notes/SKILL.md",
           "---\nname: notes\ndescription: Keep notes tidy\n---\nBody\n");
  ws.write("memory/history.jsonl",
           R"({"cursor":0,"timestamp":"2026-01-02 10:00","content":"Talked about cats.","session_key":"telegram:42"})" "\n"
           R"({"cursor":1,"timestamp":"2026-01-02 11:00","content":"Other chat.","session_key":"telegram:7"})" "\n");
  auto in = inputs(ws);
  in.summary = "We planned a trip.";
  in.summary_at = "2026-01-03 09:00";
  auto p = nb::build_system_prompt(in);
  const char* order[] = {"# nanobot", "## Runtime", "## Workspace",
                         "## Format", "## AGENTS.md", "## USER.md",
                         "## TOOLS.md", "## IDENTITY.md",
                         "# Working with tools", "# Memory",
                         "# Active Skills", "### Skill: house-style",
                         "Write plainly.", "# Skills", "**notes** — Keep notes tidy",
                         "# Recent History", "- [2026-01-02 10:00] Talked about cats.",
                         "[Archived Context Summary]", "We planned a trip."};
  size_t at = 0;
  for (auto marker : order) {
    auto found = p.find(marker, at);
    CHECK_MESSAGE(found != std::string::npos, marker);
    if (found != std::string::npos)
      at = found;
  }
  CHECK(p.find("Other chat.") == std::string::npos);
  CHECK(p.find("\n\n---\n\n# Working with tools") != std::string::npos);
  CHECK(p.find("\n\n---\n\n# Recent History") != std::string::npos);
  // The always-on skill is in whole and not repeated in the summary.
  CHECK(p.find("**house-style**") == std::string::npos);
  // The chat app gets its format hint; the API gets none.
  in.channel = "api";
  CHECK(nb::build_system_prompt(in).find("## Format") == std::string::npos);
}

TEST_CASE("prompt assembly time") {
  temp_ws ws;
  ws.write("USER.md", std::string(4000, 'u'));
  ws.write("memory/MEMORY.md", std::string(8000, 'm'));
  for (int i = 0; i < 10; ++i)
    ws.write("skills/s" + std::to_string(i) + "/SKILL.md",
             "---\nname: s" + std::to_string(i) + "\ndescription: d\n---\nb\n");
  nb::system_prompt_cache cache;
  auto in = inputs(ws);
  auto t0 = std::chrono::steady_clock::now();
  auto built = nb::build_system_prompt(in);
  auto t1 = std::chrono::steady_clock::now();
  cache.get(in);
  auto t2 = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i)
    cache.get(in);
  auto t3 = std::chrono::steady_clock::now();
  using us = std::chrono::microseconds;
  std::cout << "[prompt] build " << std::chrono::duration_cast<us>(t1 - t0).count()
            << " us, cached get "
            << std::chrono::duration_cast<us>(t3 - t2).count() / 100
            << " us (" << built.size() << " chars)\n";
  CHECK(cache.get(in) == built);
}

TEST_CASE("the runtime block is metadata with a heading and an end") {
  auto b = nb::runtime_context("telegram", "42", "u7");
  CHECK(b.rfind("\n\n[Runtime Context — metadata only, not instructions]\n", 0) == 0);
  CHECK(b.find("Current Time: ") != std::string::npos);
  CHECK(b.find("UTC") != std::string::npos);
  CHECK(b.find("Channel: telegram\nChat ID: 42\nSender ID: u7") != std::string::npos);
  CHECK(b.find("[/Runtime Context]") == b.size() - 18);
}

TEST_CASE("the runtime block shows the time in the configured zone") {
  auto zone = nb::cron::time_zone::load("Asia/Kolkata");
  REQUIRE(zone);
  auto expected = [](std::time_t t) {
    t += 5 * 3600 + 30 * 60; // Kolkata has no DST
    std::tm tm{};
    gmtime_r(&t, &tm);
    char text[40];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M (%A)", &tm);
    return std::string{"Current Time: "} + text
           + " Asia/Kolkata, UTC+05:30\n";
  };
  auto before = std::time(nullptr);
  auto b = nb::runtime_context("cli", "direct", "", &*zone);
  auto after = std::time(nullptr);
  CAPTURE(b);
  CHECK((b.find(expected(before)) != std::string::npos
         || b.find(expected(after)) != std::string::npos));
  // A name the tzdata does not know leaves the host's zone in place.
  nb::settings cfg;
  cfg.agent.timezone = "Mars/Olympus_Mons";
  CHECK(nb::make_session_config(cfg).zone == nullptr);
  cfg.agent.timezone = "Europe/Berlin";
  auto berlin = nb::make_session_config(cfg).zone;
  REQUIRE(berlin);
  CHECK(berlin->name() == "Europe/Berlin");
}

TEST_CASE("attached images become data URL parts before the text") {
  temp_ws ws;
  std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(20, '\x01');
  ws.write("a.png", png);
  ws.write("notes.txt", "hello");
  auto c = nb::user_content("what is this?",
                            {ws.dir + "/a.png", ws.dir + "/notes.txt"});
  REQUIRE(c.is_array());
  REQUIRE(c.size() == 2);
  CHECK(c[0]["type"] == "image_url");
  CHECK(c[0]["image_url"]["url"].get<std::string>().rfind("data:image/png;base64,iVBORw0KGgo", 0) == 0);
  CHECK(c[1]["type"] == "text");
  CHECK(c[1]["text"] == "what is this?\n[attachment: " + ws.dir + "/notes.txt]");
  // Without images the content stays plain text.
  CHECK(nb::user_content("hi", {}) == "hi");
  CHECK(nb::sniff_image_mime("GIF89a....") == "image/gif");
  CHECK(nb::sniff_image_mime("plain") == "");
}
