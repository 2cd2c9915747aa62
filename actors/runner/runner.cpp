#include "actors/runner/runner.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/spawn_options.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/common/guard.hpp"
#include "actors/common/json_locate.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/common/tool_definition.hpp"
#include "actors/common/utf8.hpp"
#include "actors/runner/context_governor.hpp"
#include "actors/runner/goal_tools.hpp"
#include "actors/runner/reply_messages.hpp"
#include "actors/runner/runner_steps.hpp"
#include "actors/runner/spawn_tool.hpp"
#include "actors/runner/tool_batches.hpp"
#include "actors/runner/turn_texts.hpp"
#include "config/settings.hpp"

namespace nb {

namespace runner_steps {

using json = nlohmann::json;

std::string render(runner_pointer self, const caf::error& err) {
  return self->system().render(err);
}

/// Ends the turn. `streamed`: the user already saw `final_content` as deltas.
void finish(runner_pointer self, std::string final_content,
            turn_stop stop_reason, bool streamed) {
  auto& st = self->state;
  st.outcome.streamed = streamed;
  st.outcome.final_content = std::move(final_content);
  st.outcome.stop_reason = to_string(stop_reason);
  st.outcome.iterations = st.iteration;
  // As the original: once the goal carried the turn on, its last answer
  // goes out even if the message tool wrote to the chat meanwhile.
  if (st.goal_continued)
    st.outcome.delivered_by_tool = false;
  st.outcome.conversation_set =
    st.conversation.finish(st.messages, st.outcome.conversation);
  if (st.model_calls > 0 && st.last_assistant)
    st.outcome.new_messages[st.last_assistant_at] = stamped_with_usage(
      *st.last_assistant, st.usage_sum, st.outcome.usage.prompt_tokens,
      st.model_calls, st.answered_by);
  st.promise.deliver(std::move(st.outcome));
  self->quit();
}

void add_message(runner_pointer self, json msg) {
  auto& st = self->state;
  auto made = make_model_message(std::move(msg));
  if (made->role() == message_role::assistant) {
    st.last_assistant = made;
    st.last_assistant_at = st.outcome.new_messages.size();
  }
  st.outcome.new_messages.push_back(made->text());
  st.messages.push_back(std::move(made));
}

void tell_user(runner_pointer self, outbound_kind kind, std::string text) {
  auto& rq = self->state.request;
  if (!rq.stream_to)
    return;
  outbound_msg out;
  out.channel = rq.channel;
  out.chat_id = rq.chat_id;
  out.session_key = rq.session_key;
  out.kind = kind;
  out.content = std::move(text);
  out.stream_id = rq.turn_id;
  self->send(rq.stream_to, std::move(out));
}

/// Ends the visible streamed segment; returns whether it had any text.
bool close_stream_segment(runner_pointer self) {
  if (!self->state.streaming_segment)
    return false;
  tell_user(self, outbound_kind::stream_end, "");
  self->state.streaming_segment = false;
  return true;
}

/// Counts one model reply's usage and who answered.
void count_reply(runner_pointer self, const model_reply& reply) {
  auto& st = self->state;
  add_usage(st.outcome.usage, reply.usage);
  sum_usage(st.usage_sum, reply.usage);
  ++st.model_calls;
  st.answered_by = reply.fallback_model.empty() ? st.request.model
                                                : reply.fallback_model;
}

/// A model call that must end the turn: no tools, and `fallback` when it
/// yields nothing usable.
void final_request(runner_pointer self, const char* prompt,
                   std::string fallback, turn_stop stop_reason) {
  auto rq = make_request(self, false, prompt);
  timed_request(self, self->state.provider, self->state.model_timeout,
                std::move(rq))
    .then(
      [=](model_reply& reply) {
        count_reply(self, reply);
        self->state.conversation.observe(reply, self->state.messages.size());
        bool streamed = close_stream_segment(self);
        if (reply.finish_reason == "error" || reply.content.empty()) {
          add_message(self, {{"role", "assistant"}, {"content", fallback}});
          finish(self, fallback, stop_reason);
          return;
        }
        add_message(self, {{"role", "assistant"}, {"content", reply.content}});
        finish(self, reply.content, stop_reason, streamed);
      },
      [=](caf::error& err) {
        log::get("runner")->warn("[{}] finalisation failed: {}",
                                 self->state.request.session_key,
                                 render(self, err));
        add_message(self, {{"role", "assistant"}, {"content", fallback}});
        finish(self, fallback, stop_reason);
      });
}

void on_model_reply(runner_pointer self, model_reply& reply) {
  auto& st = self->state;
  count_reply(self, reply);
  st.conversation.observe(reply, st.messages.size());
  if (reply.finish_reason == "error") {
    close_stream_segment(self);
    add_message(self, {{"role", "assistant"}, {"content", texts::reply_unavailable}});
    auto text = reply.error.empty() ? std::string{"Sorry, I encountered an error calling the AI model."}
                                    : reply.error;
    finish(self, std::move(text), turn_stop::error);
    return;
  }
  const auto& fr = reply.finish_reason;
  bool tool_capable = fr == "tool_calls" || fr == "function_call" || fr == "stop"
                      || fr.empty();
  if (!reply.tool_calls.empty() && tool_capable) {
    auto calls = usable_calls(reply, st.iteration);
    if (calls.empty()) {
      // Every call was malformed: say so once, then insist on an answer.
      if (!st.malformed_retry_used) {
        st.malformed_retry_used = true;
        st.messages.push_back(make_model_message(
          {{"role", "user"}, {"content", texts::malformed_calls_note}}));
        ++st.iteration;
        model_step(self);
      } else {
        final_request(self, texts::finalize_after_empty, texts::empty_final,
                      turn_stop::empty_final_response);
      }
      return;
    }
    close_stream_segment(self);
    add_message(self, assistant_with_calls(reply, calls));
    for (auto& c : calls)
      tell_user(self, outbound_kind::progress, hint_for(c));
    st.outcome.tool_calls += static_cast<int32_t>(calls.size());
    st.calls = std::move(calls);
    st.results.assign(st.calls.size(), tool_result{});
    st.batches = partition_tool_calls(st.calls, st.specs);
    st.batch_index = 0;
    run_or_hold_tools(self);
    return;
  }
  if (!reply.tool_calls.empty())
    log::get("runner")->warn("[{}] ignoring tool calls under finish_reason '{}'",
                             st.request.session_key, fr);
  if (reply.content.empty()) {
    if (!st.empty_retry_used) {
      st.empty_retry_used = true;
      model_step(self);
      return;
    }
    final_request(self, texts::finalize_after_empty, texts::empty_final,
                  turn_stop::empty_final_response);
    return;
  }
  bool streamed = close_stream_segment(self);
  json msg{{"role", "assistant"}, {"content", reply.content}};
  keep_reasoning(msg, reply);
  // A refusal is no answer a sustained goal goes on from: the session reads
  // (and drops) this mark before it stores the message.
  bool refused = fr == "refusal" || fr == "content_filter";
  if (refused)
    msg["_finish_reason"] = fr;
  add_message(self, std::move(msg));
  if (refused) {
    finish(self, reply.content, turn_stop::completed, streamed);
    return;
  }
  answer_or_continue_goal(self, reply.content, streamed);
}

void model_step(runner_pointer self) {
  auto& st = self->state;
  if (st.iteration >= st.request.max_iterations) {
    if (!st.request.finalize_on_max_iterations) {
      // The goal's continuation turn carries on: no model call spent on a
      // summary the session drops anyway (the original's fallback text
      // stands in, for the case the continuation does not happen).
      auto text = texts::budget_exhausted(st.request.max_iterations);
      close_stream_segment(self);
      add_message(self, {{"role", "assistant"}, {"content", text}});
      finish(self, std::move(text), turn_stop::max_iterations);
      return;
    }
    final_request(self, texts::finalize_after_budget,
                  texts::budget_exhausted(st.request.max_iterations),
                  turn_stop::max_iterations);
    return;
  }
  timed_request(self, st.provider, st.model_timeout,
                make_request(self, true, nullptr))
    .then([=](model_reply& reply) { on_model_reply(self, reply); },
          [=](caf::error& err) {
            model_reply failed;
            failed.finish_reason = "error";
            failed.error = "Sorry, I could not reach the AI model ("
                           + render(self, err) + ").";
            on_model_reply(self, failed);
          });
}

void start(runner_pointer self) {
  auto& st = self->state;
  st.specs = scoped_specs(std::move(st.specs), st.request.allowed_tools);
  if (st.subagents && st.request.allowed_tools.empty())
    st.specs.push_back(spawn_tool_spec());
  if (st.subagents && st.request.allowed_tools.empty()
      && !st.request.can_message.empty())
    st.specs.push_back(send_to_agent_spec(st.request.can_message));
  // The session keeps the goal state: only a turn of a session has them
  // (a subagent runs with a tool scope and without a session).
  if (st.session && st.request.allowed_tools.empty()) {
    st.specs.push_back(create_goal_spec());
    st.specs.push_back(update_goal_spec());
  }
  // The agent's tools.allow / tools.deny hide the runner's own tools too.
  std::erase_if(st.specs, [&](const tool_spec& s) {
    return !tool_permitted(s.name, st.tools_allow, st.tools_deny);
  });
  st.tools_json = tool_definitions_json(st.specs);
  // The saved conversation covers what came before the turn's message.
  auto& msgs = st.messages;
  bool own_last = !msgs.empty() && msgs.back()->fields().value("role", "") == "user";
  st.conversation.start(std::move(st.given_conversation),
                        own_last ? msgs.size() - 1 : msgs.size());
  model_step(self);
}

} // namespace runner_steps

using namespace runner_steps;

namespace {

/// The turn's messages from a caller's JSON text, each with its text as the
/// caller wrote it: the model requests are put together from these, not
/// from the parsed copies. False when the text is not a JSON array.
bool runner_messages_from_text(runner_state& st, const std::string& text) {
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_array())
    return false;
  auto texts = json_array_elements(text);
  bool as_written = texts.size() == parsed.size();
  st.messages.reserve(parsed.size() + 16);
  for (size_t i = 0; i < parsed.size(); ++i)
    st.messages.push_back(
      as_written ? std::make_shared<const model_message>(
                     std::move(parsed[i]), std::string{texts[i]})
                 : make_model_message(std::move(parsed[i])));
  return true;
}

} // namespace

