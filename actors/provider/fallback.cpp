#include "actors/provider/fallback.hpp"
#include "actors/common/strings.hpp"

#include <algorithm>
#include <cctype>

namespace nb {

namespace {

bool mentions(const std::string& text,
              std::initializer_list<std::string_view> words) {
  auto l = ascii_lower(text);
  return std::any_of(words.begin(), words.end(), [&](auto w) {
    return l.find(w) != std::string::npos;
  });
}

} // namespace

std::vector<candidate> plan_candidates(const settings& cfg,
                                       const model_request& req,
                                       const env_reader& env) {
  std::vector<candidate> out;
  candidate primary;
  if (req.model.empty()) {
    primary.label = cfg.agent.model;
    primary.choice = choose_provider(cfg, env);
  } else {
    primary.label = req.model;
    primary.choice = choose_provider(cfg, req.model, req.provider, env);
  }
  out.push_back(std::move(primary));
  for (auto& f : cfg.agent.fallback_models) {
    candidate c;
    if (!f.preset.empty()) {
      auto p = cfg.model_presets.find(f.preset);
      if (p == cfg.model_presets.end())
        continue; // config validation names it; nothing to try here
      c.label = f.preset;
      c.choice = choose_provider(cfg, p->second.model, p->second.provider, env);
      c.max_tokens = p->second.max_tokens;
      c.temperature = p->second.temperature;
      c.reasoning_effort = p->second.reasoning_effort;
    } else {
      c.label = f.model;
      c.choice = choose_provider(cfg, f.model, f.provider, env);
      c.max_tokens = f.max_tokens;
      c.temperature = f.temperature;
      c.reasoning_effort = f.reasoning_effort;
    }
    auto same = [&](const candidate& o) {
      return o.choice.name == c.choice.name && o.choice.model == c.choice.model
             && o.choice.api_base == c.choice.api_base;
    };
    if (std::none_of(out.begin(), out.end(), same))
      out.push_back(std::move(c));
  }
  return out;
}

bool fails_over(const attempt_failure& f) {
  switch (f.kind) {
    case failure_kind::timeout:
    case failure_kind::connection:
    case failure_kind::tls:
      return true;
    case failure_kind::cancelled:
    case failure_kind::too_large:
      return false;
    case failure_kind::protocol:
      return f.transient
             || mentions(f.detail, {"empty", "no choices", "overloaded",
                                    "rate limit", "quota", "not a json"});
    case failure_kind::http_status:
      break;
  }
  auto s = f.status;
  if (s == 401 || s == 402 || s == 403 || s == 408 || s == 409 || s == 429
      || s >= 500)
    return true;
  if (is_quota_error(f.detail))
    return true;
  // 400/404/422: the request itself is wrong (or filtered); another model
  // would most likely refuse it too, and it must not hide the problem.
  return false;
}

circuit_breaker::circuit_breaker(int threshold,
                                 std::chrono::milliseconds cooldown)
  : threshold_(std::max(1, threshold)), cooldown_(cooldown) {
  // nop
}

bool circuit_breaker::open(const std::string& key,
                           clock::time_point now) const {
  auto i = entries_.find(key);
  return i != entries_.end() && i->second.failures >= threshold_
         && now < i->second.until;
}

void circuit_breaker::record(const std::string& key, bool failed,
                             clock::time_point now) {
  if (!failed) {
    entries_.erase(key);
    return;
  }
  auto& e = entries_[key];
  // After the cooldown the primary gets one more try; a failure then
  // opens the breaker again at once.
  e.failures = std::min(e.failures + 1, threshold_);
  if (e.failures >= threshold_)
    e.until = now + cooldown_;
}

} // namespace nb
