#include "actors/channels/kit/media_file.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>

#include "actors/common/strings.hpp"

namespace nb::chan {

namespace {

struct media_type {
  const char* ext;
  const char* mime;
};

// The first row for a media type gives its extension.
constexpr media_type types[] = {
  {".jpg", "image/jpeg"},  {".jpeg", "image/jpeg"}, {".png", "image/png"},
  {".gif", "image/gif"},   {".webp", "image/webp"}, {".mp4", "video/mp4"},
  {".3gp", "video/3gpp"},  {".ogg", "audio/ogg"},   {".opus", "audio/ogg"},
  {".mp3", "audio/mpeg"},  {".m4a", "audio/mp4"},   {".aac", "audio/aac"},
  {".amr", "audio/amr"},   {".wav", "audio/wav"},   {".pdf", "application/pdf"},
  {".txt", "text/plain"},  {".csv", "text/csv"},    {".json", "application/json"},
  {".zip", "application/zip"},
  {".doc", "application/msword"},
  {".docx",
   "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
  {".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
  {".pptx",
   "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
};

} // namespace

std::string mime_for_path(const std::string& path) {
  auto dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos)
    return "application/octet-stream";
  auto ext = ascii_lower(path.substr(dot));
  for (const auto& t : types)
    if (ext == t.ext)
      return t.mime;
  return "application/octet-stream";
}

std::string extension_for_mime(const std::string& mime) {
  auto bare = ascii_lower(trim_space(mime.substr(0, mime.find(';'))));
  for (const auto& t : types)
    if (bare == t.mime)
      return t.ext;
  return ".bin";
}

std::string media_tag(const std::string& path) {
  bool image = mime_for_path(path).rfind("image/", 0) == 0;
  return std::string{"["} + (image ? "image" : "file") + ": " + path + "]";
}

void add_note(std::string& content, const std::string& note) {
  content += (content.empty() ? "" : "\n") + note;
}

std::string safe_media_name(const std::string& name) {
  std::string safe;
  for (char c : name)
    safe += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-'
                || c == '_'
              ? c
              : '_';
  if (safe.empty() || safe[0] == '.')
    safe = "media" + safe;
  return safe;
}

std::string save_media(const std::string& dir, const std::string& name,
                       const std::string& bytes, int64_t max_bytes,
                       std::string& error) {
  if (static_cast<int64_t>(bytes.size()) > max_bytes) {
    error = "larger than the cap (" + std::to_string(bytes.size()) + " > "
            + std::to_string(max_bytes) + " bytes)";
    return "";
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  auto path = dir + "/" + safe_media_name(name);
  std::ofstream out{path, std::ios::binary | std::ios::trunc};
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    error = "cannot write " + path;
    return "";
  }
  return path;
}

} // namespace nb::chan
