// SKILL.md front matter: the small YAML subset skills use, read without a
// YAML library (flat "key: value" lines; metadata as inline JSON or as one
// nested block of "key: value" / "- item" lines).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nb {

struct front_matter {
  nlohmann::json fields = nlohmann::json::object(); ///< parsed keys
  std::string body; ///< the text after the closing '---'
  bool present = false; ///< the file opened with a '---' block
  std::string error;    ///< why the block could not be read ("" = fine)
};

/// Splits `text` into front matter and body. CRLF line ends are accepted.
front_matter parse_front_matter(const std::string& text);

} // namespace nb
