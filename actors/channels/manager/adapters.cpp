// The adapter table. Adding a channel = one include + one line here, plus its
// library in manager/CMakeLists.txt.
#include "actors/channels/manager/adapters.hpp"

#include "actors/channels/dingtalk/dingtalk_channel.hpp"
#include "actors/channels/dingtalk/dingtalk_config.hpp"
#include "actors/channels/discord/discord_channel.hpp"
#include "actors/channels/discord/discord_config.hpp"
#include "actors/channels/email/email_channel.hpp"
#include "actors/channels/email/email_config.hpp"
#include "actors/channels/feishu/feishu_channel.hpp"
#include "actors/channels/feishu/feishu_config.hpp"
#include "actors/channels/matrix/matrix_channel.hpp"
#include "actors/channels/matrix/matrix_config.hpp"
#include "actors/channels/mochat/mochat_channel.hpp"
#include "actors/channels/mochat/mochat_config.hpp"
#include "actors/channels/napcat/napcat_channel.hpp"
#include "actors/channels/napcat/napcat_config.hpp"
#include "actors/channels/qq/qq_channel.hpp"
#include "actors/channels/qq/qq_config.hpp"
#include "actors/channels/slack/slack_channel.hpp"
#include "actors/channels/slack/slack_config.hpp"
#include "actors/channels/telegram/telegram_channel.hpp"
#include "actors/channels/telegram/telegram_config.hpp"
#include "actors/channels/websocket/ws_channel.hpp"
#include "actors/channels/websocket/ws_config.hpp"
#include "actors/channels/whatsapp/whatsapp_channel.hpp"
#include "actors/channels/whatsapp/whatsapp_config.hpp"

namespace nb {

namespace {

std::string raw_channel_keys(const settings& cfg, const std::string& name) {
  auto it = cfg.channels.find(name);
  return it == cfg.channels.end() ? std::string{"{}"} : it->second.raw_json;
}

/// An adapter's parse_<kind>_config(name, raw, error) as a check.
template <auto Parse>
std::string keys_check(const settings& cfg, const std::string& name) {
  std::string error;
  Parse(name, raw_channel_keys(cfg, name), error);
  return error;
}

/// The same for the parsers that also take where media files go.
template <auto Parse>
std::string keys_check_media(const settings& cfg, const std::string& name) {
  std::string error;
  Parse(name, raw_channel_keys(cfg, name), cfg.config_dir() + "/media", error);
  return error;
}

std::string whatsapp_check(const settings& cfg, const std::string& name) {
  std::string error;
  whatsapp::parse_whatsapp_config(name, raw_channel_keys(cfg, name),
                                  cfg.config_dir(), error);
  return error;
}

std::string websocket_check(const settings& cfg, const std::string& name) {
  auto parsed = ws::parse_channel_config(cfg, name);
  auto* error = std::get_if<std::string>(&parsed);
  return error ? *error : std::string{};
}

} // namespace

const std::vector<adapter_entry>& adapter_table() {
  static const std::vector<adapter_entry> table = {
    {"telegram",
     telegram::make_channel,
     keys_check_media<telegram::parse_telegram_config>,
     {"token"}},
    {"discord",
     discord::make_channel,
     keys_check<discord::parse_discord_config>,
     {"token"}},
    {"slack",
     slack::make_channel,
     keys_check<slack::parse_slack_config>,
     {"botToken", "appToken"}},
    {"matrix",
     matrix::make_channel,
     keys_check<matrix::parse_matrix_config>,
     {"homeserver", "userId", "accessToken"}},
    {"email",
     email::make_channel,
     keys_check<email::parse_email_config>,
     {"imapHost", "imapUsername", "imapPassword", "smtpHost"}},
    {"whatsapp",
     whatsapp::make_channel,
     whatsapp_check,
     {"bridgeUrl", "bridgeToken"}},
    {"dingtalk",
     dingtalk::make_channel,
     keys_check_media<dingtalk::parse_dingtalk_config>,
     {"clientId", "clientSecret"},
     true},
    {"feishu",
     feishu::make_channel,
     keys_check_media<feishu::parse_feishu_config>,
     {"appId", "appSecret"}},
    {"napcat",
     napcat::make_channel,
     keys_check_media<napcat::parse_napcat_config>,
     {"wsUrl"}},
    {"qq",
     qq::make_channel,
     keys_check_media<qq::parse_qq_config>,
     {"appId", "secret"},
     true},
    {"mochat",
     mochat::make_channel,
     keys_check<mochat::parse_mochat_config>,
     {"baseUrl", "clawToken"}},
    {"websocket", &make_websocket_channel, websocket_check, {}},
  };
  return table;
}

const adapter_entry* find_adapter_entry(std::string_view name) {
  for (const auto& entry : adapter_table())
    if (entry.name == name)
      return &entry;
  return nullptr;
}

channel_factory find_adapter(std::string_view name) {
  for (const auto& entry : adapter_table())
    if (entry.name == name)
      return entry.make;
  return nullptr;
}

} // namespace nb
