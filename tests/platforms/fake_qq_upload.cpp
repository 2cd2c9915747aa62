#include "tests/platforms/fake_qq_upload.hpp"

#include "actors/common/base64.hpp"

namespace nb::test {

using nlohmann::json;

void fake_qq_uploads::install(httplib::Server& rest, auth_check authed) {
  authed_ = std::move(authed);
  rest.Post(R"(/v2/users/([^/]+)/files)",
            [this](const httplib::Request& req, httplib::Response& res) {
              take(req, res, "users");
            });
  rest.Post(R"(/v2/groups/([^/]+)/files)",
            [this](const httplib::Request& req, httplib::Response& res) {
              take(req, res, "groups");
            });
}

void fake_qq_uploads::take(const httplib::Request& req, httplib::Response& res,
                           const char* kind) {
  if (!authed_(req, res))
    return;
  auto body = json::parse(req.body, nullptr, false);
  auto refuse = [&](const char* why) {
    res.status = 400;
    res.set_content(json{{"message", why}, {"code", 850012}}.dump(),
                    "application/json");
  };
  if (!body.is_object() || !body.value("file_type", json{}).is_number_integer()
      || !body.value("srv_send_msg", json{}).is_boolean())
    return refuse("invalid request");
  auto type = body["file_type"].get<int>();
  if (type < 1 || type > 4)
    return refuse("file_type invalid");
  auto data = body.value("file_data", json{});
  auto decoded = data.is_string() ? nb::base64_decode(data.get<std::string>())
                                  : std::nullopt;
  if (!decoded || decoded->empty())
    return refuse("file_data invalid");
  std::lock_guard<std::mutex> g{mx_};
  auto info =
    "fi-" + std::string{kind} + "-" + std::to_string(uploads_.size() + 1);
  uploads_.push_back(json{{"kind", kind},
                          {"target", req.matches[1].str()},
                          {"file_type", type},
                          {"file_name", body.value("file_name", json{})},
                          {"srv_send_msg", body["srv_send_msg"]},
                          {"base64_chars", data.get<std::string>().size()},
                          {"bytes", decoded->size()},
                          {"file_info", info}});
  res.set_content(
    json{{"file_uuid", "uuid-" + info}, {"file_info", info}, {"ttl", 3600}}
      .dump(),
    "application/json");
}

std::vector<json> fake_qq_uploads::all() const {
  std::lock_guard<std::mutex> g{mx_};
  return uploads_;
}

} // namespace nb::test
