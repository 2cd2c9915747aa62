// A message as the model is given it, fixed once made: its fields, the
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

/// A message's role as the context governor sorts it, read once when the
/// message is made; none: it has no role string (providers reject it).
enum class message_role : uint8_t { none, system, user, assistant, tool, other };

/// `m`'s role.
message_role role_of_message(const nlohmann::json& m);

class model_message {
public:
  /// Writes the text (invalid UTF-8 replaced, as a request must be valid
  /// JSON) and the estimate.
  explicit model_message(nlohmann::json message);
  /// `text` must be `message`'s compact JSON text, as the caller got it
  /// (a parsed request's element): it is taken as it is.
  model_message(nlohmann::json message, std::string text);
  /// A stored transcript line's: `form` is what the model is given for
  /// `line`. When those fields are the line's own, unchanged (the usual
  /// case), the made message reads them in the line, which it shares,
  /// instead of keeping a second copy of them.
  model_message(std::shared_ptr<const nlohmann::json> line,
                nlohmann::json form);

  /// The model form's fields, to be read by name. A transcript line's made
  /// message reads them in the stored line, beside fields the model is
  /// never sent (timestamp, usage...): copy the message with form().
  const nlohmann::json& fields() const { return line_ ? *line_ : message_; }
  /// Whether fields() holds fields beyond the model form's.
  bool reads_line() const { return line_ != nullptr; }
  /// The model form itself (a copy).
  nlohmann::json form() const;
  const std::string& text() const { return text_; }
  /// estimate_message_tokens(form()).
  int64_t tokens() const { return tokens_; }
  message_role role() const { return role_; }

private:
  nlohmann::json message_; ///< null when the line's fields are read
  std::shared_ptr<const nlohmann::json> line_;
  std::string text_;
  int64_t tokens_ = 0;
  message_role role_ = message_role::none;
};

/// Shared, never changed: a session's transcript and every turn's runner
/// hold the same one.
using shared_model_message = std::shared_ptr<const model_message>;

inline shared_model_message make_model_message(nlohmann::json message) {
  return std::make_shared<const model_message>(std::move(message));
}

/// The fields of `message` a model form can have (role, content,
/// tool_calls, tool_call_id, name), copied: a transcript line's model form
/// when its made message reads the line.
nlohmann::json model_fields_of(const nlohmann::json& message);

} // namespace nb
