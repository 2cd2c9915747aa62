#include "actors/store/session_format.hpp"

#include "actors/common/json_locate.hpp"
#include "actors/store/posix_io.hpp"

namespace nb::session_format {

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
    auto j = json::parse(line.begin(), line.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      ++out.skipped;
      continue;
    }
    auto type = j.find("_type");
    if (type == j.end()) {
      out.messages.emplace_back(line);
    } else if (*type == "metadata" && !out.has_meta) {
      out.has_meta = true;
      out.meta = std::move(j);
    } else if (*type == "provider_state" && out.provider_state_line.empty()) {
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

// A JSON text may span lines; a JSONL line may not. Most callers send one
// line already, which is then stored as it came.
caf::expected<std::string> message_lines(const std::string& path,
                                         const std::vector<std::string>& msgs) {
  std::string body;
  for (size_t i = 0; i < msgs.size(); ++i) {
    auto j = json::parse(msgs[i], nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return store_io::store_error("cannot write " + path + ": message "
                                   + std::to_string(i)
                                   + " is not a JSON object");
    if (msgs[i].find_first_of("\r\n") == std::string::npos)
      body += msgs[i];
    else
      body += j.dump();
    body += '\n';
  }
  return body;
}

} // namespace nb::session_format
