// Browser: key names the model may press ("Enter", "Tab", "Control+a")
// mapped to what Input.dispatchKeyEvent needs. Pure.
#pragma once

#include <string>

namespace nb {

struct key_press {
  std::string key;  ///< DOM key value: "Enter", "a"
  std::string code; ///< DOM code: "Enter", "KeyA"
  std::string text; ///< what it types ("" for non-printing keys)
  int key_code = 0; ///< Windows virtual key code
  int modifiers = 0; ///< Alt=1, Control=2, Meta=4, Shift=8
  std::string error; ///< "" or why the name is not understood
};

/// Parses "Enter", "ArrowDown", "a", "Shift+Tab", "Control+a".
key_press parse_key(const std::string& spec);

} // namespace nb
