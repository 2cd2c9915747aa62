#include "tests/integration/harness.hpp"

#include <cstdlib>

#include <caf/scoped_actor.hpp>

#include "actors/store/session_files.hpp"

namespace nb::test {

temp_home::temp_home() {
  char tmpl[] = "/tmp/nb-it-XXXXXX";
  dir = mkdtemp(tmpl);
}

temp_home::~temp_home() {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

settings settings_for(const temp_home& home, const fake_llm& llm) {
  settings s;
  s.config_path = (home.dir / "config.json").string();
  s.agent.workspace = (home.dir / "workspace").string();
  std::filesystem::create_directories(s.agent.workspace);
  s.agent.model = "test-model";
  s.agent.provider = "custom";
  s.providers["custom"].api_base = llm.base_url();
  return s;
}

chat_reply chat(caf::actor_system& sys, const router_actor& router,
                const std::string& channel, const std::string& chat_id,
                const std::string& text, bool stream,
                std::chrono::seconds timeout) {
  caf::scoped_actor self{sys};
  inbound_msg in;
  in.channel = channel;
  in.sender_id = "tester";
  in.chat_id = chat_id;
  in.content = text;
  in.wants_stream = stream;
  in.reply_to = caf::actor_cast<outbound_sink>(self);
  self->send(router, std::move(in));
  chat_reply out;
  bool done = false;
  while (!done) {
    self->receive(
      [&](outbound_msg& m) {
        if (m.kind != outbound_kind::final_reply) {
          out.before.push_back(std::move(m));
          return;
        }
        out.content = m.content;
        out.is_error = m.is_error;
        out.metadata_json = m.metadata_json;
        out.streamed = m.metadata_json.find("\"streamed\":true") != std::string::npos;
        done = true;
      },
      caf::after(timeout) >> [&] {
        out.timed_out = true;
        done = true;
      });
  }
  return out;
}

std::vector<nlohmann::json> session_messages(const settings& cfg,
                                             const std::string& key) {
  std::vector<nlohmann::json> out;
  auto dir = resolve_sessions_dir(cfg);
  if (!dir)
    return out;
  auto snap = load_session(*dir, key);
  if (!snap)
    return out;
  for (auto& text : snap->messages)
    out.push_back(nlohmann::json::parse(text));
  return out;
}

} // namespace nb::test
