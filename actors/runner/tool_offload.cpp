#include "actors/runner/tool_offload.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "config/atomic_file.hpp"

namespace nb {

namespace {

namespace fs = std::filesystem;

std::string safe_name(const std::string& s) {
  std::string out = s.empty() ? "default" : s;
  for (auto& c : out)
    if (std::string_view{"<>:\"/\\|?*"}.find(c) != std::string_view::npos
        || static_cast<unsigned char>(c) < 0x20)
      c = '_';
  if (out == "." || out == "..")
    out = "_";
  return out;
}

/// Cuts at `max` bytes without splitting a UTF-8 sequence.
std::string utf8_prefix(const std::string& s, size_t max) {
  size_t cut = std::min(max, s.size());
  while (cut > 0 && cut < s.size()
         && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut;
  return s.substr(0, cut);
}

} // namespace

std::string offload_bucket(const std::string& workspace,
                           const std::string& session_key) {
  return workspace + "/.nanobot/tool-results/" + safe_name(session_key);
}

std::optional<std::string> offload_tool_result(const offload_settings& cfg,
                                               const std::string& session_key,
                                               const std::string& call_id,
                                               const std::string& tool,
                                               const std::string& content) {
  if (cfg.workspace.empty() || cfg.max_chars == 0
      || content.size() <= cfg.max_chars || tool == "read_file")
    return std::nullopt;
  try {
    auto bucket = offload_bucket(cfg.workspace, session_key);
    std::error_code ec;
    fs::create_directories(bucket, ec);
    if (ec)
      return std::nullopt;
    auto path = bucket + "/" + safe_name(call_id) + ".txt";
    auto res = create_file_atomic(path, content, 0644);
    if (res.outcome == write_outcome::failed)
      return std::nullopt;
    // Touch the bucket so cleanup sees it as the newest.
    fs::last_write_time(bucket, fs::file_time_type::clock::now(), ec);
    cleanup_offload_buckets(cfg, bucket);
    auto preview = utf8_prefix(content, cfg.preview_chars);
    std::string note = "[tool output persisted]\nFull output saved to: " + path
                       + "\nOriginal size: " + std::to_string(content.size())
                       + " chars\nPreview:\n" + preview;
    if (preview.size() < content.size())
      note += "\n...\n(Read the saved file with read_file if you need the "
              "full output.)";
    return note;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void cleanup_offload_buckets(const offload_settings& cfg,
                             const std::string& keep) {
  try {
    std::error_code ec;
    auto root = fs::path{cfg.workspace} / ".nanobot" / "tool-results";
    struct bucket {
      fs::path path;
      fs::file_time_type mtime;
    };
    std::vector<bucket> all;
    for (auto it = fs::directory_iterator(root, ec);
         !ec && it != fs::directory_iterator(); it.increment(ec)) {
      if (!it->is_directory(ec) || it->path() == fs::path{keep})
        continue;
      all.push_back({it->path(), fs::last_write_time(it->path(), ec)});
    }
    auto now = fs::file_time_type::clock::now();
    std::sort(all.begin(), all.end(),
              [](auto& a, auto& b) { return a.mtime > b.mtime; });
    // `keep` counts as one of the buckets kept.
    size_t kept = 1;
    for (auto& b : all) {
      if (now - b.mtime > cfg.max_age || kept >= cfg.max_buckets)
        fs::remove_all(b.path, ec);
      else
        ++kept;
    }
  } catch (const std::exception&) {
    // cleanup is best effort; the next write tries again
  }
}

} // namespace nb
