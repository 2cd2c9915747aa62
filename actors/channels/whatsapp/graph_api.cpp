#include "actors/channels/whatsapp/graph_api.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "actors/channels/kit/media_file.hpp"
#include "actors/channels/kit/media_out.hpp"
#include "actors/channels/whatsapp/cloud_payload.hpp"

namespace nb::whatsapp {

namespace {

using nlohmann::json;

int64_t error_code(const chan::http_reply& r) {
  if (!r.json.is_object() || !r.json.contains("error")
      || !r.json["error"].is_object())
    return 0;
  auto c = r.json["error"].find("code");
  return c != r.json["error"].end() && c->is_number_integer()
           ? c->get<int64_t>() : 0;
}

} // namespace

std::string graph_failure(const chan::http_reply& r) {
  if (r.status == 0)
    return r.error;
  std::string out = "HTTP " + std::to_string(r.status);
  if (r.json.is_object() && r.json.contains("error"))
    return out + " " + graph_error_text(r.json["error"]);
  return out + (r.body.empty() ? "" : " " + r.body.substr(0, 200));
}

graph_api::graph_api(whatsapp_config cfg)
  : cfg_(std::move(cfg)), http_(cfg_.api_base) {
}

std::map<std::string, std::string> graph_api::bearer() const {
  return {{"Authorization", "Bearer " + cfg_.access_token}};
}

std::string graph_api::send(json body) {
  body["messaging_product"] = "whatsapp";
  for (int attempt = 0;; ++attempt) {
    auto r = http_.call("POST", "/" + cfg_.phone_number_id + "/messages",
                        body.dump(), bearer());
    if (r.ok())
      return "";
    bool limited = r.status == 429 || rate_limit_code(error_code(r));
    if (limited && r.retry_after_s <= 20 && attempt < 2) {
      auto wait = r.retry_after_s > 0 ? r.retry_after_s : 1.0;
      std::this_thread::sleep_for(
        std::chrono::milliseconds(static_cast<int64_t>(wait * 1000)));
      continue;
    }
    return graph_failure(r);
  }
}

std::string graph_api::upload(const std::string& path, std::string& error) {
  std::ifstream in{path, std::ios::binary};
  if (!in) {
    error = "cannot read " + path;
    return "";
  }
  std::stringstream data;
  data << in.rdbuf();
  auto mime = chan::mime_for_path(path);
  chan::multipart_form form;
  form.field("messaging_product", "whatsapp");
  form.field("type", mime);
  form.file("file", chan::file_name_of(path), mime, data.str());
  auto r =
    http_.call("POST", "/" + cfg_.phone_number_id + "/media", form.body(),
               bearer(), std::chrono::seconds(120), form.content_type());
  if (r.ok() && r.json.is_object() && r.json.contains("id")
      && r.json["id"].is_string())
    return r.json["id"].get<std::string>();
  error = "media upload: " + graph_failure(r);
  return "";
}

std::string graph_api::download(const std::string& media_id,
                                const std::string& mime,
                                const std::string& file_name,
                                std::string& error) {
  auto meta = http_.call("GET", "/" + chan::url_encode(media_id), "",
                         bearer());
  if (!meta.ok() || !meta.json.is_object() || !meta.json.contains("url")
      || !meta.json["url"].is_string()) {
    error = "media lookup: " + graph_failure(meta);
    return "";
  }
  auto size = meta.json.value("file_size", json{});
  int64_t bytes = size.is_number_integer() ? size.get<int64_t>()
                  : size.is_string() ? std::atoll(size.get<std::string>().c_str())
                                     : 0;
  if (bytes > cfg_.max_media_bytes) {
    error = "larger than maxMediaBytes (" + std::to_string(bytes) + " bytes)";
    return "";
  }
  // The URL is absolute and on another host (Meta's CDN).
  auto url = meta.json["url"].get<std::string>();
  auto host_end = url.find('/', url.find("://") == std::string::npos
                                  ? 0 : url.find("://") + 3);
  chan::http_endpoint cdn{url.substr(0, host_end)};
  auto r = cdn.call("GET", host_end == std::string::npos ? "/"
                                                         : url.substr(host_end),
                    "", bearer(), std::chrono::seconds(120));
  if (!r.ok()) {
    error = "media download: " + graph_failure(r);
    return "";
  }
  auto name = media_id + "_"
              + (file_name.empty() ? "media" + chan::extension_for_mime(mime)
                                   : file_name);
  return chan::save_media(cfg_.media_dir, name, r.body, cfg_.max_media_bytes,
                          error);
}

} // namespace nb::whatsapp
