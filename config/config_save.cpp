#include "config/config_save.hpp"

#include <filesystem>

#include "actors/common/file_text.hpp"

namespace nb {

namespace {

/// The target of a symlinked config.json: the file a save replaces.
std::string config_target(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_symlink(path, ec)) {
    auto real = std::filesystem::canonical(path, ec);
    if (!ec)
      return real.string();
  }
  return path;
}

} // namespace

write_result save_config_text(const std::string& path, std::string_view text,
                              std::optional<std::string_view> read_as) {
  auto target = config_target(path);
  if (read_as)
    return replace_file_if_unchanged(target, text, *read_as, 0600,
                                     existing_mode::replace);
  return replace_file_atomic(target, text, 0600, existing_mode::replace);
}

write_result edit_config_file(
  const std::string& path,
  const std::function<std::optional<std::string>(const std::string& current)>&
    make) {
  constexpr int attempts = 5;
  for (int i = 0; i < attempts; ++i) {
    auto current = read_file_text(path);
    auto text = make(current);
    if (!text)
      return {write_outcome::kept, {}};
    auto w = save_config_text(path, *text, std::string_view{current});
    if (w.outcome != write_outcome::kept)
      return w;
  }
  return {write_outcome::failed,
          "cannot save " + path + ": it changed under each of "
            + std::to_string(attempts) + " attempts (another program is "
                                          "writing it)"};
}

} // namespace nb
