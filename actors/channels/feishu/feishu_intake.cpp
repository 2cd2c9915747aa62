#include "actors/channels/feishu/feishu_intake.hpp"

#include <nlohmann/json.hpp>

#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/media_file.hpp"

namespace nb::feishu {

namespace {

using nlohmann::json;

/// A local name for a fetched file: the sender's name without its folders
/// (the kit's save_media keeps only safe characters), prefixed with the
/// message id so two messages' "image.png" do not meet.
std::string local_name(const std::string& message_id, const media_ref& m) {
  if (m.kind == "image")
    return message_id + "_" + m.key + ".jpg";
  auto name = m.file_name;
  if (auto slash = name.find_last_of("/\\"); slash != std::string::npos)
    name = name.substr(slash + 1);
  if (name.empty() || name == "." || name == "..")
    name = m.key;
  // Voice notes are opus in an OGG container.
  if (m.kind == "audio" && name.find('.') == std::string::npos)
    name += ".ogg";
  return message_id + "_" + name;
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
  for (const auto& m : p.media) {
    // The resources API knows two kinds: voice and video are files.
    auto type = m.kind == "image" ? "image" : "file";
    auto path = "/open-apis/im/v1/messages/" + chan::url_encode(p.message_id)
                + "/resources/" + chan::url_encode(m.key) + "?type=" + type;
    std::string bytes, saved;
    auto err = api_.download(path, cfg_.max_media_bytes, bytes);
    if (err.empty())
      saved = chan::save_media(cfg_.media_dir, local_name(p.message_id, m),
                               bytes, cfg_.max_media_bytes, err);
    if (saved.empty()) {
      lg_->warn("could not fetch {} of message {}: {}", m.kind, p.message_id,
                err);
      auto label = m.file_name.empty() ? m.kind : m.file_name;
      chan::add_note(msg.content,
                     "[" + m.kind + ": " + label + " unavailable (" + err + ")]");
      continue;
    }
    msg.media.push_back(saved);
    chan::add_note(msg.content, chan::media_tag(saved));
  }
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
  p.msg->wants_stream = cfg_.streaming;
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
