// Streamed answers in Feishu, as the original shows them: a CardKit card
// in streaming mode sent once, its streaming_md element set to the text so
// far, streaming mode off at the end; Feishu having closed streaming is
// recovered from; without a card the answer goes as a message at the end.
#include <doctest/doctest.h>

#include "actors/channels/feishu/feishu_channel.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_feishu.hpp"
#include "tests/platforms/log_ring.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct feishu_stream_probe : adapter_probe {
  log_ring log{"channel.feishu"};
  temp_dir dir;
  fake_feishu api;

  feishu_stream_probe() {
    adapter = feishu::make_channel(
      sys, channel_settings_for("feishu", api.adapter_config(), dir.path),
      "feishu", as_manager());
  }
  ~feishu_stream_probe() { stop(); }

  std::string piece(const std::string& text,
                    outbound_kind kind = outbound_kind::delta) {
    return deliver(reply("feishu", "oc_s1", text, kind, "seg1"));
  }
  /// The turn's final reply after its text streamed.
  std::string streamed_final(const std::string& text) {
    auto fin = reply("feishu", "oc_s1", text);
    fin.metadata_json = R"({"streamed":true})";
    return deliver(fin);
  }
};

} // namespace

TEST_CASE("feishu streams an answer into one CardKit card") {
  feishu_stream_probe t;
  REQUIRE(t.api.wait_connections(1, 10s));
  CHECK(t.piece("Hel") == "");
  CHECK(t.piece("lo **w") == "");
  CHECK(t.piece("orld**") == "");
  CHECK(t.piece("", outbound_kind::stream_end) == "");
  CHECK(t.streamed_final("Hello **world**") == "");

  auto cards = t.api.cards();
  REQUIRE(cards.size() == 1);
  const auto& card = cards[0];
  CHECK(card["card"]["schema"] == "2.0");
  CHECK(card["card"]["config"]["streaming_mode"] == true);
  CHECK(card["card"]["config"]["update_multi"] == true);
  CHECK(card["card"]["body"]["elements"][0]["tag"] == "markdown");
  CHECK(card["card"]["body"]["elements"][0]["element_id"] == "streaming_md");
  CHECK(card["text"] == "Hello **world**");
  CHECK(card["streaming"] == false); // closed at the end
  CHECK(card["refused"] == 0);
  CHECK(card["updates"] >= 2); // the first words, and the whole at the end

  // The card went to the chat once; the streamed final reply adds nothing.
  auto sent = t.api.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["body"]["receive_id"] == "oc_s1");
  CHECK(sent[0]["receive_id_type"] == "chat_id");
  CHECK(sent[0]["body"]["msg_type"] == "interactive");
  CHECK(json::parse(sent[0]["body"]["content"].get<std::string>())
        == json{{"type", "card"}, {"data", {{"card_id", card["card_id"]}}}});
}

TEST_CASE("feishu reopens a card's streaming that Feishu closed") {
  feishu_stream_probe t;
  REQUIRE(t.api.wait_connections(1, 10s));
  CHECK(t.piece("part one") == "");
  auto cards = t.api.cards();
  REQUIRE(cards.size() == 1);
  CHECK(cards[0]["text"] == "part one");
  t.api.close_streaming(cards[0]["card_id"]);
  CHECK(t.piece(" and two", outbound_kind::stream_end) == "");
  cards = t.api.cards();
  REQUIRE(cards.size() == 1);
  CHECK(cards[0]["refused"] == 1); // the update while closed
  CHECK(cards[0]["text"] == "part one and two");
  CHECK(cards[0]["streaming"] == false);
  CHECK(t.api.sent().size() == 1);
  CHECK(t.log.wait_line({"reopening streaming"}));
}

TEST_CASE("feishu sends a streamed answer as a message when no card can be "
          "made") {
  feishu_stream_probe t;
  REQUIRE(t.api.wait_connections(1, 10s));
  t.api.refuse_cards(true);
  CHECK(t.piece("   ") == ""); // blank so far: no card asked for yet
  CHECK(t.piece("plain ") == "");
  CHECK(t.piece("answer") == "");
  CHECK(t.api.sent().empty());
  CHECK(t.piece("", outbound_kind::stream_end) == "");
  CHECK(t.streamed_final("   plain answer") == "");
  CHECK(t.api.cards().empty());
  auto sent = t.api.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["body"]["msg_type"] == "text");
  CHECK(json::parse(sent[0]["body"]["content"].get<std::string>())["text"]
        == "   plain answer");
  CHECK(t.log.wait_line({"streaming card not created", "cardkit:card:write"}));
}

TEST_CASE("feishu sends a tool hint with no card open as a card of its own") {
  feishu_stream_probe t;
  REQUIRE(t.api.wait_connections(1, 10s));
  // A turn that begins with a tool call: no card yet, so the hint goes as
  // the original sends it, a markdown card with the 🔧 line.
  CHECK(t.piece(R"(read_file({"path":"a.txt"}))", outbound_kind::progress)
        == "");
  CHECK(t.piece("  ", outbound_kind::progress) == ""); // blank: nothing
  // A progress line that is no tool hint stays an ordinary message.
  auto status = reply("feishu", "oc_s1", "still working", outbound_kind::progress,
                      "seg1");
  status.metadata_json = R"({"_tool_hint":false})";
  CHECK(t.deliver(status) == "");
  auto sent = t.api.sent();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0]["body"]["msg_type"] == "interactive");
  auto card = json::parse(sent[0]["body"]["content"].get<std::string>());
  CHECK(card["elements"][0]["tag"] == "markdown");
  CHECK(card["elements"][0]["content"]
        == "\U0001F527 read_file({\"path\":\"a.txt\"})");
  CHECK(sent[1]["body"]["msg_type"] == "text");
  CHECK(t.api.cards().empty()); // no streaming card was made for it
}
