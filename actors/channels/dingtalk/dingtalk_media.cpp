#include "actors/channels/dingtalk/dingtalk_media.hpp"

#include <string_view>

#include "actors/channels/kit/media_file.hpp"
#include "actors/channels/kit/media_out.hpp"

namespace nb::dingtalk {

namespace {

bool dingtalk_ext_in(const std::string& ext,
                     std::initializer_list<std::string_view> set) {
  for (auto e : set)
    if (ext == e)
      return true;
  return false;
}

} // namespace

std::string upload_type_for(const std::string& ref) {
  auto path = ref.substr(0, ref.find_first_of("?#"));
  auto ext = chan::lower_extension(path);
  if (dingtalk_ext_in(ext, {".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp"}))
    return "image";
  if (dingtalk_ext_in(ext, {".amr", ".mp3", ".wav", ".ogg", ".m4a", ".aac"}))
    return "voice";
  if (dingtalk_ext_in(ext, {".mp4", ".mov", ".avi", ".mkv", ".webm"}))
    return "video";
  return "file";
}

std::string send_attachment(openapi& api, const std::string& ref,
                            const robot_send& send) {
  auto type = upload_type_for(ref);
  if (chan::is_web_link(ref)) {
    // DingTalk fetches a picture link itself; other links are words.
    if (type == "image")
      if (auto err = send("sampleImageMsg", {{"photoURL", ref}}); err.empty())
        return "";
    return send("sampleText", {{"content", ref}});
  }
  std::string bytes;
  if (auto err = chan::read_attachment(ref, upload_limit_bytes, bytes);
      !err.empty())
    return err;
  auto name = chan::file_name_of(ref);
  std::string media_id;
  if (auto err =
        api.upload(type, name, chan::mime_for_path(ref), bytes, media_id);
      !err.empty())
    return ref + ": " + err;
  std::string image_err;
  if (type == "image") {
    image_err = send("sampleImageMsg", {{"photoURL", media_id}});
    if (image_err.empty())
      return "";
  }
  auto ext = chan::lower_extension(name);
  std::string file_type = ext.empty() ? "bin" : ext.substr(1);
  if (file_type == "jpeg")
    file_type = "jpg";
  auto err =
    send("sampleFile",
         {{"mediaId", media_id}, {"fileName", name}, {"fileType", file_type}});
  if (err.empty())
    return "";
  return ref + ": " + (image_err.empty() ? "" : image_err + "; ") + err;
}

} // namespace nb::dingtalk