runner_actor::behavior_type runner_impl(runner_pointer self,
                                        runner_settings settings) {
  auto& st = self->state;
  st.model_provider = std::move(settings.model_provider);
  st.subagents = std::move(settings.subagents);
  st.tools_allow = std::move(settings.tools_allow);
  st.tools_deny = std::move(settings.tools_deny);
  st.offload = std::move(settings.offload);
  st.session = std::move(settings.session);
  st.context_window_tokens = settings.context_window_tokens;
  st.provider = std::move(settings.provider);
  st.tools = std::move(settings.tools);
  st.given_specs = std::move(settings.tool_specs);
  st.model_timeout = settings.model_timeout;
  st.given_conversation = std::move(settings.conversation);
  st.tool_timeout = settings.tool_timeout;
  st.user_unsaved = settings.hold_tools;
  if (settings.messages) {
    st.messages = std::move(*settings.messages);
    st.messages_given = true;
  }
  st.meter.start(self, "runner", std::move(settings.stats), true);
  // A runner lives for one turn: an exception anywhere in it (a handler or
  // a reply callback) fails that turn with a clear error for the session,
  // which stays usable, instead of leaving it waiting for an answer.
  self->set_exception_handler(
    [self](caf::scheduled_actor*, std::exception_ptr& e) -> caf::error {
      auto err = guarded_failure("runner", e);
      auto& st = self->state;
      st.meter.failed();
      if (st.promise.pending())
        st.promise.deliver(err);
      return err;
    });
  return {
    [=](run_turn& rq) -> caf::result<turn_outcome> {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      st.promise = self->make_response_promise<turn_outcome>();
      // Messages the session made come with their texts; a caller's text
      // (subagents, tests) is parsed here.
      if (!st.messages_given && !runner_messages_from_text(st, rq.messages_json)) {
        st.promise.deliver(caf::make_error(errc::turn_failed,
                                           "run_turn: messages are not a JSON array"));
        self->quit();
        return st.promise;
      }
      st.request = std::move(rq);
      if (st.request.sustained_goal) // the provider has no wall clock either
        st.model_timeout = std::max(st.model_timeout,
                                    std::chrono::seconds{std::chrono::hours{24}});
      if (st.cancelled) { // stopped before it began
        finish(self, "", turn_stop::cancelled);
        return st.promise;
      }
      if (!st.tools || st.given_specs) {
        if (st.given_specs)
          st.specs = *st.given_specs;
        start(self);
        return st.promise;
      }
      timed_request(self, st.tools, std::chrono::seconds(30),
                    list_tools_atom::value)
        .then(
          [=](std::vector<tool_spec>& specs) {
            self->state.specs = std::move(specs);
            start(self);
          },
          [=](caf::error& err) {
            log::get("runner")->warn("[{}] tools unavailable this turn: {}",
                                     self->state.request.session_key,
                                     render(self, err));
            start(self);
          });
      return st.promise;
    },
    [=](model_delta& d) {
      auto t = self->state.meter.measure();
      if (!d.hosted_tool.empty()) {
        // A search the provider runs itself: a progress line as for our
        // own tool calls (a tool hint: channels.sendToolHints applies).
        log::get("runner")->info("[{}] provider-hosted tool call: {}({})",
                                 self->state.request.session_key,
                                 d.hosted_tool, utf8_head(d.content, 200));
        tell_user(self, outbound_kind::progress,
                  hosted_hint_for(d.hosted_tool, d.content));
        return;
      }
      if (d.reasoning || d.content.empty())
        return;
      self->state.streaming_segment = true;
      tell_user(self, outbound_kind::delta, std::move(d.content));
    },
    [=](model_retry_notice& n) {
      auto t = self->state.meter.measure();
      tell_user(self, outbound_kind::retry_wait, std::move(n.text));
    },
    [=](injections_ready_atom) { self->state.injections_waiting = true; },
    [=](user_saved_atom) {
      auto t = self->state.meter.measure();
      release_held_tools(self);
    },
    [=](cancel_turn_atom) {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      if (st.cancelled)
        return;
      st.cancelled = true;
      // Messages being handed over are kept: finish once they are in.
      if (!st.taking && st.promise.pending())
        finish_cancelled(self);
    },
  };
}

} // namespace nb
