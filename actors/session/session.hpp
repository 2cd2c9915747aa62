// One actor per session key: owns that conversation's transcript and runs
// its turns strictly one after another through the seven-state machine.
#pragma once

#include <chrono>
#include <cstdint>
#include <list>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <caf/actor_clock.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/common/request_deadlines.hpp"
#include "actors/runner/run_end.hpp"
#include "actors/session/archive.hpp"
#include "actors/session/commands.hpp"
#include "actors/session/model_choice.hpp"
#include "actors/session/prompt.hpp"
#include "actors/session/running_turn.hpp"
#include "actors/session/turn_machine.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"
#include "messages/goal.hpp"
#include "messages/session_admin.hpp"

namespace nb {

/// What a session needs from the configuration, fixed at spawn.
struct session_config {
  std::string agent = "main"; ///< the agent whose session this is
  std::string agent_name;     ///< its agents.list[].name ("" = none)
  std::vector<std::string> can_message; ///< whom send_to_agent may ask
  /// The agent's tools.allow / tools.deny, for the tools its runner offers
  /// itself (spawn, send_to_agent, create_goal, update_goal); the tools
  /// front applies them to the rest.
  std::vector<std::string> tools_allow, tools_deny;
  std::string model;
  int32_t max_tokens = 0;
  int32_t context_window_tokens = 65536;
  double temperature = -1;
  int32_t max_iterations = 20;
  std::string workspace; ///< absolute
  std::chrono::seconds model_timeout{1260};
  std::chrono::seconds tool_timeout{900};
  std::chrono::seconds store_timeout{60};
  std::chrono::seconds idle{600}; ///< offer to quit after this long unused
  size_t replay_limit = 200;      ///< messages replayed to the model at most
  /// A chat idle this long has its unarchived turns archived (0 = never).
  std::chrono::milliseconds idle_compact_after{std::chrono::minutes(15)};
  /// How often an idle session checks whether that time has come.
  std::chrono::milliseconds idle_compact_check{std::chrono::seconds(60)};
  size_t max_tool_result_chars = 16000; ///< longer results go to a file
  bool unified_session = false;         ///< agents.defaults.unifiedSession
  /// agents.defaults.disabledSkills: never offered, nor listed by /skill.
  std::vector<std::string> disabled_skills;
  /// The config file's directory: its plugin-data/ says which Agent
  /// Plugins (<workspace>/plugins/*) are enabled ("" = none are).
  std::string config_dir;
  /// tools.cliApps.enable: the turn's runtime context names the CLI apps
  /// its message attaches or mentions (session_cli_apps.cpp).
  bool cli_apps = true;
  int64_t started_at_us = 0;      ///< process start, for /status uptime
  model_catalog models; ///< agents.defaults and modelPresets, for /model
  /// agents.defaults.timezone, loaded once and shared read-only by every
  /// session; null = the host's zone.
  std::shared_ptr<const cron::time_zone> zone;
  /// A temporary chat (the WebUI's, issue 20): the router gives it a
  /// memory store, so its transcript never reaches the disk; it is never
  /// archived into memory (history.jsonl, MEMORY.md) and a large tool
  /// result is cut short rather than offloaded to a file.
  bool temporary = false;
};

session_config make_session_config(const settings& cfg);

struct session_state {
  session_state() = default;
  static inline const char* name = "session";

  std::string key;
  session_config cfg;
  session_services svc;
  router_actor router;
  actor_meter meter;
  std::shared_ptr<spdlog::logger> log;
  system_prompt_cache prompt; ///< without a workspace actor
  /// The timeouts of its pending requests (timed_request).
  request_deadlines deadlines;

  bool loaded = false;                ///< transcript read from disk
  /// The file has a provider_state line: each turn reads it at BUILD.
  bool has_conversation = false;
  /// The messages from number `base` of the session file on: those before
  /// are archived and dropped from memory (session_window.cpp).
  transcript_entries transcript;
  size_t base = 0;
  /// The usage the dropped messages recorded, by model (for /stats).
  nlohmann::json earlier_usage = nlohmann::json::object();
  int64_t received = 0;               ///< inbound messages seen
  int turn_number = 0;
  std::string model;                  ///< this session's model (/model)
  model_runtime runtime;              ///< its preset and settings (/model)
  bool preset_unsaved = false; ///< switched mid-turn: saved at the turn's end
  token_usage last_usage;             ///< of the last finished turn
  token_usage last_turn_sum;          ///< its requests added up

