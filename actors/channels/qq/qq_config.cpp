#include "actors/channels/qq/qq_config.hpp"

#include "actors/channels/kit/config_reader.hpp"

namespace nb::qq {

namespace {

std::string without_slash(std::string s) {
  while (!s.empty() && s.back() == '/')
    s.pop_back();
  return s;
}

} // namespace

qq_config parse_qq_config(const std::string& name, const std::string& raw_json,
                          const std::string& media_root, std::string& error) {
  chan::config_reader r{name, raw_json};
  qq_config c;
  c.name = name;
  c.app_id = r.required_str("appId");
  // The original names it "secret"; QQ's token call names it clientSecret.
  c.secret = r.has("clientSecret") ? r.str("clientSecret")
                                   : r.required_str("secret");
  c.api_base = without_slash(r.str("apiBase", c.api_base));
  c.token_base = without_slash(r.str("tokenBase", c.token_base));
  c.gateway_url = r.str("gatewayUrl");
  c.intents = r.integer("intents", c.intents, 1, (int64_t{1} << 31) - 1);
  c.markdown = r.choice("msgFormat", "plain", {"plain", "markdown"})
               == "markdown";
  c.ack_message = r.str("ackMessage", c.ack_message);
  c.max_media_bytes = r.integer("downloadMaxBytes", c.max_media_bytes, 1,
                                int64_t{1} << 40);
  c.media_dir = media_root + "/" + name;
  error = r.error();
  return c;
}

} // namespace nb::qq
