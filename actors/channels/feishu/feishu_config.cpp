#include "actors/channels/feishu/feishu_config.hpp"

#include "actors/channels/kit/config_reader.hpp"

namespace nb::feishu {

feishu_config parse_feishu_config(const std::string& name,
                                  const std::string& raw_json,
                                  const std::string& media_root,
                                  std::string& error) {
  chan::config_reader r{name, raw_json};
  feishu_config c;
  c.name = name;
  if (r.has("instances"))
    r.fail("instances", "one app per section here: give each app its own "
                        "channels.<name> with \"type\": \"feishu\"");
  c.app_id = r.required_str("appId");
  c.app_secret = r.required_str("appSecret");
  c.domain = r.choice("domain", c.domain, {"feishu", "lark"});
  c.api_base = r.str("apiBase", c.domain == "lark"
                                  ? "https://open.larksuite.com"
                                  : "https://open.feishu.cn");
  while (!c.api_base.empty() && c.api_base.back() == '/')
    c.api_base.pop_back();
  if (c.api_base.rfind("http://", 0) != 0
      && c.api_base.rfind("https://", 0) != 0)
    r.fail("apiBase", "expected an http(s) URL");
  c.react_emoji = r.str("reactEmoji", c.react_emoji);
  c.reply_to_message = r.boolean("replyToMessage", c.reply_to_message);
  c.topic_isolation = r.boolean("topicIsolation", c.topic_isolation);
  c.max_media_bytes
    = r.integer("maxMediaBytes", c.max_media_bytes, 0, int64_t{1} << 40);
  c.streaming = r.boolean("streaming", c.streaming);
  // Read so that a wrong type is reported; the long connection needs them
  // not (webhook mode).
  r.str("encryptKey");
  r.str("verificationToken");
  c.media_dir = media_root + "/" + name;
  error = r.error();
  return c;
}

} // namespace nb::feishu
