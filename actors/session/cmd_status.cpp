// /status: model, last turn's tokens, context use, session size, uptime and
// active tasks. Answered at once, even while a turn runs.
#include "actors/session/commands.hpp"

#include <algorithm>

namespace nb {

namespace {

std::string thousands(int64_t n) {
  if (n < 1000)
    return std::to_string(n);
  auto tenths = (n + 50) / 100;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "k";
}

std::string uptime(int64_t s) {
  std::string out;
  if (s >= 86400)
    out += std::to_string(s / 86400) + "d ";
  if (s >= 3600)
    out += std::to_string(s / 3600 % 24) + "h ";
  out += std::to_string(s / 60 % 60) + "m " + std::to_string(s % 60) + "s";
  return out;
}

} // namespace

command_reply cmd_status(command_context& ctx) {
  const auto& u = ctx.last_usage;
  // The turn's requests added up; older callers only fill last_usage.
  const auto& sum = ctx.last_turn_sum.prompt_tokens > 0 ? ctx.last_turn_sum
                                                        : ctx.last_usage;
  std::string out = "🐈 nanobot-cpp " NB_VERSION;
  out += "\n🧠 Model: " + (ctx.model.empty() ? std::string{"?"} : ctx.model);
  if (!ctx.preset.empty())
    out += " (preset " + ctx.preset + ")";
  if (sum.prompt_tokens + sum.completion_tokens == 0) {
    out += "\n📊 Tokens: no finished turn yet";
  } else {
    auto cached = sum.prompt_tokens > 0
                    ? sum.cached_tokens * 100 / sum.prompt_tokens
                    : 0;
    out += "\n📊 Tokens (last turn): " + std::to_string(sum.prompt_tokens)
           + " in / " + std::to_string(sum.completion_tokens) + " out ("
           + std::to_string(cached) + "% cached)";
  }
  auto budget = ctx.context_window_tokens - ctx.max_tokens - 1024;
  if (budget <= 0)
    budget = std::max<int64_t>(128, ctx.context_window_tokens / 2);
  out += "\n📚 Context: " + thousands(u.prompt_tokens) + "/"
         + thousands(ctx.context_window_tokens) + " ("
         + std::to_string(u.prompt_tokens * 100 / budget)
         + "% of the input budget)";
  auto n = ctx.earlier_messages
           + (ctx.transcript ? ctx.transcript->size() : 0);
  out += "\n💬 Session: " + ctx.session_key + ", " + std::to_string(n)
         + " messages";
  out += "\n⏱ Uptime: " + uptime(ctx.uptime_s);
  out += "\n⚡ Tasks: " + std::to_string(ctx.active_tasks) + " active";
  out += "\n🗂 Memory search: "
         + (ctx.memory_status.empty() ? std::string{"not used yet in this "
                                                    "session"}
                                      : ctx.memory_status);
  return {out};
}

} // namespace nb
