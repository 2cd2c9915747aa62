#include "actors/channels/dingtalk/dingtalk_media.hpp"

#include <string_view>

#include "actors/channels/kit/media_file.hpp"
#include "actors/channels/kit/media_out.hpp"
#include "actors/channels/kit/zip_one.hpp"

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

link_fetcher::link_fetcher(const dingtalk_config& cfg) {
  // Bad whitelist entries were reported when the config was loaded.
  policy = make_ssrf_policy(cfg.ssrf_whitelist);
  rules.max_bytes = upload_limit_bytes;
  rules.max_redirects = 3;
  rules.redirect_rule = [allow = cfg.allow_remote_media_redirects,
                         hosts = cfg.remote_media_redirect_allowed_hosts](
                          const parsed_url& from,
                          const parsed_url& to) -> std::string {
    if (!allow)
      return "it redirects, and allowRemoteMediaRedirects is off";
    if (to.host == from.host)
      return "";
    for (const auto& h : hosts)
      if (h == to.host)
        return "";
    return "a redirect to another host (" + to.host
           + ") not in remoteMediaRedirectAllowedHosts";
  };
}

namespace {

/// Uploads `bytes` and sends them as a picture (when `type` is image and
/// DingTalk shows it) or a file.
std::string dingtalk_upload_and_send(openapi& api, const std::string& ref,
                                     const std::string& type, std::string name,
                                     std::string mime, std::string bytes,
                                     const robot_send& send) {
  // DingTalk does not take raw HTML: it goes zipped, as the original sends
  // it.
  auto ext = chan::lower_extension(name);
  if (ext == ".htm" || ext == ".html" || mime == "text/html") {
    bytes = chan::zip_one(name, bytes);
    auto stem = name.substr(0, name.size() - ext.size());
    name = (stem.empty() ? "attachment" : stem) + ".zip";
    mime = "application/zip";
    ext = ".zip";
  }
  std::string media_id;
  if (auto err = api.upload(type, name, mime, bytes, media_id); !err.empty())
    return ref + ": " + err;
  std::string image_err;
  if (type == "image") {
    image_err = send("sampleImageMsg", {{"photoURL", media_id}});
    if (image_err.empty())
      return "";
  }
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

/// The name a fetched link is uploaded under: its own, or the original's
/// default for its kind.
std::string dingtalk_link_name(const link_download& got,
                               const std::string& type) {
  if (!got.file_name.empty())
    return got.file_name;
  if (type == "image")
    return "image.jpg";
  if (type == "voice")
    return "audio.amr";
  if (type == "video")
    return "video.mp4";
  return "file.bin";
}

} // namespace

std::string send_attachment(openapi& api, const std::string& ref,
                            const link_fetcher& links, const robot_send& send) {
  auto type = upload_type_for(ref);
  if (!chan::is_web_link(ref)) {
    std::string bytes;
    if (auto err = chan::read_attachment(ref, upload_limit_bytes, bytes);
        !err.empty())
      return err;
    return dingtalk_upload_and_send(api, ref, type, chan::file_name_of(ref),
                                    chan::mime_for_path(ref), std::move(bytes),
                                    send);
  }
  // DingTalk fetches a picture link itself; when it will not, and for any
  // other link, the bytes are fetched here and uploaded.
  std::string link_err;
  if (type == "image") {
    link_err = send("sampleImageMsg", {{"photoURL", ref}});
    if (link_err.empty())
      return "";
  }
  auto got = download_link(ref, links.policy, links.rules);
  if (!got.error.empty())
    return link_err.empty() ? got.error : ref + ": " + link_err + "; "
                                            + got.error;
  auto name = dingtalk_link_name(got, type);
  auto mime = got.content_type.empty() ? chan::mime_for_path(name)
                                       : got.content_type;
  return dingtalk_upload_and_send(api, ref, type, name, mime,
                                  std::move(got.bytes), send);
}

} // namespace nb::dingtalk
