// A provider's saved conversation (OpenAI Responses item replay): what the
// session file keeps on its private provider_state line, what a turn
// resumes from and what each Responses call hands back.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/type_name.hpp>

namespace nb {

/// The original's ProviderConversationState as its private session record:
/// `record` is the "state" object's JSON text ({"kind", "provider", "model",
/// "version", "payload", "pending_messages"}), `pending` the Chat messages
/// (JSON object texts) that follow the record's own pending_messages. The
/// record may be large (encrypted reasoning items): within one process it
/// is shared between the hops, never copied.
struct conversation_state {
  std::shared_ptr<const std::string> record; ///< null: no state
  std::vector<std::string> pending;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, conversation_state& x) {
  // Across a process boundary the record travels as text ("" = none).
  std::string text = x.record ? *x.record : std::string{};
  auto loaded = caf::meta::load_callback([&]() -> caf::error {
    if (text.empty())
      x.record.reset();
    else
      x.record = std::make_shared<const std::string>(std::move(text));
    return caf::none;
  });
  return f(caf::meta::type_name("conversation_state"), text, x.pending,
           loaded);
}

} // namespace nb
