// The original's Responses state (its private `{"_type": "provider_state"}`
// line, written right after the metadata line) in a session file our store
// continues, on real files: it loads without error and is no message; an
// append of ours keeps it and puts the new messages into its pending
// messages, as the model sees them (the original sends those after the
// state's items when it continues); a rewrite that keeps the messages it
// covers keeps it too, a metadata change keeps it byte for byte, and a
// transcript rewritten without them (/new) drops it, as the original does.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/store/session_files.hpp"
#include "messages/session_admin.hpp"
#include "tests/store/temp_dir.hpp"

using namespace nb;
using nlohmann::json;
using nb::test::slurp;
using nb::test::spit;
using nb::test::temp_dir;

namespace {

// As the original's json.dumps writes them.
const std::string responses_meta_line =
  R"({"_type": "metadata", "key": "websocket:c1", "created_at": "2026-11-30T09:12:03.418207", "updated_at": "2026-11-30T09:12:09.101010", "metadata": {"title": "hello"}, "last_consolidated": 0})";
const std::string responses_state_line =
  R"({"_type": "provider_state", "state": {"kind": "openai_responses", "provider": "openai_compat:openai:https://api.openai.com/v1", "model": "gpt-5", "version": 1, "payload": {"items": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}, {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAB-opaque"}, {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed", "content": [{"type": "output_text", "text": "hello", "annotations": []}]}], "context_tokens": 321}, "pending_messages": []}})";
const std::vector<std::string> responses_messages = {
  R"({"role": "user", "content": "hi", "timestamp": "2026-11-30T09:12:03.420113"})",
  R"({"role": "assistant", "content": "hello", "timestamp": "2026-11-30T09:12:09.101010"})",
};

std::string responses_home(const temp_dir& d) {
  auto path = d.path + "/" + session_file_name("websocket:c1");
  std::string text = responses_meta_line + "\n" + responses_state_line + "\n";
  for (auto& m : responses_messages)
    text += m + "\n";
  spit(path, text);
  return path;
}

/// The file's provider_state record, or null when it has none.
json state_record(const std::string& path) {
  auto text = slurp(path);
  size_t at = 0;
  while (at < text.size()) {
    auto nl = text.find('\n', at);
    auto line = json::parse(text.substr(at, nl - at), nullptr, false);
    if (line.is_object() && line.value("_type", "") == "provider_state")
      return line;
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return nullptr;
}

} // namespace

TEST_CASE("the original's Responses state is read, kept and continued") {
  temp_dir d;
  auto path = responses_home(d);
  auto snap = load_session(d.path, "websocket:c1");
  REQUIRE(snap);
  CHECK(snap->skipped_lines == 0);
  REQUIRE(snap->messages.size() == 2); // the state line is no message
  CHECK(slurp(path).find(responses_state_line) != std::string::npos);

  // A turn of ours: the state stays, with that turn as pending messages.
  std::vector<std::string> turn = {
    json{{"role", "user"}, {"content", "again"}, {"timestamp", "t"},
         {"_inbox", "i1"}}.dump(),
    json{{"role", "assistant"}, {"content", nullptr},
         {"tool_calls", json::parse(R"([{"id": "c1", "type": "function",
           "function": {"name": "exec", "arguments": "{}"}}])")}}.dump(),
    json{{"role", "tool"}, {"tool_call_id", "c1"}, {"name", "exec"},
         {"content", "ok"}}.dump(),
    json{{"role", "user"}, {"content", "/help"}, {"_command", true}}.dump(),
  };
  REQUIRE_FALSE(append_session(d.path, "websocket:c1", turn));
  snap = load_session(d.path, "websocket:c1");
  REQUIRE(snap);
  CHECK(snap->messages.size() == 6);
  auto text = slurp(path);
  CHECK(json::parse(text.substr(0, text.find('\n')))["_type"] == "metadata");
  auto record = state_record(path);
  REQUIRE(record.is_object());
  auto was = json::parse(responses_state_line);
  auto& state = record["state"];
  CHECK(state["payload"] == was["state"]["payload"]); // opaque, unchanged
  CHECK(state["model"] == "gpt-5");
  CHECK(state["pending_messages"]
        == json::parse(R"([
          {"role": "user", "content": "again"},
          {"role": "assistant", "content": null, "tool_calls": [{"id": "c1",
           "type": "function", "function": {"name": "exec",
           "arguments": "{}"}}]},
          {"role": "tool", "tool_call_id": "c1", "name": "exec",
           "content": "ok"}])"));
  // The second line still, where the original writes it.
  auto second = text.substr(text.find('\n') + 1);
  CHECK(json::parse(second.substr(0, second.find('\n'))) == record);

  // A metadata change (the WebUI's rename) keeps it as it is.
  auto before = state_record(path);
  REQUIRE_FALSE(patch_session_meta(d.path, "websocket:c1",
                                   R"({"title": "renamed"})"));
  CHECK(state_record(path) == before);

  // A rewrite of ours with every message and one more (a mid-turn
  // rewrite, a /model change) carries it on.
  auto all = load_session(d.path, "websocket:c1")->messages;
  all.push_back(json{{"role", "assistant"}, {"content", "done"}}.dump());
  REQUIRE_FALSE(replace_session(d.path, "websocket:c1", "{}", all));
  record = state_record(path);
  REQUIRE(record.is_object());
  CHECK(record["state"]["pending_messages"].size() == 4);
  CHECK(record["state"]["pending_messages"].back()
        == json{{"role", "assistant"}, {"content", "done"}});

  // /new: the transcript it covered is gone, and so is the state.
  REQUIRE_FALSE(replace_session(d.path, "websocket:c1", "{}", {}));
  CHECK(state_record(path).is_null());
}

TEST_CASE("our own Responses state: read for a turn, written, dropped") {
  temp_dir d;
  auto path = responses_home(d);
  // A turn reads only the state: the record as the original wrote it.
  auto got = load_session(d.path, "websocket:c1", true);
  REQUIRE(got);
  CHECK(got->has_conversation);
  CHECK(got->messages.empty());
  REQUIRE(got->conversation.record);
  CHECK(json::parse(*got->conversation.record)
        == json::parse(responses_state_line)["state"]);
  // Kept as written (its spacing too), not serialised again.
  CHECK(got->conversation.record->find(R"("kind": "openai_responses")")
        == 1);
  CHECK(load_session(d.path, "websocket:c1")->has_conversation);

  // A turn of ours sets its own state; its pending messages go into the
  // record's pending_messages as the model sees them.
  auto next = json::parse(responses_state_line)["state"];
  next["payload"]["items"].push_back(
    {{"type", "reasoning"}, {"id", "rs_2"}, {"encrypted_content", "gAAAAB-2"}});
  conversation_state set{std::make_shared<const std::string>(next.dump()),
                         {json{{"role", "tool"}, {"tool_call_id", "c9"},
                               {"content", "ok"}, {"timestamp", "t"}}.dump()}};
  std::vector<std::string> turn = {
    json{{"role", "user"}, {"content", "more"}}.dump(),
    json{{"role", "assistant"}, {"content", "sure"}}.dump()};
  REQUIRE_FALSE(append_session(d.path, "websocket:c1", turn, &set));
  auto record = state_record(path);
  REQUIRE(record.is_object());
  CHECK(record["state"]["payload"] == next["payload"]);
  CHECK(record["state"]["pending_messages"]
        == json::parse(R"([{"role": "tool", "tool_call_id": "c9",
                            "content": "ok"}])"));
  auto text = slurp(path);
  auto second = text.substr(text.find('\n') + 1);
  CHECK(json::parse(second.substr(0, second.find('\n'))) == record);
  CHECK(load_session(d.path, "websocket:c1")->messages.size() == 4);

