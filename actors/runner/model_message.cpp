#include "actors/runner/model_message.hpp"

#include "actors/runner/context_governor.hpp"

namespace nb {

model_message::model_message(nlohmann::json message)
  : message_(std::move(message)),
    text_(message_.dump(-1, ' ', false,
                        nlohmann::json::error_handler_t::replace)),
    tokens_(estimate_message_tokens(message_)) {
  // The dump grew the text by doubling: up to half of it would be spare
  // for as long as a transcript holds the message.
  text_.shrink_to_fit();
}

model_message::model_message(nlohmann::json message, std::string text)
  : message_(std::move(message)), text_(std::move(text)),
    tokens_(estimate_message_tokens(message_)) {
}

} // namespace nb
