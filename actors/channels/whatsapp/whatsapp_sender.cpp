#include "actors/channels/whatsapp/whatsapp_sender.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/kit/media_file.hpp"
#include "actors/channels/kit/media_out.hpp"
#include "actors/channels/whatsapp/bridge_frames.hpp"
#include "actors/channels/whatsapp/graph_api.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::whatsapp {

namespace {

using nlohmann::json;

constexpr auto bridge_ack_timeout = std::chrono::seconds(30);

struct sender_state {
  sender_state() = default;
  static inline const char* name = "whatsapp_sender";
  whatsapp_config cfg;
  std::shared_ptr<bridge_outbox> outbox; ///< bridge mode
  std::unique_ptr<graph_api> graph;      ///< cloud mode
};

using sender_pointer = chan::sender_actor::stateful_pointer<sender_state>;

/// The Cloud API's name for an attachment of this media type.
std::string cloud_kind(const std::string& mime) {
  auto top = mime.substr(0, mime.find('/'));
  if (top == "image" || top == "video" || top == "audio")
    return top;
  return "document";
}

std::string via_bridge(sender_state& st, const std::string& to,
                       const std::string& text,
                       const std::vector<std::string>& media) {
  auto submit = [&](json frame) {
    return st.outbox->submit(std::move(frame), bridge_ack_timeout);
  };
  // The bridge reads attachments from its own disk; links go as text.
  std::string words = text;
  std::vector<std::string> files;
  for (const auto& m : media) {
    if (chan::is_web_link(m))
      words += (words.empty() ? "" : "\n") + m;
    else
      files.push_back(m);
  }
  if (files.empty())
    return words.empty() ? "" : submit(send_frame(to, words));
  for (const auto& path : files) {
    // The words ride along as the first attachment's caption.
    if (auto err = submit(send_media_frame(to, path, words)); !err.empty())
      return err;
    words.clear();
  }
  return "";
}

std::string via_cloud(sender_state& st, const std::string& to,
                      const std::string& text,
                      const std::vector<std::string>& media) {
  json base{{"recipient_type", "individual"}, {"to", to}};
  std::string caption = text;
  bool text_alone = media.empty()
                    || cloud_kind(chan::mime_for_path(media.front())) == "audio";
  if (text_alone && !text.empty()) {
    auto body = base;
    body["type"] = "text";
    body["text"] = {{"preview_url", false}, {"body", text}};
    if (auto err = st.graph->send(body); !err.empty())
      return err;
    caption.clear();
  }
  for (const auto& path : media) {
    auto kind = cloud_kind(chan::mime_for_path(path));
    json item;
    if (chan::is_web_link(path)) {
      item["link"] = path;
    } else {
      std::string err;
      auto id = st.graph->upload(path, err);
      if (id.empty())
        return err;
      item["id"] = id;
    }
    if (kind == "document")
      item["filename"] = path.substr(path.rfind('/') + 1);
    if (!caption.empty() && kind != "audio")
      item["caption"] = caption;
    caption.clear();
    auto body = base;
    body["type"] = kind;
    body[kind] = item;
    if (auto err = st.graph->send(body); !err.empty())
      return err;
  }
  return "";
}

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              whatsapp_config cfg,
                                              std::shared_ptr<bridge_outbox> box) {
  name_thread("wa.send"); // detached: this is its own thread
  self->state.cfg = cfg;
  self->state.outbox = std::move(box);
  if (cfg.mode == wa_mode::cloud)
    self->state.graph = std::make_unique<graph_api>(cfg);
  return {
    guard("channels", [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
      if (m.kind != outbound_kind::final_reply
          && m.kind != outbound_kind::progress)
        return caf::ok_atom::value;
      auto media = chan::outbound_media(m.metadata_json);
      if (m.content.empty() && media.empty())
        return caf::ok_atom::value;
      auto& st = self->state;
      auto err = st.cfg.mode == wa_mode::cloud
                   ? via_cloud(st, m.chat_id, m.content, media)
                   : via_bridge(st, m.chat_id, m.content, media);
      if (!err.empty())
        return caf::make_error(caf::sec::runtime_error,
                               "whatsapp send to " + m.chat_id + ": " + err);
      return caf::ok_atom::value;
    }),
    [](const inbound_msg&) {},
  };
}

} // namespace

chan::sender_actor spawn_sender(caf::actor_system& sys, whatsapp_config cfg,
                                std::shared_ptr<bridge_outbox> outbox) {
  return sys.spawn<caf::detached>(sender_impl, std::move(cfg),
                                  std::move(outbox));
}

} // namespace nb::whatsapp
