#include "actors/channels/feishu/feishu_intake.hpp"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "actors/channels/kit/http_call.hpp"

namespace nb::feishu {

namespace {

using nlohmann::json;

/// A local name for a fetched file.
std::string local_name(const media_ref& m) {
  if (m.kind == "image")
    return safe_file_name(m.key + ".jpg", "image.jpg");
  auto name = safe_file_name(m.file_name, m.key);
  // Voice notes are opus in an OGG container.
  if (m.kind == "audio" && name.find('.') == std::string::npos)
    name += ".ogg";
  return name;
}

} // namespace

intake::intake(const feishu_config& cfg, chan::adapter_front_actor front,
               open_api& api, std::shared_ptr<spdlog::logger> lg)
  : cfg_(cfg), front_(std::move(front)), api_(api), lg_(std::move(lg)) {
  ctx_.channel = cfg_.name;
  ctx_.topic_isolation = cfg_.topic_isolation;
}

void intake::remember(const std::string& message_id) {
  seen_.insert(message_id);
  order_.push_back(message_id);
  if (order_.size() > 1000) {
    seen_.erase(order_.front());
    order_.pop_front();
  }
}

void intake::fetch_media(parsed_event& p) {
  auto& msg = *p.msg;
  std::error_code ec;
  std::filesystem::create_directories(cfg_.media_dir, ec);
  for (const auto& m : p.media) {
    // The resources API knows two kinds: voice and video are files.
    auto type = m.kind == "image" ? "image" : "file";
    auto path = "/open-apis/im/v1/messages/" + chan::url_encode(p.message_id)
                + "/resources/" + chan::url_encode(m.key) + "?type=" + type;
    std::string bytes;
    auto err = api_.download(path, cfg_.max_media_bytes, bytes);
    auto dest = cfg_.media_dir + "/" + p.message_id + "_" + local_name(m);
    if (err.empty()) {
      std::ofstream f{dest, std::ios::binary};
      f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!f)
        err = "cannot write " + dest;
    }
    auto label = m.file_name.empty() ? m.kind : m.file_name;
    if (!err.empty()) {
      lg_->warn("could not fetch {} of message {}: {}", m.kind, p.message_id,
                err);
      msg.content += "\n[" + m.kind + ": " + label + " unavailable (" + err
                     + ")]";
      continue;
    }
    msg.media.push_back(dest);
    msg.content += "\n[" + m.kind + ": " + dest + "]";
  }
  if (!msg.content.empty() && msg.content.front() == '\n')
    msg.content.erase(0, 1);
}

intake::outcome intake::take(const std::string& payload) {
  outcome out;
  auto j = json::parse(payload, nullptr, false);
  if (!j.is_object()) {
    lg_->warn("malformed event payload skipped ({} bytes)", payload.size());
    out.ack = 500; // as lark-oapi answers a payload it cannot handle
    return out;
  }
  auto p = parse_event(j, ctx_);
  out.ack = 200;
  if (!p.msg) {
    if (p.why.rfind("malformed", 0) == 0)
      lg_->warn("{} skipped", p.why);
    else
      lg_->debug("event not handed on: {}", p.why);
    return out;
  }
  if (seen_.count(p.message_id)) {
    lg_->debug("message {} came again: acknowledged, not handed on",
               p.message_id);
    return out;
  }
  if (!p.media.empty())
    fetch_media(p);
  std::vector<inbound_msg> one;
  one.push_back(std::move(*p.msg));
  auto done = chan::hand_over(front_, std::move(one));
  if (done.recorded != 1) {
    out.ack.reset();
    out.problem = done.error.empty() ? "no receipt" : done.error;
    lg_->warn("message {} not acknowledged to Feishu (it comes again): {}",
              p.message_id, out.problem);
    return out;
  }
  remember(p.message_id);
  const auto& receipt = done.receipts.front();
  // An empty id: access control kept it out (no reaction for strangers).
  if (!cfg_.react_emoji.empty() && !receipt.id.empty() && !receipt.duplicate)
    out.react_to = p.message_id;
  return out;
}

void intake::react(const std::string& message_id) {
  auto r = api_.call("POST",
                     "/open-apis/im/v1/messages/" + chan::url_encode(message_id)
                       + "/reactions",
                     json{{"reaction_type", {{"emoji_type", cfg_.react_emoji}}}});
  if (!r.ok())
    lg_->warn("reaction on {} failed: {}", message_id, r.describe());
}

} // namespace nb::feishu
