#include "actors/tools/cli_apps.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "actors/common/strings.hpp"
#include "actors/tools/file_io.hpp"

namespace nb {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The original's limits for the artifact report.
constexpr size_t cli_artifact_scan_limit = 4000;
constexpr size_t cli_artifact_report_limit = 12;
// installed.json is small; a huge one is not ours.
constexpr uint64_t cli_record_max_bytes = 16 * 1024 * 1024;

const char* const cli_artifact_exts[] = {
  ".csv", ".drawio", ".gif", ".html", ".jpeg", ".jpg",  ".json", ".md",
  ".pdf", ".png",    ".svg", ".txt",  ".vsdx", ".webp", ".xml"};
const char* const cli_image_exts[] = {".gif", ".jpeg", ".jpg", ".png", ".webp"};
const char* const cli_skipped_dirs[] = {
  ".git",          ".hg",         ".mypy_cache",  ".nanobot",
  ".pytest_cache", ".ruff_cache", ".venv",        "__pycache__",
  "build",         "dist",        "node_modules", "venv"};

template <size_t N>
bool cli_listed(const char* const (&list)[N], const std::string& x) {
  return std::find_if(std::begin(list), std::end(list),
                      [&](const char* e) { return x == e; })
         != std::end(list);
}

json read_cli_record(const std::string& path) {
  auto f = read_regular_file(path, cli_record_max_bytes);
  if (f.status != read_status::ok)
    return json::object();
  auto j = json::parse(f.data, nullptr, false);
  return j.is_object() ? j : json::object();
}

std::string cli_extension(const fs::path& p) {
  return ascii_lower(p.extension().string());
}

std::string cli_size_text(int64_t size) {
  char buf[64];
  if (size < 1024)
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(size));
  else if (size < 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f KB", size / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%.1f MB", size / (1024.0 * 1024.0));
  return buf;
}

} // namespace

json installed_cli_record(const std::string& config_dir) {
  if (config_dir.empty())
    return json::object();
  auto data = read_cli_record(config_dir + "/cli-apps/installed.json");
  // {"schema_version": 1, "apps": {...}}, or the older flat map.
  if (data.contains("apps") && data["apps"].is_object())
    return data["apps"];
  return data;
}

std::string installed_cli_key(const nlohmann::json& apps,
                              const std::string& name) {
  auto wanted = ascii_lower(name);
  for (auto& [key, entry] : apps.items())
    if (ascii_lower(key) == wanted)
      return key;
  return {};
}

std::string save_installed_cli_record(const std::string& config_dir,
                                      const json& apps) {
  json doc = {{"schema_version", 1}, {"apps", apps}};
  return write_file_atomic(config_dir + "/cli-apps/installed.json",
                           doc.dump(2, ' ', false,
                                    json::error_handler_t::replace));
}

std::vector<cli_app_entry> installed_cli_apps(const std::string& config_dir) {
  std::vector<cli_app_entry> out;
  auto apps = installed_cli_record(config_dir);
  for (auto& [name, entry] : apps.items()) {
    if (!entry.is_object())
      continue;
    cli_app_entry e;
    e.name = name;
    if (entry.contains("entry_point") && entry["entry_point"].is_string())
      e.entry_point = entry["entry_point"].get<std::string>();
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(),
            [](auto& a, auto& b) { return a.name < b.name; });
  return out;
}

std::string find_on_path(const std::string& entry,
                         const std::string& path_var) {
  if (entry.empty())
    return {};
  if (entry.find('/') != std::string::npos)
    return ::access(entry.c_str(), X_OK) == 0 ? entry : std::string{};
  size_t at = 0;
  while (at <= path_var.size()) {
    auto end = path_var.find(':', at);
    if (end == std::string::npos)
      end = path_var.size();
    auto dir = path_var.substr(at, end - at);
    at = end + 1;
    if (dir.empty())
      continue;
    auto candidate = dir + "/" + entry;
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)
        && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return {};
}

artifact_snapshot snapshot_artifacts(const std::string& dir) {
  artifact_snapshot out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return out;
  std::vector<fs::path> stack{dir};
  size_t scanned = 0;
  while (!stack.empty() && scanned < cli_artifact_scan_limit) {
    auto current = stack.back();
    stack.pop_back();
    std::vector<fs::directory_entry> entries;
    for (auto it = fs::directory_iterator(current, ec);
         !ec && it != fs::directory_iterator(); it.increment(ec))
      entries.push_back(*it);
    ec.clear();
    std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) {
      return ascii_lower(a.path().filename().string())
             < ascii_lower(b.path().filename().string());
    });
    for (auto& e : entries) {
      if (scanned >= cli_artifact_scan_limit)
        break;
      ++scanned;
      auto name = e.path().filename().string();
      if (e.is_directory(ec) && !e.is_symlink(ec)) {
        if (!cli_listed(cli_skipped_dirs, name))
          stack.push_back(e.path());
        continue;
      }
      struct stat st;
      if (!cli_listed(cli_artifact_exts, cli_extension(e.path()))
          || ::stat(e.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        continue;
      out[e.path().string()] = {static_cast<int64_t>(st.st_mtim.tv_sec)
                                    * 1000000000
                                  + st.st_mtim.tv_nsec,
                                static_cast<int64_t>(st.st_size)};
    }
  }
  return out;
}

std::vector<std::string> changed_artifact_lines(const std::string& dir,
                                                const artifact_snapshot& before,
                                                bool& images) {
  images = false;
  std::vector<std::pair<std::pair<int64_t, std::string>, std::string>> changed;
  for (auto& [path, stamp] : snapshot_artifacts(dir)) {
    auto was = before.find(path);
    if (was != before.end() && was->second == stamp)
      continue;
    changed.push_back(
      {{stamp.first, ascii_lower(fs::path(path).filename().string())}, path});
  }
  std::sort(changed.begin(), changed.end());
  if (changed.size() > cli_artifact_report_limit)
    changed.erase(changed.begin(),
                  changed.end()
                    - static_cast<std::ptrdiff_t>(cli_artifact_report_limit));
  std::vector<std::string> lines;
  for (auto& [key, path] : changed) {
    auto rel = fs::path(path).lexically_relative(dir).generic_string();
    if (rel.empty() || rel.rfind("..", 0) == 0)
      rel = fs::path(path).filename().string();
    auto ext = cli_extension(path);
    bool image = cli_listed(cli_image_exts, ext);
    images = images || image;
    struct stat st;
    auto size = ::stat(path.c_str(), &st) == 0
                  ? cli_size_text(static_cast<int64_t>(st.st_size))
                  : std::string{"unknown size"};
    auto kind = image ? std::string{"previewable image"}
                      : (ext.size() > 1 ? ext.substr(1) : std::string{"file"});
    lines.push_back("- " + rel + " (" + kind + ", " + size + ")");
  }
  return lines;
}

} // namespace nb
