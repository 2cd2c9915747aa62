// edit_file: exact text replacement in one file.
#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include <sys/stat.h>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/file_io.hpp"
#include "actors/tools/text.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

using nlohmann::json;

constexpr uint64_t max_edit_bytes = 1024ull * 1024 * 1024;

struct match {
  size_t start = 0;
  size_t end = 0;
  int64_t first_line = 0;
  int64_t last_line = 0;
};

std::vector<match> find_matches(const std::string& content,
                                const std::string& needle) {
  std::vector<match> out;
  size_t from = 0;
  while (true) {
    auto at = content.find(needle, from);
    if (at == std::string::npos)
      break;
    match m{at, at + needle.size(), 0, 0};
    auto before = content.begin() + static_cast<std::ptrdiff_t>(at);
    m.first_line = 1 + std::count(content.begin(), before, '\n');
    auto body = std::string_view{needle};
    if (!body.empty() && body.back() == '\n')
      body.remove_suffix(1);
    m.last_line = m.first_line + std::count(body.begin(), body.end(), '\n');
    out.push_back(m);
    from = at + std::max<size_t>(1, needle.size());
  }
  return out;
}

std::string line_list(const std::vector<match>& ms) {
  std::string out;
  for (size_t i = 0; i < ms.size() && i < 3; ++i)
    out += (i ? ", line " : "line ") + std::to_string(ms[i].first_line);
  if (ms.size() > 3)
    out += ", ...";
  return out;
}

// "12| text": the model copied read_file's numbering into old_text.
bool has_line_numbers(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
    ++i;
  return i > 0 && s.compare(i, 2, "| ") == 0;
}

std::string write_back(const std::string& real, std::string text, bool crlf) {
  if (crlf) {
    std::string out;
    out.reserve(text.size() + text.size() / 32);
    for (char c : text) {
      if (c == '\n')
        out.push_back('\r');
      out.push_back(c);
    }
    text = std::move(out);
  }
  return write_file_atomic(real, text);
}

