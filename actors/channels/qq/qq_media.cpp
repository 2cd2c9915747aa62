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

qq_link_fetcher::qq_link_fetcher(
  const std::vector<std::string>& ssrf_whitelist) {
  // Bad whitelist entries were reported when the config was loaded.
  policy = make_ssrf_policy(ssrf_whitelist);
  rules.max_bytes = qq_upload_limit_bytes;
}

std::string qq_attachment_name(const std::string& ref) {
  if (!chan::is_web_link(ref))
    return chan::file_name_of(ref);
  return chan::file_name_of(ref.substr(0, ref.find_first_of("?#")));
}

std::string send_qq_attachment(qq_api& api, bool group,
                               const std::string& target,
                               const std::string& ref,
                               const qq_link_fetcher& links,
                               const std::string& msg_id,
                               const std::function<int64_t()>& next_seq) {
  std::string bytes;
  std::string name = qq_attachment_name(ref);
  if (chan::is_web_link(ref)) {
    auto got = download_link(ref, links.policy, links.rules);
    if (!got.error.empty())
      return got.error;
    bytes = std::move(got.bytes);
    name = got.file_name.empty() ? "file.bin" : got.file_name;
  } else if (auto err = chan::read_attachment(ref, qq_upload_limit_bytes,
                                              bytes);
             !err.empty()) {
    return err;
  }
  std::string file_info;
  if (auto err =
        api.upload(group, target, qq_file_type(name), name, bytes, file_info);
      !err.empty())
    return ref + ": " + err;
  qq_post p{group, target, "", msg_id, next_seq(), file_info};
  if (auto err = api.post(p); !err.empty())
    return ref + ": " + err;
  return "";
}

} // namespace nb::qq
