// The heartbeat's decisions as pure functions: does HEARTBEAT.md hold an
// active task, what prompt runs it, which chat hears the result, and which
// part of the heartbeat session is kept.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/chat.hpp"
#include "messages/store.hpp"

namespace nb {

/// True when a non-blank, non-comment line sits under an "## Active Tasks"
/// heading ("###" subsections keep the section; any other "##" ends it).
bool heartbeat_has_active_tasks(const std::string& content);

/// The turn's prompt: a fixed preamble, then the file.
std::string heartbeat_prompt(const std::string& content);

/// Where a heartbeat result would go.
struct heartbeat_target {
  std::string channel;
  std::string chat_id;
  std::string session_key() const {
    return channel + ":" + chat_id;
  }
};

/// The most recently active session ("channel:chat") whose channel is in
/// `enabled`, never cli, system or the heartbeat itself, nor one archived
/// in the WebUI; the unified session ("unified:default") stands for the
/// chat its user last wrote from. `sessions` is newest first. nullopt:
/// nobody to tell.
std::optional<heartbeat_target>
pick_heartbeat_target(const std::vector<session_activity>& sessions,
                      const std::set<std::string>& enabled);

/// The last messages to keep: at most `keep`, starting at a user message,
/// so no tool result is cut off from the call that asked for it.
std::vector<nlohmann::json>
retain_recent_turns(const std::vector<nlohmann::json>& messages, size_t keep);

} // namespace nb
