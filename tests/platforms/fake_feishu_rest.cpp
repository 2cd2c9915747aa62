#include "tests/platforms/fake_feishu_impl.hpp"

namespace nb::test {

void fake_feishu::impl::routes() {
  rest.Post("/callback/ws/endpoint", [this](const httplib::Request& req,
                                            httplib::Response& res) {
    auto b = json::parse(req.body, nullptr, false);
    if (!b.is_object() || b.value("AppID", "") != app_id
        || b.value("AppSecret", "") != app_secret)
      return answer(res, {{"code", 403}, {"msg", "app_id or app_secret error"}});
    std::lock_guard<std::mutex> g{mx};
    answer(res, {{"code", 0},
                 {"msg", "ok"},
                 {"data",
                  {{"URL", socket->url()
                             + "/ws/v2?fpid=9&aid=552564&device_id=dev-1"
                               "&access_key=ak&service_id="
                             + std::to_string(service_id) + "&ticket=tk"},
                   {"ClientConfig", client_config(ping_s)}}}});
  });
  rest.Post("/open-apis/auth/v3/tenant_access_token/internal",
            [this](const httplib::Request& req, httplib::Response& res) {
              auto b = json::parse(req.body, nullptr, false);
              if (!b.is_object() || b.value("app_id", "") != app_id
                  || b.value("app_secret", "") != app_secret)
                return answer(res, {{"code", 10014},
                                    {"msg", "app secret invalid"}});
              std::lock_guard<std::mutex> g{mx};
              ++token_fetches;
              token = "t-" + std::to_string(token_fetches);
              answer(res, {{"code", 0}, {"msg", "ok"},
                           {"tenant_access_token", token}, {"expire", 7200}});
            });
  rest.Get("/open-apis/bot/v3/info", [this](const httplib::Request& req,
                                            httplib::Response& res) {
    if (!authorised(req, res))
      return;
    answer(res, {{"code", 0}, {"msg", "ok"},
                 {"bot", {{"activate_status", 2}, {"app_name", "nano"},
                          {"open_id", bot_open_id}}}});
  });
  auto accept_send = [this](const httplib::Request& req,
                            httplib::Response& res, json record) {
    if (!authorised(req, res))
      return;
    std::lock_guard<std::mutex> g{mx};
    ++send_calls;
    if (limited > 0) {
      --limited;
      if (limit_by_code)
        return answer(res, {{"code", 230020}, {"msg", "This operation "
                                                      "triggers the frequency "
                                                      "limit."}}, 400);
      res.set_header("x-ogw-ratelimit-reset", std::to_string(reset_s));
      return answer(res, {{"code", 99991400},
                          {"msg", "request trigger frequency limit"}}, 429);
    }
    auto b = json::parse(req.body, nullptr, false);
    if (!b.is_object() || !b.contains("msg_type") || !b.contains("content")
        || !b["content"].is_string()
        || !json::accept(b["content"].get<std::string>()))
      return answer(res, {{"code", 230001}, {"msg", "invalid message content"}},
                    400);
    record["body"] = b;
    sent.push_back(record);
    cv.notify_all();
    answer(res, {{"code", 0}, {"msg", "success"},
                 {"data", {{"message_id", "om_sent_" + std::to_string(
                                                         sent.size())},
                           {"msg_type", b["msg_type"]}}}});
  };
  rest.Post("/open-apis/im/v1/messages",
            [accept_send](const httplib::Request& req, httplib::Response& res) {
              accept_send(req, res,
                          json{{"path", req.path},
                               {"receive_id_type",
                                req.get_param_value("receive_id_type")}});
            });
  rest.Post(R"(/open-apis/im/v1/messages/([^/]+)/reply)",
            [accept_send](const httplib::Request& req, httplib::Response& res) {
              accept_send(req, res, json{{"path", req.path},
                                         {"reply_to", req.matches[1].str()}});
            });
  rest.Post(R"(/open-apis/im/v1/messages/([^/]+)/reactions)",
            [this](const httplib::Request& req, httplib::Response& res) {
              if (!authorised(req, res))
                return;
              auto b = json::parse(req.body, nullptr, false);
              std::lock_guard<std::mutex> g{mx};
              reactions.push_back(json{{"message_id", req.matches[1].str()},
                                       {"body", b}});
              cv.notify_all();
              answer(res, {{"code", 0}, {"msg", "success"},
                           {"data", {{"reaction_id", "r1"}}}});
            });
  // Uploads: multipart/form-data with the file under "image" or "file".
  auto accept_upload = [this](const httplib::Request& req,
                              httplib::Response& res, const char* file_part,
                              const char* key_name, const char* key_prefix) {
    if (!authorised(req, res))
      return;
    json fields = json::object();
    const httplib::MultipartFormData* file = nullptr;
    for (const auto& [name, part] : req.files) {
      if (name == file_part)
        file = &part;
      else
        fields[name] = part.content;
    }
    if (!req.is_multipart_form_data() || file == nullptr
        || file->content.empty())
      return answer(res, {{"code", 234001}, {"msg", "Invalid request param."}},
                    400);
    std::lock_guard<std::mutex> g{mx};
    std::string key = key_prefix + std::to_string(uploads.size() + 1);
    uploads.push_back(json{{"path", req.path},
                           {"fields", fields},
                           {"file_name", file->filename},
                           {"bytes", file->content.size()},
                           {"key", key}});
    answer(res, {{"code", 0}, {"msg", "success"}, {"data", {{key_name, key}}}});
  };
  rest.Post(
    "/open-apis/im/v1/images",
    [accept_upload](const httplib::Request& req, httplib::Response& res) {
      accept_upload(req, res, "image", "image_key", "img_v3_");
    });
  rest.Post(
    "/open-apis/im/v1/files",
    [accept_upload](const httplib::Request& req, httplib::Response& res) {
      accept_upload(req, res, "file", "file_key", "file_v3_");
    });
  rest.Get(R"(/open-apis/im/v1/messages/([^/]+)/resources/([^/]+))",
           [this](const httplib::Request& req, httplib::Response& res) {
             if (!authorised(req, res))
               return;
             std::lock_guard<std::mutex> g{mx};
             auto it = resources.find(req.matches[2].str());
             if (it == resources.end())
               return answer(res, {{"code", 234003}, {"msg", "File not in "
                                                             "msg."}}, 400);
             res.set_content(it->second, "application/octet-stream");
           });
}

} // namespace nb::test
