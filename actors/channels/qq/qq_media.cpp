#include "actors/channels/qq/qq_media.hpp"

#include <string_view>

#include "actors/channels/kit/media_out.hpp"

namespace nb::qq {

int qq_file_type(const std::string& path) {
  auto ext = chan::lower_extension(path);
  auto in = [&](std::initializer_list<std::string_view> set) {
    for (auto e : set)
      if (ext == e)
        return true;
    return false;
  };
  if (in({".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".tif", ".tiff",
          ".ico", ".svg"}))
    return 1;
  if (ext == ".mp4")
    return 2;
  if (in({".silk", ".wav", ".mp3", ".flac"}))
    return 3;
  return 4;
}

std::string send_qq_attachment(qq_api& api, bool group,
                               const std::string& target,
                               const std::string& path,
                               const std::string& msg_id,
                               const std::function<int64_t()>& next_seq) {
  std::string bytes;
  if (auto err = chan::read_attachment(path, qq_upload_limit_bytes, bytes);
      !err.empty())
    return err;
  std::string file_info;
  if (auto err = api.upload(group, target, qq_file_type(path),
                            chan::file_name_of(path), bytes, file_info);
      !err.empty())
    return path + ": " + err;
  qq_post p{group, target, "", msg_id, next_seq(), file_info};
  if (auto err = api.post(p); !err.empty())
    return path + ": " + err;
  return "";
}

} // namespace nb::qq
