// The governor's outputs: the token estimate, the input budget, and the
// governed list as JSON (a copy) or as the request's JSON text (written
// straight from the input, taking each untouched message's text from the
// caller's cache when it has one: no copy, no re-serialisation).
#include "actors/runner/context_governor.hpp"

#include "actors/runner/governor_steps.hpp"

namespace nb {

namespace governor {

namespace {

using json = nlohmann::json;

constexpr int64_t safety_buffer = 1024;

/// The size of `j`'s compact JSON text, escapes counted as one byte.
size_t json_size(const json& j) {
  switch (j.type()) {
    case json::value_t::string:
      return j.get_ref<const std::string&>().size() + 2;
    case json::value_t::object: {
      size_t n = 2 + (j.empty() ? 0 : j.size() - 1);
      for (auto it = j.begin(); it != j.end(); ++it)
        n += it.key().size() + 3 + json_size(it.value());
      return n;
    }
    case json::value_t::array: {
      size_t n = 2 + (j.empty() ? 0 : j.size() - 1);
      for (auto& x : j)
        n += json_size(x);
      return n;
    }
    case json::value_t::boolean: return j.get<bool>() ? 4 : 5;
    case json::value_t::null: return 4;
    case json::value_t::number_float: return 12;
    default: return 8; // integers
  }
}

} // namespace

int64_t message_tokens(const json& m) {
  return static_cast<int64_t>((json_size(m) + 3) / 4) + 4;
}

} // namespace governor

int64_t input_budget(const governor_limits& limits) {
  auto b = limits.context_window_tokens - limits.max_output_tokens
           - governor::safety_buffer;
  return b > 0 ? b : std::max<int64_t>(128, limits.context_window_tokens / 2);
}

int64_t estimate_tokens(const nlohmann::json& messages) {
  if (!messages.is_array())
    return 0;
  int64_t t = 0;
  for (auto& m : messages)
    t += governor::message_tokens(m);
  return t;
}

int64_t estimate_message_tokens(const nlohmann::json& message) {
  return governor::message_tokens(message);
}

namespace {

/// Views of `messages`' elements; none when it is not an array.
std::vector<governor::input> inputs_of(const nlohmann::json& messages) {
  std::vector<governor::input> in;
  if (!messages.is_array())
    return in;
  in.reserve(messages.size());
  for (auto& m : messages)
    in.push_back({&m, -1, false, std::nullopt});
  return in;
}

/// The governed list as compact JSON text; `ready(i)` gives input i's text
/// when there is one (nullptr: written here).
template <class Ready>
std::string governed_text(const governor::entries& es, Ready ready) {
  size_t reserve = 2;
  for (auto& e : es) {
    auto* t = e.owned ? nullptr : ready(e.index);
    reserve += (t ? t->size() : 256) + 1;
  }
  std::string out;
  out.reserve(reserve);
  out += '[';
  for (auto& e : es) {
    if (out.size() > 1)
      out += ',';
    if (auto* t = e.owned ? nullptr : ready(e.index))
      out += *t;
    else
      out += e.get().dump(-1, ' ', false,
                          nlohmann::json::error_handler_t::replace);
  }
  out += ']';
  return out;
}

} // namespace

nlohmann::json govern_messages(const nlohmann::json& messages,
                               const governor_limits& limits) {
  try {
    auto es = governor::govern_entries(inputs_of(messages), limits);
    auto out = nlohmann::json::array();
    auto& arr = out.get_ref<nlohmann::json::array_t&>();
    arr.reserve(es.size());
    for (auto& e : es)
      arr.push_back(e.owned ? std::move(e.own) : *e.orig);
    return out;
  } catch (...) {
    // Only allocation failure can get here; an empty request is better
    // than an exception escaping into the runner actor.
    return nlohmann::json::array();
  }
}

std::string govern_messages_text(const nlohmann::json& messages,
                                 const governor_limits& limits) {
  try {
    auto es = governor::govern_entries(inputs_of(messages), limits);
    return governed_text(es, [](size_t) -> const std::string* {
      return nullptr;
    });
  } catch (...) {
    return "[]"; // as govern_messages
  }
}

std::string govern_messages_text(
  const std::vector<shared_model_message>& messages,
  const governor_limits& limits) {
  try {
    std::vector<governor::input> in;
    in.reserve(messages.size());
    for (auto& m : messages)
      in.push_back({&m->fields(), m->tokens(), m->reads_line(), m->role()});
    auto es = governor::govern_entries(in, limits);
    return governed_text(es, [&](size_t i) { return &messages[i]->text(); });
  } catch (...) {
    return "[]";
  }
}

} // namespace nb
