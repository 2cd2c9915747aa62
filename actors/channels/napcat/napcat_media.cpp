#include "actors/channels/napcat/napcat_media.hpp"

#include <string_view>

#include "actors/channels/kit/media_out.hpp"
#include "actors/common/base64.hpp"

namespace nb::napcat {

std::string segment_type_for(const std::string& ref) {
  auto ext = chan::lower_extension(ref.substr(0, ref.find_first_of("?#")));
  auto in = [&](std::initializer_list<std::string_view> set) {
    for (auto e : set)
      if (ext == e)
        return true;
    return false;
  };
  if (in({".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp"}))
    return "image";
  if (in({".amr", ".mp3", ".wav", ".ogg", ".opus", ".m4a", ".aac", ".flac",
          ".silk"}))
    return "record";
  if (in({".mp4", ".mov", ".avi", ".mkv", ".webm"}))
    return "video";
  return "file";
}

std::string media_segment(const std::string& ref, nlohmann::json& seg) {
  auto type = segment_type_for(ref);
  if (chan::is_web_link(ref)) {
    seg = {{"type", type}, {"data", {{"file", ref}}}};
    return "";
  }
  std::string bytes;
  if (auto err = chan::read_attachment(ref, napcat_inline_limit_bytes, bytes);
      !err.empty())
    return err;
  nlohmann::json data{{"file", "base64://" + base64_encode(bytes)}};
  if (type == "file")
    data["name"] = chan::file_name_of(ref);
  seg = {{"type", type}, {"data", std::move(data)}};
  return "";
}

} // namespace nb::napcat