  // A new file gets the line too, second after its metadata line.
  REQUIRE_FALSE(append_session(d.path, "api:new", turn, &set));
  auto fresh = d.path + "/" + session_file_name("api:new");
  CHECK(state_record(fresh)["state"]["payload"] == next["payload"]);
  CHECK(load_session(d.path, "api:new")->messages.size() == 2);

  // No record: the line goes (an answer that cannot be resumed).
  conversation_state none;
  REQUIRE_FALSE(append_session(d.path, "websocket:c1", {turn[0]}, &none));
  CHECK(state_record(path).is_null());
  CHECK(load_session(d.path, "websocket:c1")->messages.size() == 5);
  CHECK_FALSE(load_session(d.path, "websocket:c1", true)->has_conversation);

  // A line the original would not load gives no state.
  spit(d.path + "/" + session_file_name("api:bad"),
       responses_meta_line + "\n"
         + R"({"_type": "provider_state", "state": {"kind": "x"}})" + "\n");
  auto bad = load_session(d.path, "api:bad", true);
  REQUIRE(bad);
  CHECK(bad->has_conversation);
  CHECK_FALSE(bad->conversation.record);
}

TEST_CASE("the original's Responses state gets our attached images in its "
          "pending messages") {
  temp_dir d;
  auto path = responses_home(d);
  auto image = d.path + "/cat.png";
  spit(image, std::string{"\x89PNG\r\n\x1a\n", 8} + "pixels");
  std::vector<std::string> turn = {
    json{{"role", "user"}, {"content", "what is this?"},
         {"media", json::array({image})}, {"timestamp", "t"}}.dump()};
  REQUIRE_FALSE(append_session(d.path, "websocket:c1", turn));
  auto pending = state_record(path)["state"]["pending_messages"];
  REQUIRE(pending.size() == 1);
  auto& content = pending[0]["content"];
  REQUIRE(content.is_array());
  REQUIRE(content.size() == 2);
  CHECK(content[0]["type"] == "image_url");
  CHECK(content[0]["image_url"]["url"].get<std::string>().rfind(
          "data:image/png;base64,", 0)
        == 0);
  CHECK(content[1] == json{{"type", "text"}, {"text", "what is this?"}});
  CHECK_FALSE(pending[0].contains("media"));
  // The transcript line itself stays as stored: the path, not the bytes.
  auto stored = json::parse(load_session(d.path, "websocket:c1")->messages.back());
  CHECK(stored["content"] == "what is this?");
  CHECK(stored["media"] == json::array({image}));
}

