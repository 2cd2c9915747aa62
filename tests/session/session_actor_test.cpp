// The session actor at the message level: inbound messages in, replies and
// stored transcripts out. The store is the in-memory one temporary chats use;
// the model is a stand-in provider answering on the typed interface (no HTTP),
// so the real runner the session spawns runs each turn against it.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/session/session.hpp"
#include "actors/store/memory_store.hpp"
#include "actors/store/session_store.hpp"
#include "tests/support/scripted_model.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using nb::test::scripted_model;
using nb::test::scripted_model_actor;
using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

settings actor_test_presets() {
  settings s;
  s.agent.model = "base-model";
  model_preset fast;
  fast.model = "fast-model";
  s.model_presets["Fast"] = fast;
  return s;
}

struct session_rig {
  test::system_fixture fx;
  test::scratch_dir workspace, sessions;
  store_admin_actor store;
  scripted_model_actor model = fx.sys.spawn(scripted_model);
  session_goal_view session;
  std::string key = "test:chat";

  /// `on_files`: the file store on a scratch directory (else the memory
  /// store temporary chats use).
  explicit session_rig(bool on_files = false) {
    store = on_files ? caf::actor_cast<store_admin_actor>(
                         spawn_store(fx.sys, sessions.path, 1, stats_actor{}))
                     : fx.sys.spawn(memory_store_impl);
    spawn_session();
  }

  /// A session for `key`, as the router makes one (again after a restart).
  void spawn_session() {
    auto cfg = make_session_config(actor_test_presets());
    cfg.workspace = workspace.path;
    cfg.idle = std::chrono::hours(1);
    cfg.model_timeout = 30s;
    session_services svc;
    svc.store = store;
    svc.provider = model;
    session = fx.sys.spawn(session_impl, key, cfg, svc, router_actor{});
  }

  ~session_rig() {
    for (auto a : {caf::actor_cast<caf::actor>(session),
                   caf::actor_cast<caf::actor>(model),
                   caf::actor_cast<caf::actor>(store)})
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }

  inbound_msg message(const std::string& text, caf::scoped_actor& from) {
    inbound_msg in;
    in.channel = "test";
    in.chat_id = "chat";
    in.sender_id = "tester";
    in.content = text;
    in.reply_to = caf::actor_cast<outbound_sink>(from);
    return in;
  }

  /// The next final reply `self` receives (content empty on a timeout).
  static outbound_msg final_reply(caf::scoped_actor& self) {
    outbound_msg out;
    bool done = false;
    while (!done)
      self->receive(
        [&](outbound_msg& m) {
          if (m.kind != outbound_kind::final_reply)
            return;
          out = std::move(m);
          done = true;
        },
        caf::after(30s) >> [&] { done = true; });
    return out;
  }

  outbound_msg say(const std::string& text) {
    caf::scoped_actor self{fx.sys};
    self->send(session, message(text, self));
    return final_reply(self);
  }

  /// The stored messages of the chat and its metadata.
  session_snapshot stored() {
    caf::scoped_actor self{fx.sys};
    session_snapshot snap;
    self->request(store, 10s, session_load{key})
      .receive([&](session_snapshot& s) { snap = std::move(s); },
               [](caf::error&) {});
    return snap;
  }

  std::vector<std::string> stored_texts(const std::string& role) {
    std::vector<std::string> out;
    for (auto& text : stored().messages) {
      auto m = json::parse(text);
      if (m.value("role", "") == role && m["content"].is_string())
        out.push_back(m["content"]);
    }
    return out;
  }

  std::vector<std::string> calls_cancelled() {
    caf::scoped_actor self{fx.sys};
    std::vector<std::string> out;
    self->request(model, 10s, caf::get_atom::value, cancel_turn_atom::value)
      .receive([&](std::vector<std::string>& ids) { out = std::move(ids); },
               [](caf::error&) {});
    return out;
  }

  std::vector<std::string> models_asked() {
    caf::scoped_actor self{fx.sys};
    std::vector<std::string> out;
    self->request(model, 10s, caf::get_atom::value)
      .receive(
        [&](std::vector<std::string>& models) { out = std::move(models); },
        [](caf::error&) {});
    return out;
  }
};

json meta_of(const outbound_msg& m) {
  return json::parse(m.metadata_json, nullptr, false);
}

} // namespace

TEST_CASE("session: a turn is answered with its metadata and stored") {
  session_rig rig;
  auto reply = rig.say("hello");
  CHECK(reply.content == "echo: hello");
  CHECK_FALSE(reply.is_error);
  auto meta = meta_of(reply);
  REQUIRE(meta.is_object());
  CHECK(meta["stop_reason"] == "completed");
  CHECK(meta["streamed"] == false);
  CHECK(meta["usage"]["prompt_tokens"] == 100);
  CHECK(rig.stored_texts("user") == std::vector<std::string>{"hello"});
  CHECK(rig.stored_texts("assistant")
        == std::vector<std::string>{"echo: hello"});
  CHECK(rig.models_asked() == std::vector<std::string>{"base-model"});
}

