// apply_patch: several structured edits (replace an exact text, or add text
// at the end of a file / create it) over one or more files in one call, as
// the original's tool takes them. All edits are checked first; then every
// file is written atomically, and a failed write puts back what was there.
#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "actors/common/strings.hpp"
#include "actors/common/utf8.hpp"
#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/file_io.hpp"
#include "actors/tools/text.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

using nlohmann::json;

constexpr uint64_t max_file_bytes = 64ull * 1024 * 1024;

struct patch_error {
  std::string text;
};

std::string replace_all(std::string s, const std::string& from,
                        const std::string& to) {
  size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in{crlf_to_lf(text)};
  std::string line;
  while (std::getline(in, line))
    out.push_back(line);
  return out;
}

/// Lines added and deleted between two texts: the common head and tail are
/// skipped, the middle is compared by longest common subsequence (when it
/// is small enough; otherwise every middle line counts as changed).
std::pair<int, int> line_stats(const std::string& before,
                               const std::string& after) {
  auto a = split_lines(before);
  auto b = split_lines(after);
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head])
    ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head
         && a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;
  size_t n = a.size() - head - tail, m = b.size() - head - tail;
  size_t common = 0;
  if (n > 0 && m > 0 && n * m <= 4'000'000) {
    std::vector<uint32_t> prev(m + 1, 0), cur(m + 1, 0);
    for (size_t i = 1; i <= n; ++i) {
      for (size_t j = 1; j <= m; ++j)
        cur[j] = a[head + i - 1] == b[head + j - 1]
                   ? prev[j - 1] + 1
                   : std::max(prev[j], cur[j - 1]);
      std::swap(prev, cur);
    }
    common = prev[m];
  }
  return {static_cast<int>(m - common), static_cast<int>(n - common)};
}

/// The original's append: never glue the addition onto an unterminated
/// last line, and end with a newline.
std::string append_text(const std::string& content, const std::string& add) {
  auto base = crlf_to_lf(content);
  auto extra = crlf_to_lf(add);
  if (!base.empty() && !extra.empty() && base.back() != '\n'
      && extra.front() != '\n')
    base += '\n';
  auto out = base + extra;
  if (!out.empty() && out.back() != '\n')
    out += '\n';
  return out;
}

struct summary {
  std::string action;
  std::string path;
  int added = 0;
  int deleted = 0;
};

std::string format(const summary& s) {
  std::string out = "- " + s.action + " " + s.path;
  if (s.added || s.deleted)
    out += " (+" + std::to_string(s.added) + "/-" + std::to_string(s.deleted)
           + ")";
  return out;
}

/// The file's text, a pending edit's text, or nullopt when it is missing.
std::optional<std::string> current_text(
  const std::string& real, const std::string& shown,
  const std::map<std::string, std::string>& writes) {
  if (auto it = writes.find(real); it != writes.end())
    return it->second;
  auto got = read_regular_file(real, max_file_bytes);
  switch (got.status) {
    case read_status::ok:
      break;
    case read_status::missing:
      return std::nullopt;
    case read_status::not_regular:
      throw patch_error{"path to update is not a file: " + shown};
    case read_status::too_large:
      throw patch_error{"file is too large to patch: " + shown};
    default:
      throw patch_error{"cannot read " + shown + ": " + got.reason};
  }
  if (first_invalid_utf8(got.data))
    throw patch_error{"file is not UTF-8 text: " + shown};
  return got.data;
}