  // Archiving (session_archive.cpp).
  std::string summary;       ///< archived summary of consolidated turns
  std::string summary_at;    ///< when the summarised conversation was active
  size_t archived = 0;       ///< messages before this index are archived
  bool archiving = false;    ///< a worker is summarising a range
  size_t archiving_upto = 0; ///< the end of that range
  bool meta_dirty = false;   ///< the archive mark is not on disk yet
  bool meta_writing = false;
  /// The last mark's rewrite, which kept every message line as the file
  /// has it, failed (a file cut short behind our back): the next one
  /// writes the held messages out, as it did before.
  bool meta_rewrite_held = false;
  int generation = 0;        ///< bumped by /new: stale archive replies
  /// Archive workers still running (also those of a cleared conversation):
  /// a flush waits for them, so `agent -m "/new"` saves its archive.
  int background = 0;
  std::vector<caf::typed_response_promise<bool>> flush_waiters;
  int64_t prompt_tokens = 0; ///< estimate of the last system prompt
  /// The last turn's system message: the workspace actor's, shared with the
  /// agent's other sessions of the same prompt, or made once per change.
  shared_model_message system_message;
  replay_estimate replay; ///< the replay's estimate, kept between turns
  /// The session file's metadata object as loaded; the archive mark is
  /// merged into it so other keys in it survive our writes.
  nlohmann::json file_meta = nlohmann::json::object();
  /// The last turn's end (the actor's clock, simulated in timer tests).
  caf::actor_clock::time_point last_active;

  /// Messages that arrived while a turn ran, in arrival order: the runner
  /// takes plain ones for injection, the rest start turns afterwards.
  /// A list: an empty one allocates nothing (an empty deque holds a block).
  std::list<inbound_msg> pending;
  /// The gateway is stopping (a flush arrived): the running turn may end,
  /// nothing new starts; what waits stays queued (in the inbox journal).
  bool draining = false;

  // The turn in progress: its state machine, and its own data while it
  // runs (made at RESTORE, dropped at DONE; out of line, so an idle
  // session's actor is 600 bytes smaller).
  turn_machine machine;
  std::unique_ptr<running_turn> turn;

  // Sustained goals (session_goal.cpp). The goal itself lives in
  // file_meta ("goal_state"), as the original keeps it.
  /// Bumped by /stop and /new: continuation turns scheduled before are void.
  int goal_epoch = 0;
  bool continuation_queued = false; ///< one is on its way to this session

  // Semantic memory (session_recall.cpp).
  std::string memory_mode; ///< the last recall's mode, for /status

