// The steps of one turn's loop that the model half (runner.cpp) and the
// tool half (runner_tools.cpp) call in each other. Internal to nb_runner.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "actors/runner/run_end.hpp"
#include "actors/runner/runner.hpp"

namespace nb::runner_steps {

std::string render(runner_pointer self, const caf::error& err);
/// Ends the turn. `streamed`: the user already saw `final_content` as deltas.
void finish(runner_pointer self, std::string final_content,
            turn_stop stop_reason, bool streamed = false);
void add_message(runner_pointer self, nlohmann::json msg);
/// This iteration's model request; `extra_user_prompt` (or null) goes last
/// (runner_request.cpp).
model_request make_request(runner_pointer self, bool with_tools,
                           const char* extra_user_prompt);
void tell_user(runner_pointer self, outbound_kind kind, std::string text);
/// Ends the visible streamed segment; whether it had any text.
bool close_stream_segment(runner_pointer self);
/// Calls the model for this iteration (or ends the turn at the budget).
void model_step(runner_pointer self);
/// Between model calls: takes waiting user messages, then calls the model
/// (runner_interrupts.cpp, with finish_cancelled).
void continue_run(runner_pointer self);
/// Ends a run the user stopped, keeping a legal transcript.
void finish_cancelled(runner_pointer self);
/// A final answer: ends the turn, or carries it on while the session's
/// goal is active (goal_continue.cpp).
void answer_or_continue_goal(runner_pointer self, std::string answer,
                             bool streamed);
/// Runs the next batch of tool calls (runner_tools.cpp).
void execute_batches(runner_pointer self);
/// Runs a reply's tool calls, or holds them while the user's message is
/// not durable yet (runner_settings::hold_tools).
void run_or_hold_tools(runner_pointer self);
/// The session's word that the user's message is durable: held calls run.
void release_held_tools(runner_pointer self);

} // namespace nb::runner_steps
