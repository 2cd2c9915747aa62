#include "actors/channels/feishu/feishu_media.hpp"

#include <array>
#include <string_view>

#include <nlohmann/json.hpp>

#include "actors/channels/kit/media_file.hpp"
#include "actors/channels/kit/media_out.hpp"

namespace nb::feishu {

namespace {

bool ext_in(const std::string& ext,
            std::initializer_list<std::string_view> set) {
  for (auto e : set)
    if (ext == e)
      return true;
  return false;
}

/// The key an upload answered with ("" when the answer lacks it).
std::string key_in(const api_result& r, const char* name) {
  if (!r.body.is_object() || !r.body.contains("data")
      || !r.body["data"].is_object())
    return "";
  auto v = r.body["data"].value(name, nlohmann::json{});
  return v.is_string() ? v.get<std::string>() : "";
}

} // namespace

bool is_picture(const std::string& path) {
  return ext_in(chan::lower_extension(path),
                {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".ico",
                 ".tiff", ".tif"});
}

std::string file_type_for(const std::string& path) {
  auto ext = chan::lower_extension(path);
  if (ext == ".opus" || ext == ".mp4" || ext == ".pdf")
    return ext.substr(1);
  if (ext_in(ext, {".doc", ".docx"}))
    return "doc";
  if (ext_in(ext, {".xls", ".xlsx"}))
    return "xls";
  if (ext_in(ext, {".ppt", ".pptx"}))
    return "ppt";
  return "stream";
}

std::string upload_media(open_api& api, const std::string& path,
                         media_message& out) {
  bool picture = is_picture(path);
  std::string bytes;
  if (auto err = chan::read_attachment(
        path, picture ? image_limit_bytes : file_limit_bytes, bytes);
      !err.empty())
    return err;
  auto name = chan::file_name_of(path);
  chan::multipart_form form;
  if (picture) {
    form.field("image_type", "message");
    form.file("image", name, chan::mime_for_path(path), bytes);
    auto r = api.post_form("/open-apis/im/v1/images", form);
    auto key = key_in(r, "image_key");
    if (!r.ok() || key.empty())
      return "image upload of " + path + " refused: " + r.describe();
    out = {"image", nlohmann::json{{"image_key", key}}.dump()};
    return "";
  }
  auto type = file_type_for(path);
  form.field("file_type", type);
  form.field("file_name", name);
  form.file("file", name, chan::mime_for_path(path), bytes);
  auto r = api.post_form("/open-apis/im/v1/files", form);
  auto key = key_in(r, "file_key");
  if (!r.ok() || key.empty())
    return "file upload of " + path + " refused: " + r.describe();
  // Feishu plays opus as a voice message and video as "media" inline.
  auto ext = chan::lower_extension(path);
  std::string kind = type == "opus" ? "audio"
                     : (ext == ".mp4" || ext == ".mov" || ext == ".avi")
                       ? "media"
                       : "file";
  out = {kind, nlohmann::json{{"file_key", key}}.dump()};
  return "";
}

} // namespace nb::feishu
