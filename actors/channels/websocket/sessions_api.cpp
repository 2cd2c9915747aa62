#include "actors/channels/websocket/sessions_api.hpp"

#include <variant>

#include <caf/actor_cast.hpp>
#include <caf/actor_registry.hpp>
#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/websocket/api_util.hpp"
#include "messages/errc.hpp"
#include "messages/session_admin.hpp"

namespace nb::ws {

namespace {

using nlohmann::json;

constexpr auto ask_timeout = std::chrono::seconds(30);

/// An error's own words (the store names the file), else CAF's rendering.
api_reply failure(caf::actor_system& sys, const caf::error& err) {
  const auto& ctx = err.context();
  auto text = ctx.size() == 1 && ctx.match_element<std::string>(0)
                ? ctx.get_as<std::string>(0)
                : sys.render(err);
  bool bad_request = err.category() == caf::atom("nb")
                     && err.code()
                          == static_cast<uint8_t>(errc::invalid_arguments);
  return problem(bad_request ? 404 : 500, text);
}

sessions_actor find_router(caf::actor_system& sys) {
  return caf::actor_cast<sessions_actor>(
    sys.registry().get(sessions_atom::value));
}

/// "work:telegram:42" -> channel "telegram", chat "42" (the agent prefix
/// is known from the card); a key without ':' is a channel of its own
/// ("heartbeat").
std::pair<std::string, std::string> split_key(const session_card& c) {
  std::string_view rest = c.key;
  if (c.agent != "main" && rest.starts_with(c.agent + ":"))
    rest.remove_prefix(c.agent.size() + 1);
  auto colon = rest.find(':');
  if (colon == std::string_view::npos)
    return {std::string{rest}, ""};
  return {std::string{rest.substr(0, colon)},
          std::string{rest.substr(colon + 1)}};
}

template <class Reply, class Request>
std::variant<Reply, caf::error> ask(caf::actor_system& sys,
                                    const sessions_actor& router,
                                    Request rq) {
  std::variant<Reply, caf::error> out{caf::error{}};
  caf::scoped_actor self{sys};
  self->request(router, ask_timeout, std::move(rq))
    .receive([&](Reply& r) { out = std::move(r); },
             [&](caf::error& err) { out = std::move(err); });
  return out;
}

api_reply list(caf::actor_system& sys, const sessions_actor& router) {
  auto got = ask<session_catalog>(sys, router, session_catalog_request{});
  if (auto* err = std::get_if<caf::error>(&got))
    return failure(sys, *err);
  json rows = json::array();
  for (auto& c : std::get<session_catalog>(got).sessions) {
    auto [channel, chat] = split_key(c);
    json row = {{"key", c.key},
                    {"agent", c.agent},
                    {"channel", channel},
                    {"chat_id", chat},
                    {"title", c.title},
                    {"archived", c.archived},
                    {"preview", c.preview},
                    {"messages", c.messages},
                    {"updated_ms", c.updated_ms}};
    rows.push_back(std::move(row));
  }
  return answer(200, json{{"sessions", rows}});
}

api_reply transcript(caf::actor_system& sys, const sessions_actor& router,
                     const std::string& key) {
  auto got = ask<session_snapshot>(sys, router, session_load{key});
  if (auto* err = std::get_if<caf::error>(&got))
    return failure(sys, *err);
  auto& snap = std::get<session_snapshot>(got);
  if (!snap.existed)
    return problem(404, "no session " + key + " is stored");
  auto meta = json::parse(snap.metadata_json, nullptr, false);
  if (!meta.is_object())
    meta = json::object();
  json msgs = json::array();
  for (const auto& text : snap.messages) {
    auto m = json::parse(text, nullptr, false);
    if (m.is_object())
      msgs.push_back(std::move(m));
  }
  return answer(200, json{{"key", key},
                          {"title", meta.value("title", std::string{})},
                          {"archived", meta.value("archived", false)},
                          {"messages", std::move(msgs)}});
}

api_reply change(caf::actor_system& sys, const sessions_actor& router,
                 const std::string& key, session_admin a) {
  a.key = key;
  auto got = ask<caf::ok_atom>(sys, router, std::move(a));
  if (auto* err = std::get_if<caf::error>(&got))
    return failure(sys, *err);
  return answer(200, json{{"ok", true}});
}

/// A PUT body: {"title": text} or {"archived": bool}.
std::variant<session_admin, std::string> parse_change(const std::string& body) {
  auto form = json::parse(body, nullptr, false);
  if (!form.is_object())
    return std::string{"expected a JSON object"};
  session_admin a;
  if (auto t = form.find("title"); t != form.end()) {
    if (!t->is_string())
      return std::string{"title: expected a string"};
    a.op = "rename";
    a.title = t->get<std::string>();
    if (a.title.size() > 200)
      return std::string{"title: at most 200 bytes"};
    return a;
  }
  if (auto ar = form.find("archived"); ar != form.end()) {
    if (!ar->is_boolean())
      return std::string{"archived: expected true or false"};
    a.op = ar->get<bool>() ? "archive" : "unarchive";
    return a;
  }
  return std::string{"expected \"title\" or \"archived\""};
}

} // namespace

std::optional<api_reply> sessions_api(caf::actor_system& sys,
                                      const api_call& call) {
  constexpr std::string_view prefix = "sessions/";
  bool all = call.name == "sessions";
  if (!all && !call.name.starts_with(prefix))
    return std::nullopt;
  auto router = find_router(sys);
  if (!router)
    return problem(409, "this process runs no gateway router to ask");
  try {
    if (all)
      return call.method == "GET" ? list(sys, router)
                                  : problem(405, "GET only");
    auto key = call.name.substr(prefix.size());
    if (key.empty())
      return problem(400, "no session key in the path");
    if (call.method == "GET")
      return transcript(sys, router, key);
    if (call.method == "DELETE")
      return change(sys, router, key, session_admin{key, "delete", {}});
    if (call.method != "PUT")
      return problem(405, "GET, PUT or DELETE only");
    auto parsed = parse_change(call.body);
    if (auto* e = std::get_if<std::string>(&parsed))
      return problem(400, *e);
    return change(sys, router, key, std::get<session_admin>(parsed));
  } catch (const std::exception& e) {
    return problem(500, e.what());
  }
}

} // namespace nb::ws
