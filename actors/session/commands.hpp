// Slash commands handled in the COMMAND state, without calling the model.
#pragma once

#include <optional>
#include <string>

namespace nb {

enum class command_kind { none, help, new_session, status, unknown };

/// A message recognised as a command.
struct parsed_command {
  command_kind kind = command_kind::none;
  std::string name; ///< as typed, lower-cased, without '@botname'
  std::string args;
};

/// Parses `text` ("/Help@my_bot", "/new"). Plain text gives kind none.
parsed_command parse_command(const std::string& text);

/// The /help text.
std::string help_text();

/// The reply to an unknown command, with a "did you mean" when one is close.
std::string unknown_command_text(const std::string& name);

} // namespace nb
