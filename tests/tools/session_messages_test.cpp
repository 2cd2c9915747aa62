// list_sessions against the original's contract, on a copy of the fixture
// home (session files the original wrote): @handles allocated in the
// original's order and stored in the files, kept across rewrites, found by
// read_session, and the schema as the original declares it.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "actors/store/session_files.hpp"
#include "actors/store/session_handles.hpp"
#include "nb_test_paths.hpp" // NB_SOURCE_DIR
#include "tests/support/scratch_dir.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* sessions_id = "5f0c2a9e7b4d41e8a3c6d9b2e1f07a34";

struct fixture_home {
  test::scratch_dir home;
  tool_context ctx;
  fixture_home() {
    fs::copy(std::string{NB_SOURCE_DIR}
               + "/tests/fixtures/nanobot-home/.nanobot",
             home.at(".nanobot"), fs::copy_options::recursive);
    ctx.config_dir = home.at(".nanobot");
    ctx.workspace = home.at(".nanobot/workspace");
    ctx.session_key = "cli:direct";
  }
  std::string dir() {
    return home.at(".nanobot/sessions/") + sessions_id;
  }
  /// The "metadata" object of a session file's first line.
  json metadata(const std::string& key) {
    std::ifstream in{dir() + "/" + session_file_name(key)};
    std::string line;
    std::getline(in, line);
    return json::parse(line)["metadata"];
  }
};

} // namespace

TEST_CASE("session handles follow the original's candidate sequence") {
  // The first five names the original allocates (computed with
  // nanobot/session/session_handles.py: _allocate_name on a growing set).
  std::set<std::string> used;
  std::vector<std::string> names;
  for (int i = 0; i < 5; ++i) {
    names.push_back(allocate_session_handle(used));
    used.insert(names.back());
  }
  CHECK(names
        == std::vector<std::string>{"kevu", "peti", "besa", "jeno", "nime"});
  CHECK(normalize_session_handle(" @MaLoNi ") == "maloni");
  CHECK_FALSE(normalize_session_handle("@abc"));
  CHECK_FALSE(normalize_session_handle("ab1cd"));
  CHECK_FALSE(normalize_session_handle("abcdefghijklmnopq"));
}

TEST_CASE("list_sessions names the other sessions and stores their handles") {
  fixture_home f;
  auto r = test::run(f.ctx, "list_sessions", json::object());
  REQUIRE_FALSE(r.is_error);
  // telegram:4242 is the older session: it gets the first name.
  CHECK(r.content == R"(["@kevu"])");
  CHECK(f.metadata("telegram:4242")["session_handle"] == "kevu");
  CHECK(f.metadata("cli:direct")["session_handle"] == "peti");
  // Nothing else in the files changed.
  CHECK(f.metadata("cli:direct")["_last_usage"]["total_tokens"] == 1904);
  auto snap = load_session(f.dir(), "telegram:4242");
  REQUIRE(snap);
  CHECK(snap->messages.size() == 4);
  // Stable: asked again, the same names.
  CHECK(test::run(f.ctx, "list_sessions", json::object()).content
        == R"(["@kevu"])");
  f.ctx.session_key = "telegram:4242";
  CHECK(test::run(f.ctx, "list_sessions", json::object()).content
        == R"(["@peti"])");
  // read_session finds a session by the stored handle.
  f.ctx.session_key = "cli:direct";
  auto read = test::run(f.ctx, "read_session", {{"session_key", "@KEVU"}});
  REQUIRE_FALSE(read.is_error);
  CHECK(json::parse(read.content)["handle"] == "@kevu");
  // Arguments it does not take are refused by name.
  auto bad = test::run(f.ctx, "list_sessions", {{"limit", 3}});
  CHECK(bad.is_error);
  CHECK(has(bad.content, "limit"));
}

TEST_CASE("a handle the original stored is kept and survives a rewrite") {
  fixture_home f;
  // As the original writes it: a bare name in the metadata object.
  replace_session(f.dir(), "telegram:4242", R"({"session_handle":"maloni"})",
                  {}, 4);
  CHECK(test::run(f.ctx, "list_sessions", json::object()).content
        == R"(["@maloni"])");
  CHECK(f.metadata("cli:direct")["session_handle"] == "kevu");
  // A session rewriting metadata it read before the handle existed does
  // not drop it.
  REQUIRE_FALSE(replace_session(f.dir(), "cli:direct", R"({"title":"x"})", {},
                                0));
  CHECK(f.metadata("cli:direct")["session_handle"] == "kevu");
  CHECK(f.metadata("cli:direct")["title"] == "x");
}

TEST_CASE("list_sessions declares the original's schema and flags") {
  auto reg = make_builtin_registry(settings{});
  auto* list = reg.find("list_sessions");
  REQUIRE(list);
  // nanobot/agent/tools/session_messages.py, through its schema helpers.
  CHECK(list->schema
        == json::parse(
          R"({"type":"object","properties":{},"additionalProperties":false})"));
  CHECK(list->spec.description == "List other persisted sessions by @handle.");
  // Neither read-only nor exclusive, as in the original.
  CHECK_FALSE(list->spec.read_only);
  CHECK_FALSE(list->spec.exclusive);
}
