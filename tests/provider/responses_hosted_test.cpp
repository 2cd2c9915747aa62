// OpenAI's hosted web search in a streamed Response, decoded from the
// scripted server's real frames: its web_search_call item's start is a
// progress piece (tool "web_search", the original's arguments), never
// answer text, and the answer around it is unchanged.
#include <doctest/doctest.h>

#include "actors/provider/openai_wire.hpp"
#include "actors/provider/responses_wire.hpp"
#include "tests/support/fake_openai_responses.hpp"

using namespace nb;
using json = nlohmann::json;
namespace rs = nb::test::responses;

namespace {

/// The pieces a scripted stream decodes to, and its reply.
std::vector<stream_piece> hosted_pieces(const test::fake_response& r,
                                        model_reply& out) {
  std::vector<stream_piece> pieces;
  responses_stream s;
  sse_splitter split;
  for (auto& frame : r.events)
    split.feed(frame, [&](std::string_view data) {
      for (auto& p : s.apply(data))
        pieces.push_back(p);
    });
  REQUIRE(s.error().empty());
  s.finish(out);
  return pieces;
}

json added_search(json action) {
  return {{"type", "response.output_item.added"},
          {"output_index", 0},
          {"item",
           {{"type", "web_search_call"},
            {"id", "ws_1"},
            {"status", "in_progress"},
            {"action", std::move(action)}}}};
}

} // namespace

TEST_CASE("responses: a hosted web search's start is a progress piece") {
  model_reply out;
  auto pieces = hosted_pieces(
    rs::stream(json::array(
      {rs::web_search_call_item("ws_1", {"nanobot release"},
                                json::array({{{"url", "https://x.example/"},
                                              {"title", "X"}}})),
       rs::message_item("msg_1", "It is out.")})),
    out);
  REQUIRE_FALSE(pieces.empty());
  // Opened without its query, as the API does: the name alone, {}.
  CHECK(pieces[0].hosted_tool == "web_search");
  CHECK(pieces[0].text == "{}");
  CHECK_FALSE(pieces[0].reasoning);
  std::string answer;
  for (size_t i = 1; i < pieces.size(); ++i) {
    CHECK(pieces[i].hosted_tool.empty()); // the end shows nothing more
    answer += pieces[i].text;
  }
  CHECK(answer == "It is out.");
  CHECK(out.content == "It is out.");
  CHECK(out.tool_calls.empty()); // the provider ran it: nothing for us
  CHECK(out.finish_reason == "stop");
}

TEST_CASE("responses: the hosted search's arguments as the original maps "
          "them") {
  auto args = [](json action) {
    auto p = hosted_search_started(added_search(std::move(action)));
    REQUIRE(p);
    CHECK(p->hosted_tool == "web_search");
    return json::parse(p->text);
  };
  CHECK(args({{"type", "search"},
              {"queries", {" a ", "", 7, "b", "c", "d", "e"}}})
        == json{{"query", "a \u00b7 b \u00b7 c \u00b7 d"}});
  CHECK(args({{"type", "search"}, {"query", " weather "}})
        == json{{"query", "weather"}});
  CHECK(args({{"type", "find_in_page"}, {"pattern", "price"}})
        == json{{"query", "price"}});
  CHECK(args({{"type", "open_page"}, {"url", "https://x.example/"}})
        == json{{"query", "https://x.example/"}});
  // Cut at 1000 characters, not bytes.
  std::string longer;
  for (int i = 0; i < 1200; ++i)
    longer += "\u00e9";
  CHECK(args({{"query", longer}})["query"].get<std::string>().size() == 2000);
  // Not a search start: an item without an id, another item, another event.
  auto no_id = added_search({{"type", "search"}});
  no_id["item"].erase("id");
  CHECK_FALSE(hosted_search_started(no_id));
  no_id["item_id"] = "ws_9";
  CHECK(hosted_search_started(no_id));
  auto call = added_search({});
  call["item"]["type"] = "function_call";
  CHECK_FALSE(hosted_search_started(call));
  auto done = added_search({});
  done["type"] = "response.output_item.done";
  CHECK_FALSE(hosted_search_started(done));
}
