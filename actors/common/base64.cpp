#include "actors/common/base64.hpp"

#include <cstdint>

namespace nb {

namespace {

constexpr std::string_view alphabet
  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int value_of(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

} // namespace

std::string base64_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  uint32_t val = 0;
  int bits = -6;
  for (unsigned char c : in) {
    val = (val << 8) | c;
    bits += 8;
    while (bits >= 0) {
      out += alphabet[(val >> bits) & 0x3F];
      bits -= 6;
    }
  }
  if (bits > -6)
    out += alphabet[((val << 8) >> (bits + 8)) & 0x3F];
  while (out.size() % 4 != 0)
    out += '=';
  return out;
}

std::optional<std::string> base64_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size() / 4 * 3);
  uint32_t val = 0;
  int bits = -8;
  bool padded = false;
  size_t symbols = 0;
  for (char c : in) {
    if (is_space(c))
      continue;
    if (c == '=') {
      padded = true;
      continue;
    }
    auto v = value_of(c);
    if (v < 0 || padded)
      return std::nullopt;
    ++symbols;
    val = (val << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 0) {
      out += static_cast<char>((val >> bits) & 0xFF);
      bits -= 8;
    }
  }
  if (symbols % 4 == 1) // six bits left over: not even one byte
    return std::nullopt;
  return out;
}

} // namespace nb
