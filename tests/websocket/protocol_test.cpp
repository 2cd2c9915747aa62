// The WebSocket protocol without sockets: events out, frames in.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "actors/channels/websocket/ws_protocol.hpp"

using namespace nb;
using nlohmann::json;

namespace {

outbound_msg out(outbound_kind kind, std::string text,
                 std::string meta = "{}") {
  outbound_msg m;
  m.channel = "websocket";
  m.chat_id = "c1";
  m.kind = kind;
  m.content = std::move(text);
  m.stream_id = "t1";
  m.metadata_json = std::move(meta);
  return m;
}

} // namespace

TEST_CASE("outbound kinds become the protocol's events") {
  auto d = ws::events_for(out(outbound_kind::delta, "he"));
  REQUIRE(d.size() == 1);
  CHECK(json::parse(d[0]) == json{{"event", "delta"}, {"chat_id", "c1"},
                                  {"text", "he"}, {"stream_id", "t1"}});
  auto e = ws::events_for(out(outbound_kind::stream_end, ""));
  CHECK(json::parse(e[0])["event"] == "stream_end");
  auto hint = json::parse(ws::events_for(out(outbound_kind::progress, "exec"))[0]);
  CHECK(hint["event"] == "message");
  CHECK(hint["kind"] == "tool_hint");
  auto fin = ws::events_for(out(outbound_kind::final_reply, "done"));
  REQUIRE(fin.size() == 2);
  CHECK(json::parse(fin[0])["text"] == "done");
  CHECK(json::parse(fin[1])["event"] == "turn_end");
  // Streamed text is not sent twice: only the turn's end.
  auto streamed = ws::events_for(
    out(outbound_kind::final_reply, "done", R"({"streamed":true})"));
  REQUIRE(streamed.size() == 1);
  CHECK(json::parse(streamed[0])["event"] == "turn_end");
  // A message outside the turn's reply (the message tool, a pairing note)
  // does not end the turn.
  auto side = out(outbound_kind::final_reply, "a note");
  side.stream_id.clear();
  auto note = ws::events_for(side);
  REQUIRE(note.size() == 1);
  CHECK(json::parse(note[0])["event"] == "message");
}

TEST_CASE("turn_end carries the turn's usage and the model's window") {
  auto fin = ws::events_for(out(
    outbound_kind::final_reply, "done",
    R"({"streamed":true,"usage":{"prompt_tokens":900,"completion_tokens":20,)"
    R"("cached_tokens":600,"context_tokens":500},"context_window_tokens":32000})"));
  REQUIRE(fin.size() == 1);
  auto end = json::parse(fin[0]);
  CHECK(end["event"] == "turn_end");
  CHECK(end["usage"]["context_tokens"] == 500);
  CHECK(end["usage"]["cached_tokens"] == 600);
  CHECK(end["context_window_tokens"] == 32000);
  // A reply without usage (a command's answer) has none.
  auto plain = ws::events_for(out(outbound_kind::final_reply, "ok"));
  CHECK_FALSE(json::parse(plain[1]).contains("usage"));
}

TEST_CASE("client frames parse into commands or a clear error") {
  using cmd = ws::client_command;
  auto plain = std::get<cmd>(ws::parse_client_frame("hello there"));
  CHECK(plain.kind == cmd::message);
  CHECK(plain.content == "hello there");
  CHECK(std::get<cmd>(ws::parse_client_frame(R"({"text":"hi"})")).content == "hi");
  auto m = std::get<cmd>(ws::parse_client_frame(
    R"({"type":"message","chat_id":"a:b_c-1","content":"x"})"));
  CHECK(m.chat_id == "a:b_c-1");
  CHECK(std::get<cmd>(ws::parse_client_frame(R"({"type":"new_chat"})")).kind
        == cmd::new_chat);
  CHECK(std::get<cmd>(ws::parse_client_frame(
                        R"({"type":"attach","chat_id":"k"})")).kind
        == cmd::attach);
  auto err = [](const std::string& frame) {
    auto r = ws::parse_client_frame(frame);
    REQUIRE(std::holds_alternative<std::string>(r));
    return std::get<std::string>(r);
  };
  CHECK(err(R"({"type":"attach"})").find("chat_id") != std::string::npos);
  CHECK(err(R"({"type":"message","chat_id":"../x","content":"y"})")
          .find("chat_id must match") != std::string::npos);
  CHECK(err(R"({"type":"launch"})").find("unknown type") != std::string::npos);
  CHECK(err(R"({"type":"message"})").find("content") != std::string::npos);
  CHECK(err("[1,2]").find("expected") != std::string::npos);
  CHECK_FALSE(ws::valid_chat_id(std::string(65, 'a')));
  CHECK(ws::valid_chat_id(std::string(64, 'a')));
  CHECK(ws::same_secret("s3cret", "s3cret"));
  CHECK_FALSE(ws::same_secret("s3cres", "s3cret"));
  CHECK_FALSE(ws::same_secret("", ""));
}

TEST_CASE("a message's attached CLI apps are kept as the original keeps "
          "them") {
  using cmd = ws::client_command;
  json apps = json::array();
  apps.push_back({{"name", "DrawIt"},
                  {"entry_point", " nb-drawit "},
                  {"brand_color", std::string(300, 'c')},
                  {"logo_url", std::string(600, 'u')},
                  {"category", 7},
                  {"secret", "dropped"}});
  apps.push_back({{"name", "drawit"}});   // the same app again
  apps.push_back({{"name", "../etc"}});   // not an app name
  apps.push_back({{"name", "-dash"}});    // must start with a letter or digit
  apps.push_back("gimp");                 // not an object
  for (int i = 0; i < 6; ++i)             // past the 8th entry: dropped
    apps.push_back({{"name", "app" + std::to_string(i)}});
  auto m = std::get<cmd>(ws::parse_client_frame(
    json{{"type", "message"}, {"content", "x"}, {"cli_apps", apps}}.dump()));
  auto kept = json::parse(m.cli_apps);
  REQUIRE(kept.size() == 4); // drawit, app0, app1, app2
  CHECK(kept[0]["name"] == "drawit");
  CHECK(kept[0]["entry_point"] == "nb-drawit");
  CHECK(kept[0]["brand_color"].get<std::string>().size() == 160);
  CHECK(kept[0]["logo_url"].get<std::string>().size() == 512);
  CHECK_FALSE(kept[0].contains("category"));
  CHECK_FALSE(kept[0].contains("secret"));
  CHECK(kept[3] == json{{"name", "app2"}});
  // None, or none usable: no attachment at all.
  CHECK(std::get<cmd>(ws::parse_client_frame(R"({"content":"x"})"))
          .cli_apps.empty());
  CHECK(std::get<cmd>(ws::parse_client_frame(
                        R"({"content":"x","cli_apps":[{"name":"a b"}]})"))
          .cli_apps.empty());
}