TEST_CASE("an append reads the file's head through its own handle") {
  temp_dir d;
  auto path = d.path + "/" + session_file_name("websocket:c1");
  // A metadata line past the first 4 KiB an append reads: the state line
  // after it is still found (and carried), as within the first 64 KiB.
  auto meta = json::parse(responses_meta_line);
  meta["metadata"]["title"] = std::string(6000, 't');
  spit(path, meta.dump() + "\n" + responses_state_line + "\n"
               + responses_messages[0] + "\n" + responses_messages[1] + "\n");
  std::vector<std::string> turn = {
    json{{"role", "user"}, {"content", "again"}}.dump()};
  REQUIRE_FALSE(append_session(d.path, "websocket:c1", turn));
  auto record = state_record(path);
  REQUIRE(record.is_object());
  CHECK(record["state"]["pending_messages"]
        == json::parse(R"([{"role": "user", "content": "again"}])"));

  // A file of ours longer than that head, cut off without its newline: the
  // append starts a fresh line, and updated_at moves to now in place.
  auto plain = d.path + "/" + session_file_name("k");
  std::string old_meta =
    R"({"_type":"metadata","key":"k","created_at":"2025-06-01T10:00:00.000001","updated_at":"2025-06-01T10:05:00.000001","metadata":{}})";
  std::string text = old_meta + "\n";
  for (int i = 0; i < 40; ++i)
    text += json{{"role", "user"}, {"content", std::string(200, 'a')}}.dump()
            + "\n";
  text += R"({"role":"user","content":"cut off)";
  spit(plain, text);
  REQUIRE_FALSE(append_session(d.path, "k", turn));
  auto after = slurp(plain);
  CHECK(after.substr(old_meta.size() + 1, text.size() - old_meta.size() - 1)
        == text.substr(old_meta.size() + 1));
  CHECK(after.substr(text.size()) == "\n" + turn[0] + "\n");
  auto line = json::parse(after.substr(0, after.find('\n')));
  CHECK(line["created_at"] == "2025-06-01T10:00:00.000001");
  CHECK(line["updated_at"] != "2025-06-01T10:05:00.000001");
  CHECK(after.find('\n') == old_meta.size()); // same length, in place
  auto snap = load_session(d.path, "k");
  REQUIRE(snap);
  CHECK(snap->messages.size() == 41);
  CHECK(snap->messages.back() == turn[0]);
}
