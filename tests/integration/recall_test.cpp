// Semantic memory through the real actor tree: the memory tools, the
// automatic recall after the user's text (the system prompt stays the same
// bytes from turn to turn), /memory and /status, against the scripted LLM
// and a scripted /v1/embeddings server.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/integration/gateway_fixture.hpp"
#include "tests/support/fake_embeddings.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

/// Writes the memory section into the fixture's config file and names the
/// embeddings provider in the settings.
void with_embeddings(settings& cfg, const std::string& base_url) {
  std::ofstream{cfg.config_path}
    << R"({"agents":{"defaults":{"memory":{"embeddings":)"
       R"({"provider":"emb","model":"fake-embed","batchSize":16}}}}})";
  cfg.providers["emb"].api_base = base_url;
}

/// The chat-completion requests whose last user message contains `text`.
std::vector<json> requests_with(const fake_llm& llm, const std::string& text) {
  std::vector<json> out;
  for (auto& r : llm.requests()) {
    if (!r.body.is_object() || !r.body.contains("messages"))
      continue;
    auto& last = r.body["messages"].back();
    if (last.value("role", "") == "user" && last["content"].is_string()
        && last["content"].get<std::string>().find(text) != std::string::npos)
      out.push_back(r.body);
  }
  return out;
}

std::string user_text(const json& body) {
  return body["messages"].back()["content"].get<std::string>();
}

} // namespace

TEST_CASE("a saved memory is recalled in another chat after the user's text") {
  fake_embeddings emb;
  emb.map("espresso", 3);
  emb.map("coffee", 3);
  gateway_fixture g([&](settings& cfg, fake_llm& llm) {
    with_embeddings(cfg, emb.base_url());
    llm.push(tool_calls({call("c1", "memory_save",
                              {{"text", "The user's favourite drink is a "
                                        "double espresso"},
                               {"category", "profile"}})}));
    llm.push(text("Noted."));
  });
  CHECK(g.say_in("a", "Remember that I love a double espresso").content
        == "Noted.");
  auto memory_md = read_all(g.cfg.workspace_path() + "/memory/MEMORY.md");
  CHECK(memory_md.find("- [profile] The user's favourite drink is a double "
                       "espresso")
        != std::string::npos);
  // The model was offered the memory tools.
  auto tools = g.llm.requests().front().body["tools"].dump();
  CHECK(tools.find("memory_search") != std::string::npos);
  CHECK(tools.find("memory_forget") != std::string::npos);

  g.say_in("b", "Which coffee should I order today?");
  g.say_in("b", "And what about tomorrow?");
  auto first = requests_with(g.llm, "Which coffee should I order today?");
  auto second = requests_with(g.llm, "And what about tomorrow?");
  REQUIRE(first.size() == 1);
  REQUIRE(second.size() == 1);
  auto text1 = user_text(first[0]);
  auto asked = text1.find("Which coffee should I order today?");
  auto block = text1.find("[Runtime Context");
  auto recalled = text1.find("Recalled memories");
  auto fact = text1.find("double espresso");
  CHECK(asked == 0);
  CHECK(block > asked);
  CHECK(recalled > block);
  CHECK(fact > recalled);
  CHECK(fact < text1.find("[/Runtime Context]"));
  // The cached prefix: the system prompt is the same bytes in both turns.
  CHECK(first[0]["messages"][0]["content"].get<std::string>()
        == second[0]["messages"][0]["content"].get<std::string>());
  // The first turn's message is replayed without its recall block.
  bool replayed = false;
  for (auto& m : second[0]["messages"])
    if (m.value("role", "") == "user" && m["content"].is_string()
        && m["content"].get<std::string>().rfind("Which coffee", 0) == 0) {
      replayed = true;
      CHECK(m["content"].get<std::string>().find("Recalled memories")
            == std::string::npos);
    }
  CHECK(replayed);

  auto found = g.say_in("b", "/memory espresso").content;
  CHECK(found.find("double espresso") != std::string::npos);
  CHECK(found.find("#") != std::string::npos);
  auto status = g.say_in("b", "/status").content;
  CHECK(status.find("Memory search: hybrid") != std::string::npos);
  auto stats = g.say_in("b", "/stats").content;
  CHECK(stats.find("chunks") != std::string::npos);
}

TEST_CASE("recall falls back to full text when the embeddings server is down") {
  auto emb = std::make_unique<fake_embeddings>();
  gateway_fixture g([&](settings& cfg, fake_llm&) {
    with_embeddings(cfg, emb->base_url());
    emb.reset(); // nobody answers there
    std::filesystem::create_directories(cfg.workspace_path() + "/memory");
    std::ofstream{cfg.workspace_path() + "/memory/MEMORY.md"}
      << "# Memory\n\n- Standup is at 9:30 on weekdays\n";
  });
  auto reply = g.say_in("c", "When is standup?");
  CHECK_FALSE(reply.is_error);
  auto sent = requests_with(g.llm, "When is standup?");
  REQUIRE(sent.size() == 1);
  CHECK(user_text(sent[0]).find("Standup is at 9:30") != std::string::npos);
  auto status = g.say_in("c", "/status").content;
  CHECK(status.find("Memory search: full-text") != std::string::npos);
}

TEST_CASE("an empty memory adds nothing to the turn") {
  gateway_fixture g;
  g.say_in("d", "hello there");
  auto sent = requests_with(g.llm, "hello there");
  REQUIRE(sent.size() == 1);
  CHECK(user_text(sent[0]).find("Recalled memories") == std::string::npos);
  CHECK(g.say_in("d", "/memory anything").content == "🗂 No memories match.");
}