tool_output apply_patch(const json& args, const tool_context& ctx) {
  try {
    auto edits = args.find("edits");
    if (edits == args.end() || !edits->is_array() || edits->empty())
      throw patch_error{"must provide edits"};
    bool dry_run = args.value("dry_run", false);
    std::map<std::string, std::string> writes; // real path -> new text
    std::vector<std::string> order;            // first-touch order
    std::vector<summary> summaries;
    for (auto& edit : *edits) {
      if (!edit.is_object())
        throw patch_error{"each edit must be an object"};
      auto p = edit.find("path");
      if (p == edit.end() || !p->is_string())
        throw patch_error{"path required for edit"};
      auto path = trim_space(p->get<std::string>());
      if (path.empty())
        throw patch_error{"patch path cannot be empty"};
      if (path.find('\0') != std::string::npos)
        throw patch_error{"patch path contains a null byte: " + path};
      auto a = edit.find("action");
      if (a == edit.end() || !a->is_string())
        throw patch_error{"action required for edit: " + path};
      auto action = a->get<std::string>();
      auto real = resolve_tool_path(path, ctx, "Writing");
      if (!real.ok())
        return {real.error, true};
      auto text_of = [&](const char* key) -> std::optional<std::string> {
        auto it = edit.find(key);
        if (it == edit.end() || it->is_null())
          return std::nullopt;
        if (!it->is_string())
          throw patch_error{std::string{key} + " must be a string: " + path};
        return it->get<std::string>();
      };
      if (std::find(order.begin(), order.end(), real.path) == order.end())
        order.push_back(real.path);
      // A changed existing file keeps its line endings (CRLF stays CRLF).
      auto stage_update = [&](const std::string& before, std::string next) {
        if (before.find("\r\n") != std::string::npos)
          next = replace_all(next, "\n", "\r\n");
        auto [added, deleted] = line_stats(before, next);
        writes[real.path] = next;
        summaries.push_back({"update", path, added, deleted});
      };
      if (action == "add") {
        auto new_text = text_of("new_text");
        if (!new_text)
          throw patch_error{"new_text required for add: " + path};
        auto content = current_text(real.path, path, writes);
        if (content) {
          stage_update(*content, append_text(*content, *new_text));
        } else {
          auto next = crlf_to_lf(*new_text);
          if (!next.empty() && next.back() != '\n')
            next += '\n';
          writes[real.path] = next;
          summaries.push_back(
            {"add", path, static_cast<int>(split_lines(next).size()), 0});
        }
      } else if (action == "replace") {
        auto old_text = text_of("old_text").value_or("");
        if (old_text.empty())
          throw patch_error{"old_text required for replace: " + path};
        auto new_text = text_of("new_text");
        if (!new_text)
          throw patch_error{"new_text required for replace: " + path};
        auto content = current_text(real.path, path, writes);
        if (!content)
          throw patch_error{"file to update does not exist: " + path};
        auto norm = crlf_to_lf(*content);
        auto old_norm = crlf_to_lf(old_text);
        auto pos = norm.find(old_norm);
        if (pos == std::string::npos)
          throw patch_error{"old_text not found in " + path};
        if (norm.find(old_norm, pos + 1) != std::string::npos)
          throw patch_error{"old_text appears multiple times in " + path};
        auto next = norm.substr(0, pos) + crlf_to_lf(*new_text)
                    + norm.substr(pos + old_norm.size());
        if (!next.empty() && next.back() != '\n')
          next += '\n';
        stage_update(*content, std::move(next));
      } else {
        throw patch_error{"unknown action: " + action};
      }
    }
    std::string lines;
    for (auto& s : summaries)
      lines += "\n" + format(s);
    if (dry_run)
      return {"Patch dry-run succeeded:" + lines, false};
    // Keep what was there, so a failed write leaves every file as it was.
    std::map<std::string, std::optional<std::string>> backups;
    for (auto& path : order) {
      auto got = read_regular_file(path, max_file_bytes);
      backups[path] = got.status == read_status::ok
                        ? std::optional<std::string>{got.data}
                        : std::nullopt;
    }
    for (auto& path : order) {
      auto err = write_file_atomic(path, writes[path]);
      if (err.empty())
        continue;
      for (auto& [bpath, data] : backups) {
        if (data)
          write_file_atomic(bpath, *data);
        else
          ::unlink(bpath.c_str());
      }
      return {"Error applying patch: " + err, true};
    }
    return {"Patch applied:" + lines, false};
  } catch (const patch_error& e) {
    return {"Error applying patch: " + e.text, true};
  }
}

} // namespace

void add_apply_patch(tool_registry& reg) {
  json edit = {
    {"type", "object"},
    {"properties",
     {{"path",
       {{"type", "string"},
        {"description", "The file to change. Relative paths start at the "
                        "workspace; absolute paths and '..' follow the "
                        "workspace access rules."}}},
      {"action",
       {{"type", "string"},
        {"enum", {"replace", "add"}},
        {"description", "replace: swap old_text for new_text. add: append "
                        "new_text to the file, creating it when missing."}}},
      {"old_text",
       {{"type", {"string", "null"}},
        {"description", "The exact text to find (once) in the file. "
                        "Needed for replace."}}},
      {"new_text",
       {{"type", {"string", "null"}},
        {"description", "The replacement, or the text to append. Needed for "
                        "both actions."}}}}},
    {"required", {"path", "action"}},
  };
  json schema = {
    {"type", "object"},
    {"properties",
     {{"edits",
       {{"type", "array"},
        {"items", edit},
        {"minItems", 1},
        {"maxItems", 20},
        {"description", "The edits to make, each naming a file and the "
                        "change to it."}}},
      {"dry_run",
       {{"type", "boolean"},
        {"default", false},
        {"description", "Check the edits and show what would change, "
                        "without writing anything."}}}}},
    {"required", {"edits"}},
  };
  reg.add({"apply_patch",
           "The usual tool for code changes, also across several files in "
           "one call: give a list of edits, each with a file path, an action "
           "(replace or add) and the exact text involved. Either every edit "
           "applies or none does. dry_run=true checks and previews without "
           "writing. For one small exact replacement in one file, edit_file "
           "is enough.",
           {}, false, false},
          schema,
          apply_patch);
}

} // namespace nb
