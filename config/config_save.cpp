#include "config/config_save.hpp"

#include "config/inplace_save.hpp"

namespace nb {

write_result save_config_text(const std::string& path, std::string_view text,
                              std::optional<std::string_view> read_as) {
  auto target = config_target(path);
  // A config dir that is an exec workspace: the sandbox's mask over the
  // file must survive the save (inplace_save.hpp).
  if (config_saves_in_place(target))
    return rewrite_config_in_place(target, text,
                                   read_as ? &*read_as : nullptr);
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
    auto read = read_config_text(path);
    if (!read)
      return {write_outcome::failed, "cannot read " + path};
    auto& current = *read;
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
