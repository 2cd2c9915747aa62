// fake_qq's message builders: dispatch payloads shaped as QQ's open
// platform sends them (C2C and group @-messages).
#include "tests/platforms/fake_qq.hpp"

namespace nb::test {

using json = nlohmann::json;

json fake_qq::c2c_message(const std::string& user_openid,
                          const std::string& content) {
  static int next = 0;
  return {{"author", {{"id", user_openid}, {"user_openid", user_openid},
                      {"union_openid", "union-" + user_openid}}},
          {"content", content},
          {"id", "ROBOT1.0_c2c_" + std::to_string(++next)},
          {"timestamp", "2026-12-02T12:00:00+08:00"},
          {"message_scene", {{"source", "default"}}},
          {"message_type", 0}};
}

json fake_qq::group_message(const std::string& group_openid,
                            const std::string& member_openid,
                            const std::string& content) {
  static int next = 0;
  return {{"author", {{"id", member_openid}, {"member_openid", member_openid},
                      {"union_openid", ""}}},
          {"content", " " + content},
          {"group_id", group_openid},
          {"group_openid", group_openid},
          {"id", "ROBOT1.0_grp_" + std::to_string(++next)},
          {"timestamp", "2026-12-02T12:00:00+08:00"},
          {"message_type", 0}};
}

} // namespace nb::test
