// A message as the model is given it, fixed once made: its JSON object, the
// compact JSON text a request carries for it, and its token estimate, all
// written when it is made. A request is put together from these ready texts
// instead of serialising the history again at every turn, and since nothing
// can change a made message (a changed one is a new message), its text can
// never describe another version of it: there is no cache to invalidate.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace nb {

class model_message {
public:
  /// Writes the text (invalid UTF-8 replaced, as a request must be valid
  /// JSON) and the estimate.
  explicit model_message(nlohmann::json message);
  /// `text` must be `message`'s compact JSON text, as the caller got it
  /// (a parsed request's element): it is taken as it is.
  model_message(nlohmann::json message, std::string text);

  const nlohmann::json& message() const { return message_; }
  const std::string& text() const { return text_; }
  /// estimate_message_tokens(message()).
  int64_t tokens() const { return tokens_; }

private:
  nlohmann::json message_;
  std::string text_;
  int64_t tokens_ = 0;
};

/// Shared, never changed: a session's transcript and every turn's runner
/// hold the same one.
using shared_model_message = std::shared_ptr<const model_message>;

inline shared_model_message make_model_message(nlohmann::json message) {
  return std::make_shared<const model_message>(std::move(message));
}

} // namespace nb
