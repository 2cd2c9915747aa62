// Printable names of the vocabulary's enums, and type registration.
#include "messages/type_ids.hpp"
#include "messages/memory.hpp"
#include "messages/provider_admin.hpp"
#include "messages/control.hpp"
#include "messages/session_admin.hpp"
#include "messages/webui_api.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/message.hpp>

namespace nb {

std::string to_string(outbound_kind x) {
  switch (x) {
    case outbound_kind::final_reply: return "final_reply";
    case outbound_kind::delta: return "delta";
    case outbound_kind::stream_end: return "stream_end";
    case outbound_kind::progress: return "progress";
    case outbound_kind::retry_wait: return "retry_wait";
  }
  return "outbound_kind(" + std::to_string(static_cast<int>(x)) + ")";
}

std::string to_string(turn_state x) {
  static const char* names[] = {"RESTORE", "COMPACT", "COMMAND", "BUILD",
                                "RUN",     "SAVE",    "RESPOND", "DONE"};
  auto i = static_cast<size_t>(x);
  return i < std::size(names) ? names[i] : "turn_state(" + std::to_string(i) + ")";
}

std::string to_string(turn_event x) {
  static const char* names[] = {"ok", "dispatch", "shortcut", "fail"};
  auto i = static_cast<size_t>(x);
  return i < std::size(names) ? names[i] : "turn_event(" + std::to_string(i) + ")";
}

std::string to_string(errc x) {
  switch (x) {
    case errc::invalid_arguments: return "invalid_arguments";
    case errc::store_failed: return "store_failed";
    case errc::provider_failed: return "provider_failed";
    case errc::config_invalid: return "config_invalid";
    case errc::turn_failed: return "turn_failed";
    case errc::inbox_full: return "inbox_full";
  }
  return "errc(" + std::to_string(static_cast<int>(x)) + ")";
}

void register_messages(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::nb>();
  cfg.add_message_types<caf::id_block::nb_memory>();
  cfg.add_message_types<caf::id_block::nb_admin>();
  cfg.add_message_types<caf::id_block::nb_control>();
  cfg.add_message_types<caf::id_block::nb_sessions>();
  cfg.add_message_types<caf::id_block::nb_webui>();
  // The template overload of add_error_category does not compile in 0.17.6.
  cfg.add_error_category(caf::atom("nb"), [](uint8_t code, caf::atom_value,
                                             const caf::message& ctx) {
    auto text = "nb." + to_string(static_cast<errc>(code));
    if (!ctx.empty())
      text += " " + caf::to_string(ctx);
    return text;
  });
}

} // namespace nb