tool_output edit_file(const json& args, const tool_context& ctx) {
  auto path = args.value("path", std::string{});
  if (path.empty())
    return tool_failure("Error editing file: Unknown path");
  auto old_text = args.value("old_text", std::string{});
  auto new_text = args.value("new_text", std::string{});
  bool replace_all = args.value("replace_all", false);
  auto opt = [&](const char* key) -> int64_t {
    return args.contains(key) && args[key].is_number_integer()
             ? args[key].get<int64_t>()
             : 0;
  };
  auto occurrence = opt("occurrence");
  auto line_hint = opt("line_hint");
  auto expected = opt("expected_replacements");
  auto real = resolve_tool_path(path, ctx, "Writing");
  if (!real.ok())
    return tool_failure(real.error);
  struct stat st;
  bool exists = ::stat(real.path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    return tool_failure("Error: Not a file: " + path);
  // FIFOs and devices are refused before any open.
  if (exists && !S_ISREG(st.st_mode))
    return tool_failure("Error: Not a regular file: " + path);
  if (exists && old_text == new_text)
    return tool_failure("Error: new_text must be different from old_text.");
  if (!exists) {
    if (!old_text.empty())
      return tool_failure("Error: File not found: " + path);
    if (auto err = write_file_atomic(real.path, new_text); !err.empty())
      return tool_failure("Error editing file: " + err);
    return {"Successfully created " + real.path, false};
  }
  auto file = read_regular_file(real.path, max_edit_bytes);
  if (file.status == read_status::too_large)
    return tool_failure("Error: File too large to edit. Maximum is 1 GiB.");
  if (file.status == read_status::not_regular)
    return tool_failure("Error: Not a regular file: " + path);
  if (file.status != read_status::ok)
    return tool_failure("Error editing file: " + file.reason);
  if (looks_binary(file.data) || sanitize_utf8(file.data) != file.data)
    return tool_failure("Error: " + path
                        + " is not UTF-8 text; edit_file only "
                          "edits text files.");
  if (old_text.empty()) {
    if (file.data.find_first_not_of(" \t\r\n") != std::string::npos)
      return tool_failure("Error: Cannot create file \xE2\x80\x94 " + path
                          + " already exists and is not empty.");
    if (auto err = write_file_atomic(real.path, new_text); !err.empty())
      return tool_failure("Error editing file: " + err);
    return {"Successfully edited " + real.path, false};
  }
  bool crlf = file.data.find("\r\n") != std::string::npos;
  auto content = crlf_to_lf(file.data);
  auto needle = crlf_to_lf(old_text);
  auto replacement = crlf_to_lf(new_text);
  auto matches = find_matches(content, needle);
  if (matches.empty()) {
    auto hint = has_line_numbers(needle)
                  ? " old_text seems to include read_file line numbers "
                    "(\"N| \"); leave them out."
                  : " Copy the exact text from read_file and try again.";
    return tool_failure("Error: old_text not found in " + path + "." + hint);
  }
  auto count = static_cast<int64_t>(matches.size());
  if (replace_all && occurrence)
    return tool_failure(
      "Error: occurrence cannot be used with replace_all=true.");
  if (replace_all && line_hint)
    return tool_failure(
      "Error: line_hint cannot be used with replace_all=true.");
  if (occurrence && line_hint)
    return tool_failure("Error: line_hint cannot be used with occurrence.");
  if (occurrence > count)
    return tool_failure("Error: occurrence " + std::to_string(occurrence)
                        + " is out of range; old_text appears "
                        + std::to_string(count) + " time(s).");
  if (count > 1 && !replace_all && !occurrence && !line_hint)
    return tool_failure(
      "Error: old_text appears " + std::to_string(count) + " times (at "
      + line_list(matches)
      + "). Provide more context, set occurrence to choose one "
        "match, or set replace_all=true.");
  std::vector<match> selected;
  if (replace_all) {
    selected = matches;
  } else if (occurrence) {
    selected.push_back(matches[static_cast<size_t>(occurrence - 1)]);
  } else if (line_hint) {
    for (auto& m : matches)
      if (m.first_line <= line_hint && line_hint <= m.last_line)
        selected.push_back(m);
    if (selected.empty())
      return tool_failure("Error: line_hint " + std::to_string(line_hint)
                          + " does not match the old_text location. old_text "
                            "appears at "
                          + line_list(matches) + ".");
    if (selected.size() > 1)
      return tool_failure("Error: line_hint " + std::to_string(line_hint)
                          + " is ambiguous; old_text appears "
                          + std::to_string(selected.size())
                          + " times on that line.");
  } else {
    selected.push_back(matches.front());
  }
  if (expected && static_cast<int64_t>(selected.size()) != expected)
    return tool_failure("Error: expected " + std::to_string(expected)
                        + " replacements but would make "
                        + std::to_string(selected.size()) + ".");
  for (auto it = selected.rbegin(); it != selected.rend(); ++it) {
    auto end = it->end;
    // Deleting a whole line: take its newline too, leave no blank line.
    if (replacement.empty() && needle.back() != '\n' && end < content.size()
        && content[end] == '\n')
      ++end;
    content.replace(it->start, end - it->start, replacement);
  }
  if (auto err = write_back(real.path, std::move(content), crlf);
      !err.empty())
    return tool_failure("Error editing file: " + err);
  auto note = selected.size() > 1
                ? " (" + std::to_string(selected.size()) + " replacements)"
                : std::string{};
  return {"Successfully edited " + real.path + note, false};
}

} // namespace

void add_edit_file(tool_registry& reg) {
  auto optional_count = [](const char* text) {
    return json{{"type", {"integer", "null"}},
                {"description", text},
                {"minimum", 1}};
  };
  json schema = {
    {"type", "object"},
    {"properties",
     {{"path", {{"type", "string"}, {"description", "Path of the file."}}},
      {"old_text",
       {{"type", "string"},
        {"description", "The exact text to replace, copied from the file"}}},
      {"new_text",
       {{"type", "string"}, {"description", "The text to put in its place"}}},
      {"replace_all",
       {{"type", "boolean"},
        {"description", "Replace every occurrence (default false)"}}},
      {"occurrence",
       optional_count("Which match to replace (1-based) when old_text "
                      "occurs more than once")},
      {"line_hint",
       optional_count("A line number from read_file that the chosen match "
                      "must cover")},
      {"expected_replacements",
       optional_count("Fail unless exactly this many replacements happen")}}},
    {"required", {"path", "old_text", "new_text"}},
    {"additionalProperties", false},
  };
  reg.add({"edit_file",
           "Replace old_text with new_text in one file. old_text must match "
           "the file exactly (copy it from read_file without the line "
           "numbers) and must differ from new_text. When it occurs more "
           "than once, add context or set occurrence, line_hint or "
           "replace_all. An empty old_text creates a missing file.",
           {}, false, false},
          schema,
          edit_file);
}

} // namespace nb
