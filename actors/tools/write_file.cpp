// write_file: creates or replaces a whole file, atomically.
#include <sys/stat.h>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/file_io.hpp"
#include "actors/tools/text.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

using nlohmann::json;

tool_output write_file(const json& args, const tool_context& ctx) {
  auto path = args.value("path", std::string{});
  if (path.empty())
    return {"Error writing file: Unknown path", true};
  if (!args.contains("content") || !args["content"].is_string())
    return {"Error writing file: Unknown content", true};
  auto& content = args["content"].get_ref<const std::string&>();
  auto real = resolve_tool_path(path, ctx, "Writing");
  if (!real.ok())
    return {real.error, true};
  struct stat st;
  if (::stat(real.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return {"Error: " + path + " is a directory", true};
  if (auto err = write_file_atomic(real.path, content); !err.empty())
    return {"Error writing file: " + err, true};
  return {"Successfully wrote " + std::to_string(utf8_length(content))
            + " characters to " + real.path,
          false};
}

} // namespace

void add_write_file(tool_registry& reg) {
  json schema = {
    {"type", "object"},
    {"properties",
     {{"path", {{"type", "string"}, {"description", "Path of the file."}}},
      {"content",
       {{"type", "string"}, {"description", "The complete new content."}}}}},
    {"required", {"path", "content"}},
    {"additionalProperties", false},
  };
  reg.add({"write_file",
           "Create a file, or replace everything in an existing one, with "
           "the given content. Missing parent directories are created. For "
           "a small change to an existing file use edit_file instead.",
           {}, false, false},
          schema,
          write_file);
}

} // namespace nb
