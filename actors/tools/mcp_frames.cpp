#include "actors/tools/mcp_frames.hpp"

#include "actors/tools/mcp_transport.hpp"

namespace nb {

using nlohmann::json;

void sse_event_reader::feed(std::string_view bytes, const handler& on_event) {
  buf_.append(bytes);
  size_t start = 0;
  for (auto nl = buf_.find('\n', start); nl != std::string::npos;
       nl = buf_.find('\n', start)) {
    std::string_view line{buf_.data() + start, nl - start};
    start = nl + 1;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.empty()) { // the event is complete
      if (has_data_)
        on_event(event_, data_);
      event_.clear();
      data_.clear();
      has_data_ = false;
      continue;
    }
    if (line[0] == ':')
      continue; // a comment (keep-alive)
    auto colon = line.find(':');
    auto field = line.substr(0, colon);
    auto value = colon == std::string_view::npos ? std::string_view{}
                                                 : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ')
      value.remove_prefix(1);
    if (field == "event") {
      event_ = std::string{value};
    } else if (field == "data") {
      if (has_data_)
        data_ += '\n';
      data_ += value;
      has_data_ = true;
    }
  }
  buf_.erase(0, start);
}

std::vector<json> sse_messages(const std::string& body) {
  std::vector<json> out;
  sse_event_reader reader;
  auto take = [&](const std::string&, const std::string& data) {
    auto msg = json::parse(data, nullptr, false);
    if (!msg.is_discarded())
      out.push_back(std::move(msg));
  };
  reader.feed(body, take);
  reader.feed("\n\n", take); // a body may end without the blank line
  return out;
}

mcp_message_kind classify_mcp_message(const json& msg, const json& id) {
  if (!msg.is_object() || !msg.contains("id"))
    return mcp_message_kind::other;
  if (msg.contains("method"))
    return mcp_message_kind::server_request;
  return msg["id"] == id ? mcp_message_kind::reply : mcp_message_kind::other;
}

json answer_server_request(const json& request) {
  json reply{{"jsonrpc", "2.0"}, {"id", request["id"]}};
  if (request["method"] == "ping")
    reply["result"] = json::object();
  else
    reply["error"] = {{"code", -32601}, {"message", "Method not found"}};
  return reply;
}

std::string read_mcp_reply(const json& reply, json& result) {
  if (reply.contains("error"))
    return mcp_error_text(reply["error"]);
  result = reply.value("result", json::object());
  return {};
}

} // namespace nb
