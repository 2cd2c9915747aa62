#include "actors/provider/fallback_call.hpp"

#include <algorithm>

#include "actors/common/log.hpp"
#include "actors/provider/responses_route.hpp"

namespace nb {

namespace {

/// The reasoning effort `c` is called with: its own, else the caller's.
const std::string& fallback_effort(const std::string& caller,
                                   const candidate& c) {
  return c.reasoning_effort.empty() ? caller : c.reasoning_effort;
}

/// The caller's generation settings a candidate may override: each
/// candidate starts from them.
struct caller_settings {
  int32_t max_tokens;
  double temperature;
  std::string reasoning_effort;
};

/// Turns `req` into the request `c` sends (its wire model and generation
/// settings) in place: the messages and tools, a request's bulk, are never
/// copied for a candidate.
void aim_at_candidate(model_request& req, const candidate& c,
                      const caller_settings& caller) {
  req.model.clear(); // the client then sends c.choice.model
  req.provider.clear();
  req.max_tokens = c.max_tokens > 0 ? c.max_tokens : caller.max_tokens;
  req.temperature = c.temperature >= 0 ? c.temperature : caller.temperature;
  req.reasoning_effort = fallback_effort(caller.reasoning_effort, c);
}

/// "HTTP 503: upstream busy" out of "Model request failed after 4
/// attempts: HTTP 503: upstream busy".
std::string short_reason(const std::string& error) {
  auto colon = error.find(": ");
  auto text = colon == std::string::npos ? error : error.substr(colon + 2);
  if (text.size() > 160)
    text = text.substr(0, 157) + "...";
  return text;
}

/// One candidate's call: through the Responses API when its route asks for
/// it and the breaker lets it, Chat Completions otherwise or when the
/// endpoint refused the Responses API.
model_reply call_candidate(client_pool& pool, const candidate& c,
                           const model_request& sent, const callbacks& cb,
                           call_info& info,
                           const std::vector<std::string>& responses_open,
                           const std::vector<std::string>& compaction_off,
                           responses_report& report) {
  auto route = responses_route(c.choice, c.choice.model, sent.reasoning_effort);
  auto key =
    responses_breaker_key(c.choice, c.choice.model, sent.reasoning_effort);
  bool open = std::find(responses_open.begin(), responses_open.end(), key)
              != responses_open.end();
  if (route == responses_use::required
      || (route == responses_use::preferred && !open)) {
    auto rc = c.choice;
    rc.api = wire_api::openai_responses;
    auto endpoint = compaction_key(c.choice);
    info.compaction_allowed =
      std::find(compaction_off.begin(), compaction_off.end(), endpoint)
      == compaction_off.end();
    auto reply = pool.get(rc).chat(sent, cb, &info);
    if (info.compaction_refused)
      report.compaction_refused.push_back(std::move(endpoint));
    if (route == responses_use::required)
      return reply;
    if (reply.finish_reason != "error") {
      report.answered.push_back(key);
      return reply;
    }
    if (info.streamed || !info.failure || !responses_refused(*info.failure))
      return reply;
    report.refused.push_back(key);
    static const auto log = nb::log::get("provider");
    log->warn("model {}: the Responses API was refused ({}); using Chat "
              "Completions",
              c.label, redact(info.failure->detail, c.choice.api_key));
    info = call_info{};
  }
  return pool.get(c.choice).chat(sent, cb, &info);
}

} // namespace

std::string compaction_key(const provider_choice& choice) {
  return choice.name + '\n' + choice.api_base;
}

std::string responses_key_for(const candidate& c, const model_request& req) {
  const auto& effort = fallback_effort(req.reasoning_effort, c);
  if (responses_route(c.choice, c.choice.model, effort)
      != responses_use::preferred)
    return {};
  return responses_breaker_key(c.choice, c.choice.model, effort);
}

client_pool::client_pool(client_options opts,
                         std::shared_ptr<const std::atomic<bool>> cancel)
  : opts_(std::move(opts)), cancel_(std::move(cancel)) {
  // nop
}

model_client& client_pool::get(const provider_choice& choice) {
  auto key = choice.name + '\n' + choice.api_base + '\n' + choice.model + '\n'
             + std::string{wire_api_name(choice.api)} + '\n' + choice.api_key;
  auto& slot = clients_[key];
  if (!slot)
    slot = std::make_unique<model_client>(choice, opts_, cancel_);
  return *slot;
}

fallback_outcome
call_with_fallbacks(client_pool& pool, const std::vector<candidate>& plan,
                    size_t start, model_request req, const callbacks& cb,
                    const std::vector<std::string>& responses_open,
                    const std::vector<std::string>& compaction_off) {
  static const auto log = nb::log::get("provider");
  fallback_outcome out;
  const caller_settings caller{req.max_tokens, req.temperature,
                               req.reasoning_effort};
  auto notify = [&cb](std::string text) {
    if (cb.on_retry_wait)
      cb.on_retry_wait(std::move(text));
  };
  if (start > 0 && start < plan.size())
    notify("Model " + plan[0].label + " is skipped for now after repeated "
           "failures; using fallback model " + plan[start].label + ".");
  for (size_t i = start; i < plan.size(); ++i) {
    auto& c = plan[i];
    bool last = i + 1 == plan.size();
    call_info info;
    if (c.choice.ready()) {
      aim_at_candidate(req, c, caller);
      out.reply = call_candidate(pool, c, req, cb, info, responses_open,
                                 compaction_off, out.responses);
    } else {
      // An unusable fallback (no key, ...) is like an authentication
      // failure: the next one may work.
      out.reply = model_reply{};
      out.reply.finish_reason = "error";
      out.reply.error = c.choice.problem;
      info.failure = attempt_failure{failure_kind::http_status, 401,
                                     c.choice.problem, false, {}};
    }
    if (out.reply.finish_reason != "error") {
      if (i > 0)
        out.reply.fallback_model = c.label;
      return out;
    }
    bool moves_on = info.failure && fails_over(*info.failure);
    if (i == start)
      out.first_failed = moves_on;
    // Never after text reached the user: a second model would repeat or
    // contradict what they already read.
    if (last || info.streamed || !moves_on)
      return out;
    auto why = short_reason(out.reply.error);
    log->warn("model {} failed ({}); failing over to {}", c.label, why,
              plan[i + 1].label);
    notify("Model " + c.label + " is unavailable (" + why
           + "); switching to fallback model " + plan[i + 1].label + ".");
  }
  return out;
}

} // namespace nb
