// The robot message payloads fake_dingtalk sends, shaped as DingTalk's
// Stream mode delivers them (field names and values from the SDKs' samples).
#include <atomic>

#include "tests/platforms/fake_dingtalk.hpp"

namespace nb::test {

using nlohmann::json;

json fake_dingtalk::text(const std::string& staff, const std::string& body,
                         const std::string& group, bool at_bot) {
  static std::atomic<int> n{0};
  auto id = "msg" + std::to_string(++n) + "Ab/Cd==";
  json m{{"conversationId", group.empty() ? "cidP2P" + staff : group},
         {"atUsers", json::array({{{"dingtalkId", "$:LWCP_v1:$bot"}}})},
         {"chatbotCorpId", "dingcorp"},
         {"chatbotUserId", "$:LWCP_v1:$bot"},
         {"msgId", id},
         {"senderNick", "Nick " + staff},
         {"isAdmin", false},
         {"senderStaffId", staff},
         {"sessionWebhookExpiredTime", 1893456000000},
         {"createAt", 1700000000000},
         {"senderCorpId", "dingcorp"},
         {"conversationType", group.empty() ? "1" : "2"},
         {"senderId", "$:LWCP_v1:$" + staff},
         {"isInAtList", at_bot},
         {"sessionWebhook",
          "https://oapi.dingtalk.com/robot/sendBySession?session=s1"},
         {"text", {{"content", " " + body}}},
         {"robotCode", client_id},
         {"msgtype", "text"}};
  if (!group.empty())
    m["conversationTitle"] = "Team room";
  return m;
}

json fake_dingtalk::picture(const std::string& staff, const std::string& code) {
  auto m = text(staff, "");
  m.erase("text");
  m["msgtype"] = "picture";
  m["content"] = {{"downloadCode", code}, {"pictureDownloadCode", "p" + code}};
  return m;
}

} // namespace nb::test
