// /history [n]: the last n user and assistant messages, shortened.
#include "actors/session/commands.hpp"
#include "actors/session/transcript.hpp"

#include <cstdlib>

namespace nb {

namespace {

constexpr int default_count = 10;
constexpr int max_count = 50;
constexpr size_t max_chars = 200;

std::string shorten(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r')
      c = ' ';
  if (s.size() <= max_chars)
    return s;
  size_t cut = max_chars;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut; // never split a UTF-8 sequence
  return s.substr(0, cut) + "…";
}

} // namespace

command_reply cmd_history(command_context& ctx) {
  int n = default_count;
  if (!ctx.args.empty()) {
    char* end = nullptr;
    long v = std::strtol(ctx.args.c_str(), &end, 10);
    if (*end != '\0' || v < 1)
      return {"Usage: /history [n] — n is a number from 1 to 50, not \""
              + ctx.args + "\"."};
    n = static_cast<int>(std::min<long>(v, max_count));
  }
  std::vector<std::string> lines;
  if (ctx.transcript)
    for (auto i = ctx.transcript->rbegin();
         i != ctx.transcript->rend() && static_cast<int>(lines.size()) < n; ++i) {
      const nlohmann::json& m = *i;
      if (is_command(m))
        continue;
      auto role = role_of(m);
      auto c = m.find("content");
      if ((role != "user" && role != "assistant") || c == m.end()
          || !c->is_string() || c->get_ref<const std::string&>().empty())
        continue;
      lines.push_back((role == "user" ? "👤 You: " : "🤖 Bot: ")
                      + shorten(c->get<std::string>()));
    }
  if (lines.empty())
    return {"No messages in this conversation yet."};
  std::string out = "Last " + std::to_string(lines.size()) + " message(s):";
  for (auto i = lines.rbegin(); i != lines.rend(); ++i)
    out += "\n" + *i;
  return {out};
}

} // namespace nb
