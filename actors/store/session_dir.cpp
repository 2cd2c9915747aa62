// Session file names (the per-workspace folder: workspace_namespace.cpp).
#include "actors/store/session_files.hpp"

#include <caf/message.hpp>

namespace nb {

namespace {

std::string base64url(const std::string& in) {
  static constexpr char abc[]
    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  auto byte = [&](size_t k) { return static_cast<unsigned char>(in[k]); };
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += abc[(v >> 6) & 63];
    out += abc[v & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t v = byte(i) << 16;
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
  } else if (i + 2 == in.size()) {
    uint32_t v = (byte(i) << 16) | (byte(i + 1) << 8);
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += abc[(v >> 6) & 63];
  }
  return out;
}

} // namespace

std::string session_file_name(const std::string& key) {
  return base64url(key) + ".jsonl";
}

std::string store_error_text(const caf::error& err) {
  if (!err)
    return {};
  const auto& ctx = err.context();
  if (ctx.size() == 1 && ctx.match_element<std::string>(0))
    return ctx.get_as<std::string>(0);
  return caf::to_string(err);
}

} // namespace nb
