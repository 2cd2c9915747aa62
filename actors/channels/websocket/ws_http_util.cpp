#include "actors/channels/websocket/ws_http_util.hpp"

#include <cctype>
#include <sstream>

namespace nb::ws {

std::string url_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size()
               && std::isxdigit(static_cast<unsigned char>(s[i + 1]))
               && std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

target_parts split_target(const std::string& target) {
  target_parts out;
  auto q = target.find('?');
  out.path = url_decode(target.substr(0, q));
  if (out.path.size() > 1 && out.path.back() == '/')
    out.path.pop_back();
  if (q == std::string::npos)
    return out;
  std::istringstream in{target.substr(q + 1)};
  std::string pair;
  while (std::getline(in, pair, '&')) {
    auto eq = pair.find('=');
    if (eq != std::string::npos)
      out.query[url_decode(pair.substr(0, eq))] = url_decode(pair.substr(eq + 1));
  }
  return out;
}

const char* content_type(const std::string& name) {
  auto ends = [&](const char* ext) { return name.ends_with(ext); };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "application/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".json")) return "application/json";
  if (ends(".png")) return "image/png";
  return "application/octet-stream";
}

bool plain_name(const std::string& name) {
  if (name.empty() || name[0] == '.')
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-'
        && c != '_')
      return false;
  return true;
}

} // namespace nb::ws
