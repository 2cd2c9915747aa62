#include "actors/provider/retry_policy.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>

#include "actors/provider/wire_json.hpp"
#include "actors/common/strings.hpp"

namespace nb {

namespace {

bool contains_any(const std::string& text,
                  std::initializer_list<std::string_view> markers) {
  return std::any_of(markers.begin(), markers.end(), [&](auto m) {
    return text.find(m) != std::string::npos;
  });
}

/// Parses a non-negative decimal number ("7", "1.5").
std::optional<double> number(std::string_view s) {
  s = trim_view(s);
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s.front()))))
    return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

} // namespace

bool should_retry(const attempt_failure& f, bool streamed_text_shown) {
  if (!f.transient)
    return false;
  return !streamed_text_shown || f.kind == failure_kind::timeout;
}

bool is_quota_error(std::string_view text) {
  return contains_any(
    ascii_lower(text),
    {"insufficient_quota", "insufficient quota", "quota_exceeded",
     "quota exceeded", "quota_exhausted", "quota exhausted", "out of quota",
     "exceeded your current quota", "billing_hard_limit", "billing hard limit",
     "billing_not_active", "billing not active", "insufficient_balance",
     "insufficient balance", "credit_balance_too_low", "credit balance too low",
     "payment_required", "payment required", "out of credits"});
}

bool retryable_status(int status, std::string_view body) {
  if (status == 429)
    return !is_quota_error(body);
  return status == 408 || status == 409 || status >= 500;
}

bool transient_text(std::string_view text) {
  return contains_any(ascii_lower(text),
                      {"rate limit", "rate_limit", "too many requests",
                       "overloaded", "timeout", "timed out",
                       "temporarily unavailable", "server error", "try again"});
}

std::optional<std::chrono::milliseconds>
retry_after_hint(std::string_view retry_after, std::string_view retry_after_ms,
                 std::chrono::system_clock::time_point now) {
  using std::chrono::milliseconds;
  if (auto ms = number(retry_after_ms); ms && *ms > 0)
    return milliseconds{static_cast<int64_t>(*ms)};
  auto text = trim_view(retry_after);
  if (text.empty())
    return std::nullopt;
  if (auto s = number(text))
    return milliseconds{std::max<int64_t>(100, int64_t(*s * 1000))};
  // HTTP date: "Wed, 21 Oct 2015 07:28:00 GMT".
  std::tm tm{};
  std::string copy{text};
  auto* end = strptime(copy.c_str(), "%a, %d %b %Y %H:%M:%S", &tm);
  if (end == nullptr)
    return std::nullopt;
  auto at = std::chrono::system_clock::from_time_t(timegm(&tm));
  auto left = std::chrono::duration_cast<milliseconds>(at - now);
  return std::max(left, milliseconds{100});
}

std::string http_error_detail(int status, std::string_view body) {
  auto out = "HTTP " + std::to_string(status);
  auto t = trim_view(body);
  if (t.empty() || t.front() == '<')
    return out; // an HTML error page says nothing useful in one line
  std::string why;
  auto doc = wire::parse_bounded(t, why);
  std::string msg;
  if (doc.is_object()) {
    if (doc.contains("error") && !doc["error"].is_null())
      msg = wire::error_message(doc["error"]);
    else
      msg = wire::string_field(doc, "message");
  }
  if (msg.empty())
    msg = wire::preview(t, 200);
  return out + ": " + wire::preview(msg, 300);
}

std::string redact(std::string text, std::string_view secret) {
  if (secret.empty())
    return text;
  for (size_t at; (at = text.find(secret)) != std::string::npos;)
    text.replace(at, secret.size(), "***");
  if (secret.size() < 8)
    return text;
  // Providers echo masked fragments ("sk-proj-****abcd"): drop any word
  // holding the key's head or tail.
  auto head = secret.substr(0, std::min<size_t>(8, secret.size() / 2));
  auto tail_len = std::min<size_t>(6, secret.size() / 2);
  auto tail = secret.substr(secret.size() - tail_len);
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    auto end = text.find_first_of(" \t\n\"',;()", i);
    if (end == std::string::npos)
      end = text.size();
    auto word = std::string_view{text}.substr(i, end - i);
    bool leak = word.find(head) != std::string_view::npos
                || word.find(tail) != std::string_view::npos;
    out += leak ? std::string{"***"} : std::string{word};
    if (end < text.size())
      out += text[end];
    i = end + 1;
  }
  return out;
}

std::string seconds_text(std::chrono::milliseconds d) {
  auto s = (d.count() + 500) / 1000;
  return std::to_string(std::max<int64_t>(1, s));
}

} // namespace nb
