#include "actors/evaluator/prompt_command.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

#include "actors/evaluator/evaluator_prompt.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace {

constexpr const char* must_call =
  "A custom prompt must still tell the model to call the "
  "evaluate_notification tool; if the model answers without calling it, the "
  "gate stays silent (nothing is delivered).";

std::string rel() {
  return std::string{"`"} + evaluator_prompt_rel_path + "`";
}

std::string status(const std::string& workspace) {
  if (resolve_evaluator_prompt(workspace).custom)
    return "Heartbeat evaluator prompt: custom for this workspace\n"
           "- Path: " + rel() + "\n"
           "Delete the file or empty it to go back to the nanobot default.\n"
           + must_call;
  return "Heartbeat evaluator prompt: nanobot default\n"
         "- Editable file: " + rel() + "\n"
         "Run `/evaluator-prompt init` to create an editable copy.\n"
         + must_call;
}

std::string init(const std::string& workspace) {
  namespace fs = std::filesystem;
  auto path = workspace + "/" + evaluator_prompt_rel_path;
  auto exists_msg = "A prompt file already exists at " + rel()
                    + "; it was left unchanged. Edit it, or delete it to "
                      "start again from the default.";
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return exists_msg;
    std::ifstream in{path, std::ios::binary};
    if (!in)
      return exists_msg; // unreadable: never overwrite what we cannot see
    std::ostringstream buf;
    buf << in.rdbuf();
    auto text = buf.str();
    // Only an empty (whitespace) file may be replaced; anything else,
    // including a file in another encoding, is the user's.
    if (text.find_first_not_of(" \t\r\n\f\v") != std::string::npos)
      return exists_msg;
  }
  std::error_code ec;
  fs::create_directories(fs::path{path}.parent_path(), ec);
  auto written
    = replace_file_atomic(path, default_evaluator_prompt() + "\n", 0644);
  if (written.outcome == write_outcome::failed)
    return "Could not write " + rel() + ": " + written.error;
  return "Wrote the default heartbeat evaluator prompt to " + rel()
         + ". Edit it to change when background results reach you.\n"
         + must_call;
}

} // namespace

std::string evaluator_prompt_command(const std::string& workspace,
                                     const std::string& args) {
  auto a = args;
  while (!a.empty() && std::isspace(static_cast<unsigned char>(a.back())))
    a.pop_back();
  while (!a.empty() && std::isspace(static_cast<unsigned char>(a.front())))
    a.erase(a.begin());
  if (a.empty())
    return status(workspace);
  if (a == "init")
    return init(workspace);
  return "Usage: /evaluator-prompt [init]";
}

} // namespace nb
