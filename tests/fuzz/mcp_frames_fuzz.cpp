// MCP's JSON-RPC framing: the bytes as a server-sent-event stream (fed in
// two reads at an input-chosen cut) and as a whole SSE body, and each line
// as a stdio message; every message classified as the transports do for a
// call waiting on id 1, answered or read.
#include <sstream>

#include "actors/tools/mcp_frames.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

void handle(const nlohmann::json& msg) {
  switch (nb::classify_mcp_message(msg, 1)) {
    case nb::mcp_message_kind::server_request:
      (void) nb::answer_server_request(msg).dump();
      break;
    case nb::mcp_message_kind::reply: {
      nlohmann::json result;
      (void) nb::read_mcp_reply(msg, result);
      break;
    }
    case nb::mcp_message_kind::other:
      break;
  }
}

} // namespace

NB_FUZZ_ENTRY(mcp_frames) {
  auto bytes = nb::fuzz::text(data, size);
  nb::sse_event_reader reader;
  auto cut = size > 0 ? data[0] % (size + 1) : 0;
  auto on_event = [](const std::string&, const std::string& payload) {
    handle(nb::fuzz::json(payload));
  };
  reader.feed(std::string_view{bytes}.substr(0, cut), on_event);
  reader.feed(std::string_view{bytes}.substr(cut), on_event);
  for (const auto& msg : nb::sse_messages(bytes))
    handle(msg);
  std::istringstream lines{bytes};
  for (std::string line; std::getline(lines, line);)
    handle(nb::fuzz::json(line));
  return 0;
}
