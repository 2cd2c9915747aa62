// JSON helpers shared by the wire-format code (internal to the provider).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "messages/model.hpp"

namespace nb::wire {

/// Deeper JSON than this is refused: no completion nests that far, and it
/// keeps recursive walks (dump, destruction) bounded.
inline constexpr int max_depth = 128;

/// Parses without throwing; on failure returns null and `why` says why.
nlohmann::json parse_bounded(std::string_view text, std::string& why);

/// A short, single-line preview of `body` for error messages.
std::string preview(std::string_view body, size_t limit = 120);

/// obj[key] as an integer (0 when absent or not a number), within
/// +-2^53 (larger values, floats too, are clamped to it).
int64_t int_field(const nlohmann::json& obj, const char* key);

/// obj[key] as a string ("" when absent or not a string).
std::string string_field(const nlohmann::json& obj, const char* key);

/// Message content: a string, null, or a list of {type, text} parts.
std::string content_text(const nlohmann::json& content);

/// An OpenAI usage object; total is at least prompt + completion.
token_usage read_usage(const nlohmann::json& usage);

/// Tool-call arguments as text: strings as they are, objects re-serialised,
/// null as "". Malformed text is kept for the runner to reject.
std::string arguments_text(const nlohmann::json& arguments);

/// The message of an {"error": ...} value.
std::string error_message(const nlohmann::json& error);

} // namespace nb::wire
