// Which sessions exist and when each was last written: the directory's
// file names (base64url of the key) and modification times.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include "actors/store/session_files.hpp"

namespace nb {

namespace {

std::optional<std::string> from_base64url(const std::string& in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = val(c);
    if (v < 0)
      return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

/// The "metadata" object of the file's first line ({"_type":"metadata",
/// ..., "metadata": {...}}); null when the line is not one (at most 1 MiB
/// is read: a metadata line is small, a corrupt file need not be).
nlohmann::json metadata_of_file(const std::filesystem::path& path) {
  std::ifstream in{path};
  std::string line;
  constexpr size_t cap = size_t{1} << 20;
  for (char c; line.size() < cap && in.get(c) && c != '\n';)
    line += c;
  auto head = nlohmann::json::parse(line, nullptr, false);
  if (!head.is_object() || head.value("_type", "") != "metadata")
    return nullptr;
  auto md = head.find("metadata");
  return md != head.end() ? *md : nlohmann::json{};
}

} // namespace

void read_activity_meta(const nlohmann::json& metadata, session_activity& a) {
  if (!metadata.is_object())
    return;
  auto archived = metadata.find("archived");
  a.archived = archived != metadata.end() && archived->is_boolean()
               && archived->get<bool>();
  auto route = metadata.find("last_channel");
  if (route != metadata.end() && route->is_string())
    a.last_channel = route->get<std::string>();
}

session_listing list_sessions(const std::string& dir, int32_t limit,
                              bool with_meta) {
  session_listing out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it{dir, ec}, end; !ec && it != end;
       it.increment(ec)) {
    auto name = it->path().filename().string();
    constexpr std::string_view ext = ".jsonl";
    if (name.size() <= ext.size()
        || name.compare(name.size() - ext.size(), ext.size(), ext) != 0)
      continue;
    auto key = from_base64url(name.substr(0, name.size() - ext.size()));
    // Only names this store writes: the encoding must round-trip.
    if (!key || session_file_name(*key) != name)
      continue;
    struct stat st;
    if (::stat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    session_activity a;
    a.key = std::move(*key);
    a.updated_ms =
      int64_t{st.st_mtim.tv_sec} * 1000 + st.st_mtim.tv_nsec / 1000000;
    if (with_meta)
      read_activity_meta(metadata_of_file(it->path()), a);
    out.sessions.push_back(std::move(a));
  }
  std::sort(out.sessions.begin(), out.sessions.end(),
            [](const session_activity& a, const session_activity& b) {
              return a.updated_ms != b.updated_ms ? a.updated_ms > b.updated_ms
                                                  : a.key < b.key;
            });
  if (limit > 0 && out.sessions.size() > static_cast<size_t>(limit))
    out.sessions.resize(static_cast<size_t>(limit));
  return out;
}

} // namespace nb
