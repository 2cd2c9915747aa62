// The made system messages one agent's sessions share: a chat's prompt is
// the same text as its neighbours' unless its own history or summary is in
// it, so the made message (the prompt as JSON, its compact text and token
// estimate, a few KB) is kept once per distinct prompt instead of once per
// session. The pool holds them weakly: a prompt no live session holds any
// more is gone with its last holder.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>

#include "actors/runner/model_message.hpp"

namespace nb {

class system_message_pool {
public:
  /// The system message for `prompt`: the one a session still holds when
  /// the text is the same (compared, never assumed from the hash), else a
  /// new one.
  shared_model_message get(const std::string& prompt);

  /// Entries kept (live or not yet swept), for tests.
  size_t size() const { return made_.size(); }

private:
  /// Drops the entries whose message every session let go of.
  void sweep();

  std::unordered_multimap<size_t, std::weak_ptr<const model_message>> made_;
  size_t sweep_at_ = 64;
};

} // namespace nb