TEST_CASE("session: /model switches what the next turn uses and is stored") {
  session_rig rig;
  auto switched = rig.say("/model fast");
  CHECK(switched.content.rfind("Switched this chat to preset Fast", 0) == 0);
  // A command's answer carries no turn metadata: no model ran.
  CHECK(meta_of(switched)["render_as"] == "text");
  auto meta = json::parse(rig.stored().metadata_json, nullptr, false);
  REQUIRE(meta.is_object());
  CHECK(meta["model_preset"] == "Fast");
  auto reply = rig.say("which model?");
  CHECK(reply.content == "echo: which model?");
  CHECK(rig.models_asked() == std::vector<std::string>{"fast-model"});
}

TEST_CASE("session: /stop ends the running turn and the next one starts "
          "clean") {
  session_rig rig;
  caf::scoped_actor asker{rig.fx.sys};
  asker->send(rig.session, rig.message("hold on, think long", asker));
  // The model has the request (and holds it).
  bool asked = false;
  for (int i = 0; i < 2000 && !asked; ++i) {
    asked = rig.models_asked().size() == 1;
    if (!asked)
      std::this_thread::sleep_for(10ms);
  }
  REQUIRE(asked);
  caf::scoped_actor stopper{rig.fx.sys};
  stopper->send(rig.session, rig.message("/stop", stopper));
  auto stopped = session_rig::final_reply(stopper);
  CHECK(stopped.content == "Stopped 1 task(s).");
  // The caller still waiting for the stopped turn hears that it ended.
  auto ended = session_rig::final_reply(asker);
  CHECK(ended.content == "Stopped before finishing.");
  CHECK(meta_of(ended)["stop_reason"] == "cancelled");
  // The model call was cancelled at the provider, not left to run on.
  auto cancelled = rig.calls_cancelled();
  REQUIRE(cancelled.size() == 1);
  CHECK(cancelled[0].ends_with(":0")); // the turn's first model call
  // Nothing of the stopped turn is left over: the next one runs and ends
  // as completed.
  auto next = rig.say("are you back?");
  CHECK(next.content == "echo: are you back?");
  CHECK(meta_of(next)["stop_reason"] == "completed");
  CHECK(rig.stored_texts("user")
        == std::vector<std::string>{"hold on, think long", "are you back?"});
}

namespace {

/// Every line of the one session file under `dir`.
std::vector<json> session_file_lines(const std::string& dir) {
  std::vector<json> out;
  for (auto& f : std::filesystem::recursive_directory_iterator(dir))
    if (f.path().extension() == ".jsonl") {
      std::ifstream in{f.path()};
      for (std::string line; std::getline(in, line);)
        if (!line.empty())
          out.push_back(json::parse(line));
    }
  return out;
}

/// The usage objects of the file's answers to "hello".
std::vector<json> hello_usages(const std::string& dir) {
  std::vector<json> out;
  for (auto& l : session_file_lines(dir))
    if (l.value("role", "") == "assistant"
        && l.value("content", "") == "echo: hello")
      out.push_back(l.value("usage", json()));
  return out;
}

} // namespace

// A transcript keeps each assistant line's usage apart, as compact text
// (transcript_entry): the file must still carry it, in place, when the
// session rewrites the file from its transcript, and /stats must still read
// it, also in a session made again from the file.
TEST_CASE("session: an answer's usage survives a rewrite of the session file "
          "and is read back") {
  session_rig rig{true};
  REQUIRE(rig.say("hello").content == "echo: hello");
  // /model saves the preset: the whole file is written again from the
  // transcript the session holds.
  REQUIRE(rig.say("/model fast").content.rfind("Switched this chat", 0) == 0);
  auto lines = session_file_lines(rig.sessions.path);
  REQUIRE_FALSE(lines.empty());
  CHECK(lines[0]["metadata"]["model_preset"] == "Fast"); // it was rewritten
  auto usages = hello_usages(rig.sessions.path);
  REQUIRE(usages.size() == 1);
  CHECK(usages[0]["prompt_tokens"] == 100);
  CHECK(usages[0]["completion_tokens"] == 5);
  auto stats = rig.say("/stats").content;
  CHECK(stats.find("1 turn(s)") != std::string::npos);
  CHECK(stats.find("100 in / 5 out") != std::string::npos);
  // A restart: the session is made again from the file.
  caf::anon_send_exit(rig.session, caf::exit_reason::user_shutdown);
  rig.spawn_session();
  auto again = rig.say("/stats").content;
  CHECK(again.find("1 turn(s)") != std::string::npos);
  CHECK(again.find("100 in / 5 out") != std::string::npos);
  // Its own rewrite keeps the usage too.
  REQUIRE(rig.say("/model default").content.rfind("Switched this chat", 0)
          == 0);
  usages = hello_usages(rig.sessions.path);
  REQUIRE(usages.size() == 1);
  CHECK(usages[0]["prompt_tokens"] == 100);
}
