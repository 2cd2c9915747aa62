#include "actors/session/commands.hpp"

#include "config/spelling.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace nb {

namespace {

struct command_entry {
  const char* name;
  command_kind kind;
  const char* summary;
};

constexpr std::array<command_entry, 3> commands{{
  {"/help", command_kind::help, "show this list"},
  {"/new", command_kind::new_session, "start a fresh conversation"},
  {"/status", command_kind::status, "show the model and this session's size"},
}};


} // namespace

parsed_command parse_command(const std::string& text) {
  auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos || text[begin] != '/')
    return {};
  auto end = text.find_first_of(" \t\r\n", begin);
  auto word = text.substr(begin, end == std::string::npos ? std::string::npos
                                                          : end - begin);
  if (auto at = word.find('@'); at != std::string::npos)
    word.erase(at);
  std::transform(word.begin(), word.end(), word.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  parsed_command out;
  out.name = word;
  if (end != std::string::npos) {
    auto a = text.find_first_not_of(" \t\r\n", end);
    if (a != std::string::npos)
      out.args = text.substr(a);
  }
  out.kind = command_kind::unknown;
  for (auto& c : commands)
    if (word == c.name)
      out.kind = c.kind;
  return out;
}

std::string help_text() {
  std::string out = "Commands:\n";
  for (auto& c : commands)
    out += std::string{c.name} + " — " + c.summary + "\n";
  out += "Anything else goes to the agent.";
  return out;
}

std::string unknown_command_text(const std::string& name) {
  const command_entry* best = nullptr;
  size_t best_distance = 0;
  for (auto& c : commands) {
    auto d = edit_distance(name, c.name);
    if (!best || d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  // Close enough: at least 60 % alike, like difflib's default cutoff.
  auto longest = std::max(name.size(), std::string{best->name}.size());
  if (best && best_distance * 5 <= longest * 2)
    return "Unknown command \"" + name + "\". Did you mean \"" + best->name
           + "\"?";
  return "Unknown command \"" + name
         + "\". Use \"/help\" to list available commands.";
}

} // namespace nb
