#include "tests/platforms/fake_dingtalk_upload.hpp"

#include "actors/common/crc32.hpp"

namespace nb::test {

using nlohmann::json;

namespace {

uint32_t dingtalk_zip_le(const std::string& b, size_t at, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(b[at + i]))
         << (8 * i);
  return v;
}

/// The first entry of a ZIP archive: {"name", "method", "content",
/// "crc_ok"}; null when `b` does not start with a local file header.
json dingtalk_zip_entry(const std::string& b) {
  if (b.size() < 30 || b.compare(0, 4, "PK\x03\x04") != 0)
    return nullptr;
  auto method = dingtalk_zip_le(b, 8, 2);
  auto crc = dingtalk_zip_le(b, 14, 4);
  auto size = dingtalk_zip_le(b, 18, 4);
  auto name_len = dingtalk_zip_le(b, 26, 2);
  auto extra_len = dingtalk_zip_le(b, 28, 2);
  auto at = 30 + name_len + extra_len;
  if (b.size() < at + size)
    return nullptr;
  auto content = b.substr(at, size);
  return json{{"name", b.substr(30, name_len)},
              {"method", method},
              {"content", content},
              {"crc_ok", crc32(content) == crc}};
}

} // namespace

void add_dingtalk_upload_route(httplib::Server& rest,
                               std::function<bool(const std::string&)> token_ok,
                               std::function<size_t(json)> record) {
  rest.Post("/media/upload", [token_ok, record](const httplib::Request& req,
                                                httplib::Response& res) {
    auto reply = [&](const json& body) {
      res.set_content(body.dump(), "application/json;charset=utf-8");
    };
    // The older API answers 200 with an errcode.
    if (!token_ok(req.get_param_value("access_token")))
      return reply({{"errcode", 40014}, {"errmsg", "不合法的access_token"}});
    auto type = req.get_param_value("type");
    bool known =
      type == "image" || type == "voice" || type == "video" || type == "file";
    if (!known || !req.is_multipart_form_data() || !req.has_file("media")
        || req.get_file_value("media").content.empty())
      return reply({{"errcode", 40004}, {"errmsg", "不合法的媒体文件类型"}});
    auto media = req.get_file_value("media");
    json rec{{"type", type},
             {"file_name", media.filename},
             {"bytes", media.content.size()}};
    if (auto entry = dingtalk_zip_entry(media.content); !entry.is_null())
      rec["zip_entry"] = entry;
    auto n = record(rec);
    reply({{"errcode", 0},
           {"errmsg", "ok"},
           {"type", type},
           {"media_id", "@lAz" + type + std::to_string(n)},
           {"created_at", 1700000000000}});
  });
}

} // namespace nb::test
