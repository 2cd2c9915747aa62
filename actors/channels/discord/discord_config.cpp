#include "actors/channels/discord/discord_config.hpp"

#include "actors/channels/kit/config_reader.hpp"

namespace nb::discord {

discord_config parse_discord_config(const std::string& name,
                                    const std::string& raw_json,
                                    std::string& error) {
  chan::config_reader r{name, raw_json};
  discord_config c;
  c.name = name;
  c.token = r.required_str("token");
  c.api_base = r.str("apiBase", c.api_base);
  while (!c.api_base.empty() && c.api_base.back() == '/')
    c.api_base.pop_back();
  c.gateway_url = r.str("gatewayUrl", "");
  c.intents = r.integer("intents", c.intents, 0, (int64_t{1} << 31) - 1);
  c.allow_channels = r.strings("allowChannels");
  error = r.error();
  return c;
}

} // namespace nb::discord
