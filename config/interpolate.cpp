// ${VAR} references in config strings, resolved from the environment.
#include <cctype>

#include "config/pipeline.hpp"

namespace nb::config {

namespace {

bool name_char(char c, bool first) {
  auto u = static_cast<unsigned char>(c);
  return c == '_' || std::isalpha(u) || (!first && std::isdigit(u));
}

} // namespace

interpolation interpolate(std::string_view text, const env_lookup& env) {
  // nanobot's syntax: ${NAME} with NAME = [A-Za-z_][A-Za-z0-9_]*, no
  // defaults, no escapes; anything else is literal text.
  interpolation out;
  size_t pos = 0;
  while (pos < text.size()) {
    auto open = text.find("${", pos);
    if (open == text.npos)
      break;
    auto close = text.find('}', open + 2);
    auto name = close == text.npos ? std::string_view{}
                                   : text.substr(open + 2, close - open - 2);
    bool valid = !name.empty();
    for (size_t i = 0; valid && i < name.size(); ++i)
      valid = name_char(name[i], i == 0);
    if (!valid) {
      out.text.append(text.substr(pos, open + 2 - pos));
      pos = open + 2;
      continue;
    }
    out.text.append(text.substr(pos, open - pos));
    if (auto value = env(std::string{name}))
      out.text += *value;
    else
      out.missing.emplace_back(name);
    pos = close + 1;
  }
  out.text.append(text.substr(std::min(pos, text.size())));
  return out;
}

} // namespace nb::config
