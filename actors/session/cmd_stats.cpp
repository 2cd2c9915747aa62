// /stats: this conversation's token use, per model and in total, added up
// from the usage each turn's last assistant record carries.
#include "actors/session/commands.hpp"
#include "actors/session/transcript.hpp"

#include <map>

namespace nb {

namespace {

struct model_totals {
  int64_t turns = 0;
  int64_t requests = 0;
  int64_t prompt = 0;
  int64_t completion = 0;
  int64_t cached = 0;
};

int64_t field(const nlohmann::json& u, const char* key) {
  auto i = u.find(key);
  return i != u.end() && i->is_number_integer() ? i->get<int64_t>() : 0;
}

std::string line(const std::string& name, const model_totals& t) {
  auto pct = t.prompt > 0 ? t.cached * 100 / t.prompt : 0;
  return "\n• " + name + ": " + std::to_string(t.turns) + " turn(s), "
         + std::to_string(t.requests) + " request(s), "
         + std::to_string(t.prompt) + " in / " + std::to_string(t.completion)
         + " out (" + std::to_string(pct) + "% cached)";
}

} // namespace

command_reply cmd_stats(command_context& ctx) {
  std::map<std::string, model_totals> by_model;
  model_totals all;
  if (ctx.transcript)
    for (const auto& m : *ctx.transcript) {
      auto [model, u] = recorded_usage_of(m);
      if (!u.is_object())
        continue;
      for (auto* t : {&by_model[model], &all}) {
        ++t->turns;
        t->requests += field(u, "requests");
        t->prompt += field(u, "prompt_tokens");
        t->completion += field(u, "completion_tokens");
        t->cached += field(u, "cached_tokens");
      }
    }
  // Archived messages no longer held left their totals behind.
  if (ctx.earlier_usage && ctx.earlier_usage->is_object())
    for (const auto& [model, u] : ctx.earlier_usage->items())
      for (auto* t : {&by_model[model], &all}) {
        t->turns += field(u, "turns");
        t->requests += field(u, "requests");
        t->prompt += field(u, "prompt_tokens");
        t->completion += field(u, "completion_tokens");
        t->cached += field(u, "cached_tokens");
      }
  if (all.turns == 0)
    return {"📊 No token use recorded in this conversation yet."
            + ctx.memory_text};
  std::string out = "📊 Tokens in this conversation (since /new), by model:";
  for (const auto& [model, t] : by_model)
    out += line(model, t);
  out += line("total", all);
  out += ctx.memory_text;
  out += "\nThe gateway's totals since start: GET /stats on its port.";
  return {out};
}

} // namespace nb
