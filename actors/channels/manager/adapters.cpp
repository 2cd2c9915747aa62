// The adapter table. Adding a channel = one include + one line here, plus its
// library in manager/CMakeLists.txt.
#include "actors/channels/manager/adapters.hpp"

#include "actors/channels/dingtalk/dingtalk_channel.hpp"
#include "actors/channels/discord/discord_channel.hpp"
#include "actors/channels/email/email_channel.hpp"
#include "actors/channels/feishu/feishu_channel.hpp"
#include "actors/channels/matrix/matrix_channel.hpp"
#include "actors/channels/mochat/mochat_channel.hpp"
#include "actors/channels/napcat/napcat_channel.hpp"
#include "actors/channels/qq/qq_channel.hpp"
#include "actors/channels/slack/slack_channel.hpp"
#include "actors/channels/telegram/telegram_channel.hpp"
#include "actors/channels/websocket/ws_channel.hpp"
#include "actors/channels/whatsapp/whatsapp_channel.hpp"

namespace nb {

const std::vector<adapter_entry>& adapter_table() {
  static const std::vector<adapter_entry> table = {
    {"telegram", telegram::make_channel},
    {"discord", discord::make_channel},
    {"slack", slack::make_channel},
    {"matrix", matrix::make_channel},
    {"email", email::make_channel},
    {"whatsapp", whatsapp::make_channel},
    {"dingtalk", dingtalk::make_channel},
    {"feishu", feishu::make_channel},
    {"napcat", napcat::make_channel},
    {"qq", qq::make_channel},
    {"mochat", mochat::make_channel},
    {"websocket", &make_websocket_channel},
  };
  return table;
}

channel_factory find_adapter(std::string_view name) {
  for (const auto& entry : adapter_table())
    if (entry.name == name)
      return entry.make;
  return nullptr;
}

} // namespace nb
