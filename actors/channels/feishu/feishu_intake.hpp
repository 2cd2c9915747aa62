// What the long connection does with one event payload: parse it, fetch its
// media, hand the message on, and put the reaction on it.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <spdlog/logger.h>

#include "actors/channels/feishu/feishu_api.hpp"
#include "actors/channels/feishu/feishu_event.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::feishu {

class intake {
public:
  intake(const feishu_config& cfg, chan::adapter_front_actor front,
         open_api& api, std::shared_ptr<spdlog::logger> lg);

  /// The bot's open_id for mention checks ("" until known).
  void set_bot(std::string open_id) { ctx_.bot_open_id = std::move(open_id); }

  struct outcome {
    /// The code to acknowledge the frame with; nullopt: not at all (the
    /// message could not be journaled, Feishu has to send it again).
    std::optional<int> ack;
    std::string react_to; ///< message id to react to after the ack
    std::string problem;  ///< why it was not journaled
  };

  /// Takes one data frame's (joined) event payload.
  outcome take(const std::string& payload);

  /// Puts cfg.react_emoji on `message_id` (failures only logged).
  void react(const std::string& message_id);

private:
  void fetch_media(parsed_event& p);
  void remember(const std::string& message_id);

  feishu_config cfg_;
  chan::adapter_front_actor front_;
  open_api& api_;
  std::shared_ptr<spdlog::logger> lg_;
  event_context ctx_;
  std::set<std::string> seen_;
  std::deque<std::string> order_;
};

} // namespace nb::feishu