  /// The tools front's catalog, kept between turns; the front sends each
  /// newer one (session_run.cpp). Without specs, or incomplete, the next
  /// turn asks for it.
  tool_catalog tools;
  bool tools_catalog_unsupported = false; ///< the tools actor has none
};

/// Sessions answer the narrow session_actor, the WebUI's session_admin and
/// their runner's goal calls.
using session_pointer = session_goal_view::stateful_pointer<session_state>;

/// Spawned by the router for `key`.
session_goal_view::behavior_type
session_impl(session_pointer self, std::string key, session_config cfg,
             session_services svc, router_actor router);

// -- the turn, state by state (session_turn.cpp) ----------------------------

/// Enters the machine's current state and starts its work.
void enter_state(session_pointer self);

/// Ends the current state's work with `event` and moves on.
void fire(session_pointer self, turn_event event);

/// Ends the current state's work with a failure the user will be told about.
void fail(session_pointer self, std::string what);

/// Back to accepting messages (session.cpp).
void turn_finished(session_pointer self);

/// Sends `msg` to the turn's reply sink, or to the outbox.
void deliver(session_pointer self, outbound_msg msg);

/// Sends `msg` to `in`'s reply sink, or to the outbox.
void deliver_to(session_pointer self, const inbound_msg& in, outbound_msg msg);

/// Builds what a slash command may see of this session.
command_context command_context_for(session_pointer self);

/// Cancels the running turn: its runner stops with the work done so far.
/// Returns how many tasks were asked to stop.
int32_t cancel_turn(session_pointer self, outbound_sink by);

// -- archiving (session_archive.cpp) ---------------------------------------

/// Reads the archive mark and summary from the session file's metadata.
void load_memory_meta(session_pointer self, const std::string& metadata_json);

/// Keeps a catalog its tools front sent (session_run.cpp).
void keep_tool_catalog(session_pointer self, tool_catalog& c);

/// Records the archive mark in the session file (only between turns).
void write_memory_meta(session_pointer self);

/// Archives messages [from, upto) in the background.
void archive_range(session_pointer self, size_t from, size_t upto);

/// The COMPACT state: starts archiving when the chat was idle or the replay
/// no longer fits, never waiting for it.
void do_compact(session_pointer self);

/// /new: archives what is not archived yet in the background and empties
/// the session file; `then` runs once the empty file is on disk.
void clear_session(session_pointer self, std::function<void()> then,
                   std::function<void(const caf::error&)> failed);

/// The idle tick between turns (every cfg.idle_compact_check): archives
/// the whole unarchived tail of a chat idle for cfg.idle_compact_after.
void idle_compact_tick(session_pointer self);

/// Whether archiving work would be lost if the actor quit now (a summary
/// running, the mark not written yet, or an idle compaction still due).
bool archive_work_pending(session_pointer self);

/// One archive worker finished: a flush waiting for the session's
/// background work is answered when it was the last.
void background_done(session_pointer self);

// -- the transcript's window (session_window.cpp) ---------------------------

/// All messages of the session file: the dropped ones and those held.
size_t message_count(const session_state& st);

/// Between turns: drops archived messages the replay can no longer reach
/// (in batches; /history's last messages stay).
void forget_archived(session_pointer self);

// -- model choice and usage (session_model.cpp) ----------------------------

/// Reads the chosen preset from the session file's metadata at RESTORE, and
/// the last turn's usage from its assistant record.
void load_model_choice(session_pointer self, const std::string& metadata_json);

/// After a command: switches to the preset its reply asks for (/model).
/// True if the preset changed.
bool adopt_model_choice(session_pointer self, const command_reply& reply);

/// Writes the chosen preset into the session file's metadata (the whole
/// file is rewritten, so only between turns or in the COMMAND state);
/// `then` runs once it is durable (a failure fails the state if `then` is
/// set, else it is logged and retried after the next turn).
void save_model_choice(session_pointer self, std::function<void()> then);

/// The usage on the last assistant record of `msgs` that has one: the
/// turn's requests summed, and the context size (prompt_tokens) with the
/// completion and cached figures. False when none has usage.
bool last_recorded_usage(const std::vector<nlohmann::json>& msgs,
                         token_usage& sum, token_usage& context);
bool last_recorded_usage(const transcript_entries& msgs, token_usage& sum,
                         token_usage& context);

/// Handles a message that arrived while a turn runs (session_busy.cpp).
void while_busy(session_pointer self, inbound_msg in);

/// Hands out up to three plain messages waiting for injection.
std::vector<inbound_msg> take_injections(session_pointer self);
// -- durable injections (session_injected.cpp) -----------------------------
/// The runner's take_injections request: hands out waiting messages once
/// they are appended to the session file (a crash mid-turn keeps them).
caf::result<std::vector<inbound_msg>> hand_out_injections(session_pointer self);
/// SAVE with injections already on disk: puts the turn's messages in turn
/// order (each injected one once) and rewrites the whole file; `then` runs
/// once it is durable.
void save_rewritten(session_pointer self, std::vector<nlohmann::json> msgs,
                    std::function<void()> then);
/// Puts the early-persisted injections into `msgs` (the runner's copies
/// replaced by them, any the runner lost appended). True if some were lost.
bool merge_injected(session_pointer self, std::vector<nlohmann::json>& msgs);

/// Steady-clock microseconds.
int64_t now_us();

// -- the WebUI's changes (session_admin.cpp) ---------------------------------

/// Renames, archives or deletes this session (between turns only: a busy
/// session defers it). The cached metadata changes first, so later writes
/// keep it; deleting empties the conversation without archiving it.
caf::result<caf::ok_atom> apply_admin(session_pointer self, session_admin& a);

/// agents.defaults.unifiedSession: records the chat this turn's message came
/// from as the session's "last_channel" (the original's metadata key, where
/// the heartbeat finds whom to tell), when it changed.
void remember_route(session_pointer self);

/// The metadata change (a JSON merge patch) of a rename, archive or
/// unarchive; null for any other op.
nlohmann::json admin_meta_patch(const session_admin& a);

// -- sustained goals (session_goal.cpp) -------------------------------------

/// The running turn's create_goal or update_goal call: the new state is
/// stored (a metadata patch of the session file) before the answer.
caf::result<tool_result> goal_call(session_pointer self, goal_tool_call& g);

/// The runner's question at a final answer: the user message that
/// continues the active goal within the turn, "" when no goal is active.
std::string goal_continue_text(session_pointer self);

/// For the WebUI: a goal_status event ("running" as the model is called,
/// "idle" at the turn's end) on WebSocket turns; nothing elsewhere.
void goal_status_event(session_pointer self, const char* status);

/// SAVE, once the turn is stored: schedules the next continuation turn
/// while the goal stays active (bounded), through the durable inbox when
/// there is one (else the router), or clears the round count once the goal
/// ended; then `then`.
void after_goal_turn(session_pointer self, std::function<void()> then);

/// Whether the running turn works on a sustained goal (one active, or
/// /goal starting one): its model requests have no wall clock.
bool sustained_goal_turn(session_pointer self);

/// Whether a continuation turn would follow the running turn if it ended at
/// its iteration limit now (the original's should_finalize_on_max_iterations
/// negated): the runner then skips its no-tools summary.
bool goal_continues_at_limit(session_pointer self);

/// SAVE: whether the turn, as it ended, is followed by a continuation turn
/// (what after_goal_turn is about to queue).
bool goal_goes_on(session_pointer self);

/// A message that is an internal goal continuation.
bool is_goal_continuation(const inbound_msg& in);

/// COMMAND: a continuation that /stop or /new made void, or whose goal
/// ended, is dropped (true: the turn ends here, quietly).
bool drop_void_continuation(session_pointer self);

/// /stop and /new: continuation turns already scheduled never run.
void void_continuations(session_pointer self);

/// The goal lines for the runtime context ("" without an active goal)
/// and the guidance after it ("" when no goal is active or starting).
std::string goal_context_lines(session_pointer self);
std::string goal_guidance(session_pointer self);

// -- the durable inbox (session_inbox.cpp) ----------------------------------

/// Reads the attached images on its own thread and answers get_atom with
/// the user message content (JSON text) (session_inputs.cpp).
caf::behavior media_worker(caf::event_based_actor* self, std::string text,
                           std::vector<std::string> media);

/// Asks the agent's workspace actor for this turn's system prompt, then
/// `then`; without one, `then` at once (session_inputs.cpp).
void fetch_prompt(session_pointer self, std::function<void()> then);

/// Tells the inbox that `in` is stored (or answered): its entry may go.
void settle_inbox(session_pointer self, const inbound_msg& in);

// -- the user's message, saved while the model is asked (session_user_save.cpp)

/// BUILD: appends the turn's user message to the session file without
/// waiting for it; the message joins the transcript at once (the model's
/// input ends with it) and leaves it again if the append fails.
void save_user_message(session_pointer self);

/// Runs `then` once the append save_user_message started has its outcome
/// (at once when none is out): the turn's user_persisted or
/// user_save_error says which.
void when_user_saved(session_pointer self, std::function<void()> then);

/// A message the inbox re-delivered after a restart that this session had
/// stored already (its "_inbox" id is in the transcript): true when it is.
bool already_stored(session_pointer self, const inbound_msg& in);

} // namespace nb
