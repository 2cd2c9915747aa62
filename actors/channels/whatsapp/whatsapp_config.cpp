#include "actors/channels/whatsapp/whatsapp_config.hpp"

#include "actors/channels/kit/config_reader.hpp"
#include "actors/common/strings.hpp"

namespace nb::whatsapp {

namespace {

void read_bridge(chan::config_reader& r, whatsapp_config& c,
                 const std::string& config_dir) {
  c.bridge_url = r.str("bridgeUrl", c.bridge_url);
  if (c.bridge_url.rfind("ws://", 0) != 0 && c.bridge_url.rfind("wss://", 0) != 0)
    r.fail("bridgeUrl", "must be a ws:// or wss:// URL");
  c.bridge_token = trim_space(r.str("bridgeToken", ""));
  c.token_file = config_dir + "/whatsapp-auth/bridge-token";
}

void read_cloud(chan::config_reader& r, whatsapp_config& c) {
  c.api_base = r.str("apiBase", c.api_base);
  while (!c.api_base.empty() && c.api_base.back() == '/')
    c.api_base.pop_back();
  c.access_token = r.required_str("accessToken");
  c.phone_number_id = r.required_str("phoneNumberId");
  c.app_secret = r.required_str("appSecret");
  c.verify_token = r.required_str("verifyToken");
  c.webhook_host = r.str("webhookHost", c.webhook_host);
  c.webhook_port
    = static_cast<int32_t>(r.integer("webhookPort", c.webhook_port, 0, 65535));
  c.webhook_path = r.str("webhookPath", c.webhook_path);
  if (c.webhook_path.empty() || c.webhook_path[0] != '/')
    r.fail("webhookPath", "must start with '/'");
}

} // namespace

whatsapp_config parse_whatsapp_config(const std::string& name,
                                      const std::string& raw_json,
                                      const std::string& config_dir,
                                      std::string& error) {
  chan::config_reader r{name, raw_json};
  whatsapp_config c;
  c.name = name;
  // Without a mode: the bridge when its URL is given or nothing says cloud.
  bool cloud_keys = r.has("phoneNumberId") && !r.has("bridgeUrl");
  auto mode = r.choice("mode", cloud_keys ? "cloud" : "bridge",
                       {"bridge", "cloud"});
  c.mode = mode == "cloud" ? wa_mode::cloud : wa_mode::bridge;
  if (c.mode == wa_mode::bridge)
    read_bridge(r, c, config_dir);
  else
    read_cloud(r, c);
  c.max_media_bytes
    = r.integer("maxMediaBytes", c.max_media_bytes, 0, int64_t{1} << 40);
  c.media_dir = config_dir + "/media/" + name;
  error = r.error();
  return c;
}

} // namespace nb::whatsapp
