#include "actors/store/session_format.hpp"

#include "actors/common/json_locate.hpp"
#include "actors/common/json_sax_reader.hpp"
#include "actors/store/posix_io.hpp"

namespace nb::session_format {

namespace {

/// What sorting a line needs, read without building it: whether it is one
/// JSON object, and its top-level "_type" (the last one, as a parse keeps).
/// A long session's file is read whole at every archive mark; building
/// each message line as a JSON tree only to look for "_type" made that the
/// largest cost growing with the session's length.
struct session_line_shape : json_sax_reader<session_line_shape> {
  bool object = false;
  bool has_type = false;
  std::string type; ///< "" unless "_type" is a string
  bool type_next = false; ///< the next value is the top-level "_type"

  void key_at(int depth, const std::string& k) {
    if (depth == 1)
      type_next = k == "_type";
  }
  void value_at(int depth, const sax_value& v) {
    if (depth == 0 && v.what == sax_value::kind::object)
      object = true;
    if (depth == 1 && type_next) {
      has_type = true;
      type = v.text ? *v.text : std::string{};
      type_next = false;
    }
  }
};

/// The line's shape; nullopt when it is not one JSON object.
std::optional<session_line_shape> line_shape(std::string_view line) {
  session_line_shape shape;
  if (!json::sax_parse(line.begin(), line.end(), &shape)
      || !shape.object)
    return std::nullopt;
  return shape;
}

} // namespace

parsed_file parse_lines(std::string_view text) {
  parsed_file out;
  while (!text.empty()) {
    auto nl = text.find('\n');
    auto line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos)
      continue;
    auto shape = line_shape(line);
    if (!shape) {
      ++out.skipped;
      continue;
    }
    if (!shape->has_type) {
      out.messages.emplace_back(line);
    } else if (shape->type == "metadata" && !out.has_meta) {
      out.has_meta = true;
      out.meta = json::parse(line.begin(), line.end());
    } else if (shape->type == "provider_state"
               && out.provider_state_line.empty()) {
      out.provider_state_line = std::string{line};
    }
    // provider_state and unknown record types are not messages.
  }
  return out;
}

std::string metadata_line(const std::string& key, const std::string& created,
                          const std::string& updated, json meta,
                          int64_t last_consolidated) {
  json j;
  j["_type"] = "metadata";
  j["key"] = key;
  j["created_at"] = created;
  j["updated_at"] = updated;
  j["metadata"] = std::move(meta);
  j["last_consolidated"] = last_consolidated;
  return j.dump() + "\n";
}

std::optional<std::pair<size_t, size_t>> updated_at_span(std::string_view head) {
  auto line = head.substr(0, head.find('\n'));
  constexpr std::string_view key = "\"updated_at\"";
  auto skip_space = [&](size_t i) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    return i;
  };
  for (auto at = line.find(key); at != std::string_view::npos;
       at = line.find(key, at + 1)) {
    auto i = skip_space(at + key.size());
    if (i >= line.size() || line[i] != ':')
      continue;
    i = skip_space(i + 1);
    if (i >= line.size() || line[i] != '"')
      continue;
    auto start = i + 1;
    auto end = line.find('"', start);
    if (end == std::string_view::npos)
      return std::nullopt; // cut off: the value is not all in `head`
    if (line.substr(start, end - start).find('\\') != std::string_view::npos)
      continue;
    // The key itself may sit in a nested object (metadata may hold one).
    if (json_path_at(line, start) != "updated_at")
      continue;
    return std::make_pair(start, end - start);
  }
  return std::nullopt;
}

bool is_provider_state_line(std::string_view line) {
  auto skip_space = [&](size_t i) {
    while (i < line.size()
           && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
      ++i;
    return i;
  };
  auto expect = [&](size_t i, std::string_view word) -> size_t {
    i = skip_space(i);
    return line.substr(i, word.size()) == word ? i + word.size()
                                               : std::string_view::npos;
  };
  auto i = expect(0, "{");
  for (auto word : {std::string_view{"\"_type\""}, std::string_view{":"},
                    std::string_view{"\"provider_state\""}})
    if (i != std::string_view::npos)
      i = expect(i, word);
  if (i == std::string_view::npos)
    return false;
  i = skip_space(i);
  return i < line.size() && (line[i] == ',' || line[i] == '}');
}

std::string
provider_state_with_pending(std::string_view line,
                            const std::vector<std::string>& messages) {
  auto record = json::parse(line.begin(), line.end(), nullptr, false);
  if (!record.is_object() || !record.contains("state")
      || !record["state"].is_object())
    return std::string{line};
  auto& state = record["state"];
  auto pending = state.find("pending_messages");
  if (pending == state.end())
    state["pending_messages"] = json::array();
  else if (!pending->is_array())
    return std::string{line};
  auto& into = state["pending_messages"];
  for (auto& text : messages) {
    auto m = json::parse(text, nullptr, false);
    if (!m.is_object() || (m.contains("_command") && m["_command"] == true))
      continue;
    json given = json::object();
    for (auto key : {"role", "content", "tool_calls", "tool_call_id", "name",
                     "reasoning_content", "thinking_blocks"})
      if (auto v = m.find(key); v != m.end())
        given[key] = *v;
    if (!given.contains("role"))
      continue;
    if (!given.contains("content"))
      given["content"] = "";
    into.push_back(std::move(given));
  }
  return record.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A JSON text may span lines; a JSONL line may not. Most callers send one
// line already, which is then stored as it came.
caf::expected<std::string> message_lines(const std::string& path,
                                         const std::vector<std::string>& msgs) {
  std::string body;
  for (size_t i = 0; i < msgs.size(); ++i) {
    if (!line_shape(msgs[i]))
      return store_io::store_error("cannot write " + path + ": message "
                                   + std::to_string(i)
                                   + " is not a JSON object");
    if (msgs[i].find_first_of("\r\n") == std::string::npos)
      body += msgs[i];
    else
      body += json::parse(msgs[i]).dump();
    body += '\n';
  }
  return body;
}

} // namespace nb::session_format
