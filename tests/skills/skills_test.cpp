// Skills: front matter, requirement checks, shadowing, the prompt parts and
// the built-in skills, on real files in a temp dir.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include "actors/skills/agent_plugins.hpp"
#include "actors/skills/front_matter.hpp"
#include "actors/skills/skills.hpp"

namespace fs = std::filesystem;

namespace {

struct temp_ws {
  temp_ws() {
    char tmpl[] = "/tmp/nb-skills-XXXXXX";
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

const nb::skill_info* find(const std::vector<nb::skill_info>& all,
                           const std::string& name) {
  for (auto& s : all)
    if (s.name == name)
      return &s;
  return nullptr;
}

} // namespace

TEST_CASE("front matter reads flat keys inline JSON and nested blocks") {
  auto a = nb::parse_front_matter(
    "---\r\nname: gh\r\ndescription: \"Use: gh\"\r\nalways: true\r\n"
    "metadata: {\"nanobot\": {\"requires\": {\"bins\": [\"gh\"]}}}\r\n---\r\n\r\nBody\r\n");
  CHECK(a.present);
  CHECK(a.fields["name"] == "gh");
  CHECK(a.fields["description"] == "Use: gh");
  CHECK(a.fields["always"] == true);
  CHECK(a.fields["metadata"]["nanobot"]["requires"]["bins"][0] == "gh");
  CHECK(a.body == "Body");
  auto b = nb::parse_front_matter(
    "---\nname: x\nmetadata:\n  nanobot:\n    requires:\n      bins:\n"
    "        - tmux\n      env:\n        - TOKEN\n---\ntext\n");
  CHECK(b.fields["metadata"]["nanobot"]["requires"]["bins"][0] == "tmux");
  CHECK(b.fields["metadata"]["nanobot"]["requires"]["env"][0] == "TOKEN");
  auto c = nb::parse_front_matter("no front matter");
  CHECK_FALSE(c.present);
  CHECK(c.body == "no front matter");
  auto d = nb::parse_front_matter("---\nname: x\n");
  CHECK(d.error.find("never closed") != std::string::npos);
}

TEST_CASE("requirements name the missing programs and variables") {
  temp_ws ws;
  auto bin = ws.dir + "/bin";
  fs::create_directories(bin);
  std::ofstream{bin + "/present-tool"} << "#!/bin/sh\n";
  ::chmod((bin + "/present-tool").c_str(), 0755);
  ws.write("skills/ok/SKILL.md",
           "---\ndescription: fine\nmetadata: {\"nanobot\":{\"requires\":"
           "{\"bins\":[\"present-tool\"],\"env\":[\"NB_SKILL_SET\"]}}}\n---\nx\n");
  ws.write("skills/lacking/SKILL.md",
           "---\ndescription: lacks\nmetadata: {\"nanobot\":{\"requires\":"
           "{\"bins\":[\"absent-tool\",\"present-tool\"],\"env\":[\"NB_SKILL_UNSET\"]}}}\n---\nx\n");
  ::setenv("NB_SKILL_SET", "1", 1);
  ::unsetenv("NB_SKILL_UNSET");
  auto all = nb::list_skills(ws.dir, bin);
  REQUIRE(find(all, "ok"));
  CHECK(find(all, "ok")->available);
  REQUIRE(find(all, "lacking"));
  CHECK_FALSE(find(all, "lacking")->available);
  CHECK(find(all, "lacking")->missing == "CLI: absent-tool, ENV: NB_SKILL_UNSET");
  auto summary = nb::skills_summary(all);
  CHECK(summary.find("**lacking** — lacks (unavailable: CLI: absent-tool, "
                     "ENV: NB_SKILL_UNSET)  `skills/lacking/SKILL.md`")
        != std::string::npos);
}

TEST_CASE("workspace skills shadow built-in ones") {
  temp_ws ws;
  auto builtin = nb::list_skills(ws.dir, "");
  for (auto name : {"memory", "cron", "skill-creator", "summarize", "github",
                    "weather", "tmux"}) {
    auto s = find(builtin, name);
    REQUIRE_MESSAGE(s, name);
    CHECK(s->source == "builtin");
    CHECK(s->description.size() > 20);
    CHECK(s->body.size() > 200);
  }
  CHECK_FALSE(find(builtin, "github")->available); // no gh on an empty PATH
  ws.write("skills/weather/SKILL.md",
           "---\nname: weather\ndescription: Our own forecast\n---\nmine\n");
  auto all = nb::list_skills(ws.dir, "");
  auto w = find(all, "weather");
  REQUIRE(w);
  CHECK(w->source == "workspace");
  CHECK(w->description == "Our own forecast");
  int count = 0;
  for (auto& s : all)
    count += s.name == "weather";
  CHECK(count == 1);
  // Built-ins are written where the summary points, once, and not when shadowed.
  nb::materialize_builtin_skills(ws.dir);
  CHECK(fs::exists(ws.dir + "/.nanobot/builtin-skills/github/SKILL.md"));
  CHECK_FALSE(fs::exists(ws.dir + "/.nanobot/builtin-skills/weather/SKILL.md"));
  CHECK(nb::skill_read_path(*find(all, "github"))
        == ".nanobot/builtin-skills/github/SKILL.md");
}

TEST_CASE("always-on skills go into the prompt whole and skip the summary") {
  temp_ws ws;
  ws.write("skills/style/SKILL.md",
           "---\nname: style\ndescription: d\nalways: true\n---\nBe brief.\n");
  ws.write("skills/gated/SKILL.md",
           "---\nname: gated\ndescription: g\nmetadata: {\"nanobot\":{\"always\":true,"
           "\"requires\":{\"bins\":[\"no-such-bin\"]}}}\n---\nSecret body.\n");
  auto all = nb::list_skills(ws.dir, "");
  auto active = nb::always_skills_section(all);
  CHECK(active.rfind("# Active Skills\n\n### Skill: style\n\nBe brief.", 0) == 0);
  CHECK(active.find("Secret body") == std::string::npos); // requirements unmet
  auto summary = nb::skills_summary(all);
  CHECK(summary.find("**style**") == std::string::npos);
  CHECK(summary.find("**gated**") != std::string::npos);
}

TEST_CASE("an enabled Agent Plugin's skills come between the workspace's "
          "and the built-ins and only while enabled") {
  temp_ws ws;
  temp_ws home; // the config dir
  auto manifest = [](const std::string& name) {
    return R"({"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": ")"
           + name + "\"}";
  };
  ws.write("plugins/kit/plugin.json", manifest("kit"));
  ws.write(
    "plugins/kit/skills/weather/SKILL.md",
    "---\nname: weather\ndescription: The plugin's forecast\n---\nkit\n");
  ws.write("plugins/kit/skills/planner/SKILL.md",
           "---\nname: planner\ndescription: Plans the day\n---\nplan\n");
  ws.write("plugins/kit/skills/no-desc/SKILL.md", "---\nname: no-desc\n---\n");
  ws.write("skills/planner/SKILL.md",
           "---\nname: planner\ndescription: Our own planner\n---\nmine\n");
  // Installed, not enabled: nothing from it.
  auto off = nb::list_skills(ws.dir, "", home.dir);
  CHECK(find(off, "weather")->source == "builtin");
  REQUIRE(nb::set_agent_plugin_enabled(ws.dir, home.dir, "kit", true).empty());
  auto on = nb::list_skills(ws.dir, "", home.dir);
  auto w = find(on, "weather");
  REQUIRE(w);
  CHECK(w->source == "plugin");
  CHECK(w->description == "The plugin's forecast");
  CHECK(nb::skill_read_path(*w) == "plugins/kit/skills/weather/SKILL.md");
  CHECK(find(on, "planner")->source == "workspace");
  CHECK_FALSE(find(on, "no-desc"));
  CHECK(nb::skill_file_text(ws.dir, "weather", home.dir)->find("kit\n")
        != std::string::npos);
  // Without the config dir nothing counts as enabled.
  CHECK(find(nb::list_skills(ws.dir, ""), "weather")->source == "builtin");
  CHECK(nb::set_agent_plugin_enabled(ws.dir, home.dir, "nope", true)
        == "unknown Agent Plugin 'nope'");
  REQUIRE(nb::set_agent_plugin_enabled(ws.dir, home.dir, "kit", false).empty());
  CHECK(find(nb::list_skills(ws.dir, "", home.dir), "weather")->source
        == "builtin");
}
