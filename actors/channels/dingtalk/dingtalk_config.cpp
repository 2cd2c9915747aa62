#include "actors/channels/dingtalk/dingtalk_config.hpp"

#include "actors/channels/kit/config_reader.hpp"
#include "actors/common/strings.hpp"

namespace nb::dingtalk {

dingtalk_config parse_dingtalk_config(const std::string& name,
                                      const std::string& raw_json,
                                      const std::string& media_root,
                                      std::string& error) {
  chan::config_reader r{name, raw_json};
  dingtalk_config c;
  c.name = name;
  c.client_id = r.required_str("clientId");
  c.client_secret = r.required_str("clientSecret");
  c.api_base = r.str("apiBase", c.api_base);
  while (!c.api_base.empty() && c.api_base.back() == '/')
    c.api_base.pop_back();
  if (c.api_base.rfind("http://", 0) != 0
      && c.api_base.rfind("https://", 0) != 0)
    r.fail("apiBase", "expected an http(s) URL");
  c.group_user_isolation
    = r.boolean("groupUserIsolation", c.group_user_isolation);
  c.disable_private_chat
    = r.boolean("disablePrivateChat", c.disable_private_chat);
  c.max_media_bytes
    = r.integer("maxMediaBytes", c.max_media_bytes, 0, int64_t{1} << 40);
  c.allow_remote_media_redirects = r.boolean(
    "allowRemoteMediaRedirects", c.allow_remote_media_redirects);
  c.remote_media_redirect_allowed_hosts =
    r.strings("remoteMediaRedirectAllowedHosts");
  for (auto& host : c.remote_media_redirect_allowed_hosts)
    host = ascii_lower(host);
  c.media_dir = media_root + "/" + name;
  error = r.error();
  return c;
}

} // namespace nb::dingtalk
