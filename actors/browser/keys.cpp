#include "actors/browser/keys.hpp"
#include "actors/common/strings.hpp"

#include <cctype>
#include <map>

namespace nb {

namespace {

struct named_key {
  const char* code;
  int key_code;
  const char* text;
};

const std::map<std::string, named_key>& named_keys() {
  static const std::map<std::string, named_key> keys{
    {"Enter", {"Enter", 13, "\r"}},       {"Tab", {"Tab", 9, ""}},
    {"Escape", {"Escape", 27, ""}},       {"Backspace", {"Backspace", 8, ""}},
    {"Delete", {"Delete", 46, ""}},       {"ArrowUp", {"ArrowUp", 38, ""}},
    {"ArrowDown", {"ArrowDown", 40, ""}}, {"ArrowLeft", {"ArrowLeft", 37, ""}},
    {"ArrowRight", {"ArrowRight", 39, ""}}, {"Home", {"Home", 36, ""}},
    {"End", {"End", 35, ""}},             {"PageUp", {"PageUp", 33, ""}},
    {"PageDown", {"PageDown", 34, ""}},   {"Space", {"Space", 32, " "}},
    {"Insert", {"Insert", 45, ""}},
  };
  return keys;
}

} // namespace

key_press parse_key(const std::string& spec) {
  key_press k;
  std::string rest = spec;
  // Modifiers first: "Control+Shift+a". A lone "+" is the plus key.
  for (;;) {
    auto plus = rest.find('+');
    if (plus == std::string::npos || plus == 0 || plus + 1 == rest.size())
      break;
    auto mod = ascii_lower(rest.substr(0, plus));
    if (mod == "alt")
      k.modifiers |= 1;
    else if (mod == "control" || mod == "ctrl")
      k.modifiers |= 2;
    else if (mod == "meta" || mod == "cmd" || mod == "command")
      k.modifiers |= 4;
    else if (mod == "shift")
      k.modifiers |= 8;
    else
      break;
    rest = rest.substr(plus + 1);
  }
  for (auto& [name, nk] : named_keys()) {
    if (ascii_lower(name) == ascii_lower(rest)
        || (name == "Escape" && ascii_lower(rest) == "esc")
        || (name == "Enter" && ascii_lower(rest) == "return")) {
      k.key = name == "Space" ? " " : name;
      k.code = nk.code;
      k.key_code = nk.key_code;
      k.text = (k.modifiers & 7) ? "" : nk.text;
      return k;
    }
  }
  if (rest.size() == 1) {
    unsigned char c = static_cast<unsigned char>(rest[0]);
    k.key = rest;
    if (std::isalpha(c)) {
      k.code = std::string{"Key"} + static_cast<char>(std::toupper(c));
      k.key_code = std::toupper(c);
    } else if (std::isdigit(c)) {
      k.code = std::string{"Digit"} + rest;
      k.key_code = c;
    } else {
      k.key_code = 0;
    }
    // With Control, Alt or Meta it is a shortcut, not typing.
    k.text = (k.modifiers & 7) ? "" : rest;
    return k;
  }
  k.error = "unknown key \"" + spec
            + "\" (use a character, Enter, Tab, Escape, Backspace, Delete, "
              "Arrow{Up,Down,Left,Right}, Home, End, PageUp, PageDown, "
              "Space, with Control+/Shift+/Alt+/Meta+)";
  return k;
}

} // namespace nb
