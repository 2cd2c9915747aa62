// model_client::chat: attempts, retry decisions, waits and notices.
#include "actors/provider/model_client_impl.hpp"

#include <algorithm>

#include "actors/common/log.hpp"
#include "actors/provider/responses_route.hpp"
#include "actors/provider/responses_state.hpp"
#include "actors/provider/text_quirks.hpp"

namespace nb {

using namespace detail;

model_reply model_client::chat(const model_request& req, const callbacks& cb,
                               call_info* info) {
  auto& d = *impl_;
  auto start = clock_type::now();
  int32_t attempts = 0;
  int32_t status = 0;
  bool shown = false;
  std::optional<attempt_failure> last;
  bool responses = d.choice.api == wire_api::openai_responses;
  auto failed = [&](std::string text) {
    if (info) {
      info->failure = last;
      info->streamed = shown;
    }
    model_reply r;
    r.finish_reason = "error";
    r.error = redact(std::move(text), d.choice.api_key);
    r.attempts = attempts;
    r.http_status = status;
    r.latency_us = std::chrono::duration_cast<std::chrono::microseconds>(
                     clock_type::now() - start)
                     .count();
    // Whatever the API: the original drops a saved state after a failure
    // that will not pass, even one of Chat Completions.
    if (last)
      settle_failed_responses_state(
        r, last->transient || last->kind == failure_kind::cancelled);
    return r;
  };
  if (!d.choice.ready())
    return failed(d.choice.problem);
  if (!d.base || !d.http || !d.http->is_valid())
    return failed("Model request failed: the provider URL \""
                  + d.choice.api_base + "\" cannot be used.");
  auto model = req.model.empty() ? d.choice.model
                                 : request_model(d.choice, req.model);
  std::string why;
  body_options opts{req.reasoning_effort, d.choice.thinking_style,
                    d.choice.extra_body};
  if (responses) {
    opts.conversation_provider = responses_state_provider(d.choice);
    if (auto* spec = find_provider_spec(d.choice.name))
      opts.default_hosted_tool = spec->responses_default_tool;
    opts.deepseek = d.choice.name == "deepseek";
    // Server compaction on the direct OpenAI endpoint only (the original's
    // supports_native_compaction).
    if (d.choice.name == "openai" && is_direct_openai_base(d.choice.api_base)
        && (!info || info->compaction_allowed))
      opts.compact_threshold = responses_compact_threshold(
        req.context_window_tokens, req.max_tokens > 0 ? req.max_tokens : 8192);
  }
  auto body = d.wire->body(req, model, opts, why);
  if (body.empty())
    return failed(why);
  auto limit = req.no_wall_clock
                 ? or_forever(ms{0})
                 : or_forever(req.stream ? d.opts.stream_call_timeout
                                         : d.opts.call_timeout);
  auto deadline = start + limit;
  auto max_attempts = static_cast<int32_t>(d.opts.retry_delays.size()) + 1;
  static const auto log = nb::log::get("provider");
  for (;;) {
    auto a = d.run(body, req.stream, shown, deadline, cb);
    ++attempts;
    shown = shown || a.emitted;
    if (!a.failure) {
      a.reply.attempts = attempts;
      a.reply.latency_us = std::chrono::duration_cast<std::chrono::microseconds>(
                             clock_type::now() - start)
                             .count();
      apply_text_quirks(a.reply);
      if (responses)
        settle_responses_state(a.reply, opts.conversation_provider, body);
      if (info) {
        info->failure.reset();
        info->streamed = shown;
      }
      return a.reply;
    }
    last = a.failure;
    auto& f = *a.failure;
    status = f.status;
    if (opts.compact_threshold > 0
        && responses_compaction_refused(f.status, f.detail)) {
      // An endpoint without server compaction: once more without it, and
      // the provider asks for it there no more (the caller is told).
      opts.compact_threshold = 0;
      if (info)
        info->compaction_refused = true;
      body = d.wire->body(req, model, opts, why);
      continue;
    }
    if (f.kind == failure_kind::cancelled)
      return failed(f.detail);
    if (a.deadline_hit && clock_type::now() >= deadline)
      return failed("Error calling LLM: timed out after " + seconds_text(limit)
                    + "s");
    auto summary = attempts == 1
                     ? "Model request failed: " + f.detail
                     : "Model request failed after "
                         + std::to_string(attempts) + " attempts: " + f.detail;
    if (!should_retry(f, shown) || attempts >= max_attempts)
      return failed(summary);
    auto wait = f.retry_after
                  ? std::min(*f.retry_after + d.opts.retry_after_buffer,
                             d.opts.max_retry_wait)
                  : d.opts.retry_delays[attempts - 1];
    if (clock_type::now() + wait >= deadline)
      return failed(summary + " (no time left to retry within "
                    + seconds_text(limit) + "s)");
    log->warn("model {} attempt {} failed: {}; retrying in {} ms", model,
              attempts, redact(f.detail, d.choice.api_key), wait.count());
    for (auto left = wait; left.count() > 0;) {
      if (cb.on_retry_wait)
        cb.on_retry_wait("Model request failed, retry in " + seconds_text(left)
                         + "s (attempt " + std::to_string(attempts) + ").");
      auto step = std::min(left, or_forever(d.opts.notice_every));
      if (!d.sleep(step)) {
        // Cancelled, not failed: no fallback model takes the call over.
        last = attempt_failure{failure_kind::cancelled, 0, cancelled_call_text,
                               false, {}};
        return failed(cancelled_call_text);
      }
      left -= step;
    }
  }
}

} // namespace nb
