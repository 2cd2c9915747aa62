// read_file: numbered lines of a text file, paged by offset/limit.
#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

#include <sys/stat.h>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/file_io.hpp"
#include "actors/tools/text.hpp"
#include "actors/tools/untrusted.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

using nlohmann::json;

constexpr size_t max_chars = 128000;
constexpr uint64_t max_file_bytes = 100ull * 1024 * 1024;
constexpr int64_t default_limit = 2000;

std::string mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

// Lines as str.splitlines() on "\n" gives them: no empty last line for a
// trailing newline.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t i = 0;
  while (i < text.size()) {
    auto j = text.find('\n', i);
    if (j == std::string_view::npos)
      j = text.size();
    lines.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  return lines;
}

tool_output read_file(const json& args, const tool_context& ctx) {
  auto path = args.value("path", std::string{});
  if (path.empty())
    return tool_failure("Error reading file: Unknown path");
  auto offset = args.value("offset", int64_t{1});
  auto limit = args.value("limit", default_limit);
  if (offset < 1)
    offset = 1;
  if (limit < 1)
    limit = default_limit;
  auto real = resolve_tool_path(path, ctx, "Reading");
  if (!real.ok())
    return tool_failure(real.error);
  struct stat st;
  if (::stat(real.path.c_str(), &st) != 0)
    return tool_failure("Error: File not found: " + path);
  if (S_ISDIR(st.st_mode))
    return tool_failure("Error: Not a file: " + path);
  if (!S_ISREG(st.st_mode))
    return tool_failure("Error: Reading " + path
                        + " is blocked (not a regular file: a FIFO, socket or "
                          "device could hang or never end).");
  if (static_cast<uint64_t>(st.st_size) > max_file_bytes)
    return tool_failure("Error: File too large to read ("
                        + mib(static_cast<uint64_t>(st.st_size))
                        + " MiB). Maximum is 100 MiB.");
  auto file = read_regular_file(real.path, max_file_bytes);
  switch (file.status) {
    case read_status::ok:
      break;
    case read_status::missing:
      return tool_failure("Error: File not found: " + path);
    case read_status::not_regular:
      return tool_failure("Error: Reading " + path
                          + " is blocked (not a regular "
                            "file).");
    case read_status::too_large:
      return tool_failure("Error: File too large to read (" + mib(file.size)
                          + " MiB). Maximum is 100 MiB.");
    case read_status::failed:
      return tool_failure("Error reading file: " + file.reason);
  }
  if (file.data.empty())
    return {"(Empty file: " + path + ")", false};
  auto mime = sniff_mime(file.data);
  if (!mime.empty() || looks_binary(file.data))
    return tool_failure("Error: Cannot read binary file " + path + " (MIME: "
                        + (mime.empty() ? std::string{"unknown"} : mime)
                        + "). Only text files can be read.");
  auto text = sanitize_utf8(crlf_to_lf(file.data));
  file.data.clear();
  file.data.shrink_to_fit();
  auto lines = split_lines(text);
  auto total = static_cast<int64_t>(lines.size());
  if (offset > total)
    return tool_failure("Error: offset " + std::to_string(offset)
                        + " is beyond end of file (" + std::to_string(total)
                        + " lines)");
  auto start = offset - 1;
  auto end = std::min(start + limit, total);
  std::string out;
  size_t chars = 0;
  for (auto i = start; i < end; ++i) {
    auto line = std::to_string(i + 1) + "| ";
    line.append(lines[static_cast<size_t>(i)]);
    chars += utf8_length(line) + 1;
    if (chars > max_chars) {
      end = i;
      break;
    }
    if (i > start)
      out.push_back('\n');
    out += line;
  }
  if (end < total)
    out += "\n\n(Showing lines " + std::to_string(offset) + "-"
           + std::to_string(end) + " of " + std::to_string(total)
           + ". Use offset=" + std::to_string(end + 1) + " to continue.)";
  else
    out += "\n\n(End of file \xE2\x80\x94 " + std::to_string(total)
           + " lines total)";
  // A file may hold text written by anyone (a downloaded page, a mail).
  return {frame_untrusted("file:" + path, out), false};
}

} // namespace

void add_read_file(tool_registry& reg) {
  json schema = {
    {"type", "object"},
    {"properties",
     {{"path", {{"type", "string"}, {"description", "Path of the file."}}},
      {"offset",
       {{"type", "integer"},
        {"description", "First line to return, counting from 1 (default 1)"},
        {"minimum", 1}}},
      {"limit",
       {{"type", "integer"},
        {"description", "How many lines to return at most (default 2000)"},
        {"minimum", 1}}},
      {"pages",
       {{"type", "string"},
        {"description", "Page range for PDF files such as '1-5'; PDF text "
                        "extraction is not available in this build"}}},
      {"force",
       {{"type", "boolean"},
        {"description", "Return the content even if it was read before"},
        {"default", false}}}}},
    {"required", {"path"}},
    {"additionalProperties", false},
  };
  reg.add({"read_file",
           "Read a text file. Each line comes back as LINE_NUMBER| TEXT. "
           "Page through long files with offset and limit; one call returns "
           "at most 2000 lines or about 128K characters. Read the part you "
           "mean to change before editing it. Binary files are refused.",
           {}, true, false},
          schema,
          read_file);
}

} // namespace nb
