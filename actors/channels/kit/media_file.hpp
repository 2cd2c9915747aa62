// Attachments on disk: the media type a file name suggests, the file name
// a media type suggests, and saving a downloaded attachment under a cap.
#pragma once

#include <cstdint>
#include <string>

namespace nb::chan {

/// "image/jpeg" for "x.JPG" and so on; "application/octet-stream" when the
/// extension is not one of the common ones.
std::string mime_for_path(const std::string& path);

/// ".jpg" for "image/jpeg" (parameters ignored); ".bin" when unknown.
std::string extension_for_mime(const std::string& mime);

/// How a message notes an attachment for the model, as the original
/// does: "[image: <path>]" for pictures, "[file: <path>]" otherwise.
std::string media_tag(const std::string& path);

/// Appends `note` to `content` on a line of its own.
void add_note(std::string& content, const std::string& note);

/// `name` with every character but letters, digits, '.', '-' and '_'
/// turned into '_', never empty and never starting with '.'.
std::string safe_media_name(const std::string& name);

/// Writes `bytes` to `dir`/`name` (the directory is created; `name` is
/// reduced to safe characters) unless it is larger than `max_bytes`.
/// Returns the path, or "" with `error` set.
std::string save_media(const std::string& dir, const std::string& name,
                       const std::string& bytes, int64_t max_bytes,
                       std::string& error);

} // namespace nb::chan
