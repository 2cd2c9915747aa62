// Images attached to a user message, as OpenAI content parts with data URLs
// (the turn's message, and the store's provider_state pending messages).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb {

/// Largest image file sent inline.
inline constexpr size_t max_inline_image_bytes = 10 * 1024 * 1024;

/// The MIME type of an image from its first bytes (PNG, JPEG, GIF, WebP),
/// "" when it is not one of those.
std::string sniff_image_mime(const std::string& head);

/// The content of a user message: `text` alone when no attachment is a
/// readable image, else image_url parts (data URLs) followed by one text
/// part. Attachments that are not images are named in the text so the agent
/// can read them with its tools. Blocking (reads files); never throws.
nlohmann::json user_content(const std::string& text,
                            const std::vector<std::string>& media);

} // namespace nb
