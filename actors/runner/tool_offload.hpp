// Tool-result offload: a result too long for the context is written to
// <workspace>/.nanobot/tool-results/<session>/<call_id>.txt and replaced by a
// short note with the path, the original size and a preview. read_file is
// exempt (it is how the agent reads such files back).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace nb {

struct offload_settings {
  std::string workspace;        ///< absolute; "" = never offload
  size_t max_chars = 16000;     ///< longer results are offloaded (bytes)
  size_t preview_chars = 1200;
  std::chrono::hours max_age{24 * 7}; ///< older buckets are removed
  size_t max_buckets = 32;            ///< newest kept
};

/// The tool-results folder of `session_key` ('<>:"/\|?*' become '_').
std::string offload_bucket(const std::string& workspace,
                           const std::string& session_key);

/// Offloads `content` when it is longer than `max_chars` and `tool` is not
/// read_file: writes it atomically (an existing file is kept as it is) and
/// returns the note that replaces it. nullopt: keep the content (short,
/// exempt, or the write failed). Never throws. Blocking: call it off the
/// scheduler threads.
std::optional<std::string> offload_tool_result(const offload_settings& cfg,
                                               const std::string& session_key,
                                               const std::string& call_id,
                                               const std::string& tool,
                                               const std::string& content);

/// Removes buckets other than `keep` that are older than `max_age`, then the
/// oldest beyond `max_buckets`. Never throws.
void cleanup_offload_buckets(const offload_settings& cfg,
                             const std::string& keep);

} // namespace nb
