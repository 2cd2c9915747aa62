#include "tests/platforms/fake_dingtalk_upload.hpp"

namespace nb::test {

using nlohmann::json;

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
    auto n = record(rec);
    reply({{"errcode", 0},
           {"errmsg", "ok"},
           {"type", type},
           {"media_id", "@lAz" + type + std::to_string(n)},
           {"created_at", 1700000000000}});
  });
}

} // namespace nb::test
