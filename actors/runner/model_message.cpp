#include "actors/runner/model_message.hpp"

#include "actors/runner/context_governor.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

/// Every field a model form can have (transcript.cpp's replayable()).
constexpr const char* model_field_names[] = {"role", "content", "tool_calls",
                                             "tool_call_id", "name"};

std::string compact_text_of(const json& m) {
  auto text = m.dump(-1, ' ', false, json::error_handler_t::replace);
  // The dump grew the text by doubling: up to half of it would be spare
  // for as long as a transcript holds the message.
  text.shrink_to_fit();
  return text;
}

/// Whether `form` is exactly `line`'s model fields, unchanged.
bool form_is_line_fields(const json& form, const json& line) {
  if (!form.is_object() || !line.is_object())
    return false;
  size_t matched = 0;
  for (auto* name : model_field_names) {
    auto f = form.find(name);
    auto l = line.find(name);
    if ((f == form.end()) != (l == line.end()))
      return false;
    if (f != form.end() && *f != *l)
      return false;
    matched += f != form.end() ? 1 : 0;
  }
  return matched == form.size(); // no field of another name
}

} // namespace

message_role role_of_message(const json& m) {
  auto r = m.is_object() ? m.find("role") : m.end();
  if (r == m.end() || !r->is_string())
    return message_role::none;
  const auto& s = r->get_ref<const std::string&>();
  if (s == "system") return message_role::system;
  if (s == "user") return message_role::user;
  if (s == "assistant") return message_role::assistant;
  if (s == "tool") return message_role::tool;
  return message_role::other;
}

model_message::model_message(json message)
  : message_(std::move(message)), text_(compact_text_of(message_)),
    tokens_(estimate_message_tokens(message_)),
    role_(role_of_message(message_)) {
}

model_message::model_message(json message, std::string text)
  : message_(std::move(message)), text_(std::move(text)),
    tokens_(estimate_message_tokens(message_)),
    role_(role_of_message(message_)) {
}

model_message::model_message(std::shared_ptr<const json> line, json form)
  : text_(compact_text_of(form)), tokens_(estimate_message_tokens(form)),
    role_(role_of_message(form)) {
  if (line && form_is_line_fields(form, *line))
    line_ = std::move(line);
  else
    message_ = std::move(form);
}

json model_message::form() const {
  return line_ ? model_fields_of(*line_) : message_;
}

json model_fields_of(const json& message) {
  json out = json::object();
  if (!message.is_object())
    return out;
  for (auto* name : model_field_names)
    if (auto i = message.find(name); i != message.end())
      out[name] = *i;
  return out;
}

} // namespace nb
