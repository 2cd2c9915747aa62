// channels.whatsapp: the keys the WhatsApp adapter reads, for its two
// modes: the original's Node/Baileys bridge, and the Business Cloud API.
#pragma once

#include <cstdint>
#include <string>

namespace nb::whatsapp {

enum class wa_mode { bridge, cloud };

struct whatsapp_config {
  std::string name = "whatsapp";
  wa_mode mode = wa_mode::bridge;

  // mode "bridge": the WebSocket of nanobot's bridge (bridge/src/server.ts).
  std::string bridge_url = "ws://localhost:3001";
  std::string bridge_token; ///< the key ("": the one in token_file)
  /// <config dir>/whatsapp-auth/bridge-token, where the original's
  /// `channels login whatsapp` saves the key: read by the bridge's own
  /// thread when it starts (the parse runs on the manager's).
  std::string token_file;

  // mode "cloud": Meta's Graph API out, a webhook of our own in.
  std::string api_base = "https://graph.facebook.com/v21.0";
  std::string access_token;    ///< bearer for the Graph API
  std::string phone_number_id; ///< the business number that sends
  std::string app_secret;      ///< signs every webhook POST
  std::string verify_token;    ///< the webhook subscription's check
  std::string webhook_host = "127.0.0.1";
  int32_t webhook_port = 18791;
  std::string webhook_path = "/whatsapp/webhook";

  int64_t max_media_bytes = 20 * 1024 * 1024;
  std::string media_dir; ///< <config dir>/media/<name>
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
/// `config_dir` is where the bridge token file and media live; the parse
/// reads no file.
whatsapp_config parse_whatsapp_config(const std::string& name,
                                      const std::string& raw_json,
                                      const std::string& config_dir,
                                      std::string& error);

} // namespace nb::whatsapp
