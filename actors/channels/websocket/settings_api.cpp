#include "actors/channels/websocket/settings_api.hpp"

#include <chrono>

#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/websocket/api_util.hpp"
#include "actors/channels/websocket/mcp_probe.hpp"
#include "actors/common/log.hpp"
#include "config/config_save.hpp"
#include "config/json_edit.hpp"
#include "config/provider_edit.hpp"
#include "config/settings_forms.hpp"
#include "messages/channel_admin.hpp"

namespace nb::ws {

namespace {

using nlohmann::json;

/// "settings/channels/telegram" -> {"channels", "telegram", ""}.
struct route {
  std::string section, name, action;
};

std::optional<route> parse_route(const std::string& call_name) {
  static constexpr std::string_view prefix = "settings";
  if (call_name.rfind(prefix, 0) != 0)
    return std::nullopt;
  auto rest = std::string_view{call_name}.substr(prefix.size());
  if (rest.empty())
    return route{};
  if (rest.front() != '/')
    return std::nullopt;
  rest.remove_prefix(1);
  route r;
  std::string* parts[] = {&r.section, &r.name, &r.action};
  for (auto* part : parts) {
    auto slash = rest.find('/');
    *part = std::string{rest.substr(0, slash)};
    if (slash == std::string_view::npos)
      return r;
    rest.remove_prefix(slash + 1);
  }
  return std::nullopt; // too deep
}

json current_view(const std::string& path) {
  auto text = read_file_text(path);
  auto raw = config_json::parse_root(text);
  if (auto* e = std::get_if<config_error>(&raw))
    return {{"error", e->message()}};
  auto loaded = parse_settings(text, path);
  if (auto* e = std::get_if<config_error>(&loaded))
    return {{"error", e->message()}};
  auto& l = std::get<loaded_settings>(loaded);
  auto out = settings_view(std::get<config_json::ojson>(raw), l.value);
  out["warnings"] = l.warnings;
  out["config_path"] = path;
  return out;
}

/// Asks the channel manager about channels.<name> in `text`: "" when it
/// accepts (and, unless dry, restarts that channel), else its error.
std::string ask_manager(caf::actor_system& sys, const settings_context& ctx,
                        const std::string& name, const std::string& text,
                        bool dry_run) {
  auto admin = caf::actor_cast<channel_manager_admin_actor>(ctx.manager);
  if (!admin)
    return "this gateway runs no channel manager";
  std::string failed;
  caf::scoped_actor self{sys};
  self->request(admin, std::chrono::seconds(10),
                channel_reconfigure_atom::value, name, text, dry_run)
    .receive([&](std::string& why) { failed = std::move(why); },
             [&](caf::error& err) { failed = sys.render(err); });
  return failed;
}

/// The channel types a new channel may have (from the manager's adapter
/// table) and the keys each needs.
json channel_kinds(caf::actor_system& sys, const settings_context& ctx) {
  auto admin = caf::actor_cast<channel_manager_admin_actor>(ctx.manager);
  json out = json::array();
  if (!admin)
    return out;
  caf::scoped_actor self{sys};
  self->request(admin, std::chrono::seconds(5), channel_kinds_atom::value)
    .receive(
      [&](std::string& text) {
        auto doc = json::parse(text, nullptr, false);
        if (doc.is_array())
          out = std::move(doc);
      },
      [](caf::error&) {});
  return out;
}

/// `applied`: when the change is in effect ("now", "channel restarted",
/// ...); `restart`: the keys that still wait for a restart of the gateway.
api_reply saved(const std::string& applied, const settings_change& c,
                std::vector<std::string> restart = {}) {
  return answer(200, json{{"ok", true},
                          {"applied", applied},
                          {"restart_keys", std::move(restart)},
                          {"warnings", c.loaded.warnings}});
}

/// What of a tools change waits for a restart: a session's wait for one
/// tool call is set at its start from the exec timeout (at least 600 s).
std::vector<std::string> tools_restart_keys(const settings& s) {
  if (s.tools.exec.timeout_s > 600)
    return {"tools.exec.timeout above 600 s (how long a turn waits for a "
            "tool call)"};
  return {};
}

api_reply save_form(caf::actor_system& sys, const settings_context& ctx,
                    const settings_form& f) {
  std::lock_guard<std::mutex> one_edit{config_edit_mutex()};
  bool channel =
    f.page == settings_page::channel || f.page == settings_page::channel_add;
  bool own = channel && f.name == ctx.own_channel;
  // Made again from the file when it changed before the save (a hand
  // edit): the form's change goes on top of it, neither is lost.
  std::optional<settings_change> made;
  std::optional<api_reply> refused;
  auto w = edit_config_file(
    ctx.config_path,
    [&](const std::string& current) -> std::optional<std::string> {
      auto edited = apply_settings_form(current, f, ctx.config_path);
      if (auto* e = std::get_if<config_error>(&edited)) {
        refused = problem(400, e->message());
        return std::nullopt;
      }
      made = std::move(std::get<settings_change>(edited));
      if (channel) {
        if (auto why = ask_manager(sys, ctx, f.name, made->text, true);
            !why.empty()) {
          refused = problem(400, why);
          return std::nullopt;
        }
      }
      return made->text;
    });
  if (refused)
    return std::move(*refused);
  if (w.outcome != write_outcome::written)
    return problem(500, w.error);
  auto& change = *made;
  log::get("channels")->info("WebUI settings saved to {}",
                             ctx.config_path);
  switch (f.page) {
    case settings_page::model:
      if (auto why = apply_provider(sys, change.text, ctx.config_path);
          !why.empty())
        return problem(500, "saved to " + ctx.config_path
                              + ", but the gateway did not take it: " + why);
      return saved("now", change);
    case settings_page::channel_add:
    case settings_page::channel:
      if (own) {
        // Restarting the channel that serves this answer ends it: the
        // restart waits until the answer is out.
        auto admin = caf::actor_cast<channel_manager_admin_actor>(ctx.manager);
        caf::delayed_anon_send(admin, std::chrono::milliseconds(500),
                               channel_reconfigure_atom::value, f.name,
                               change.text, false);
        return saved("channel restarting (this page reconnects)", change);
      }
      if (auto why = ask_manager(sys, ctx, f.name, change.text, false);
          !why.empty())
        return problem(500, "saved to " + ctx.config_path
                              + ", but the channel did not restart: " + why);
      return saved(f.page == settings_page::channel_add ? "channel started"
                                                        : "channel restarted",
                   change);
    case settings_page::tools:
    case settings_page::mcp:
    case settings_page::mcp_remove:
      if (auto why = apply_tools(sys, change.text, ctx.config_path);
          !why.empty())
        return problem(500, "saved to " + ctx.config_path
                              + ", but the gateway did not take it: " + why);
      return saved("now", change, tools_restart_keys(change.loaded.value));
    case settings_page::agents:
      // The router's agent plan, the channels' bindings and the schedules
      // are made at start.
      return saved("restart", change, {"agents.list", "agents.bindings"});
    default:
      return saved("restart", change);
  }
}

std::optional<api_reply> route_call(caf::actor_system& sys,
                                    const settings_context& ctx,
                                    const api_call& call, const route& r) {
  const auto& m = call.method;
  if (r.section.empty()) {
    if (m != "GET")
      return problem(405, "GET only");
    auto view = current_view(ctx.config_path);
    view["channel_kinds"] = channel_kinds(sys, ctx);
    return answer(200, view);
  }
  auto body = json::parse(call.body.empty() ? "{}" : call.body, nullptr, false);
  if (!body.is_object())
    return problem(400, "expected a JSON object");
  auto one = [&](settings_page page, const std::string& name) {
    return save_form(sys, ctx, settings_form{page, name, body});
  };
  if ((r.section == "model" || r.section == "tools" || r.section == "agents")
      && r.name.empty()) {
    if (m != "PUT")
      return problem(405, "PUT only");
    return one(r.section == "model"   ? settings_page::model
               : r.section == "tools" ? settings_page::tools
                                      : settings_page::agents,
               "");
  }
  if (r.section == "channels" && !r.name.empty() && r.action.empty()) {
    if (m == "POST") // a new channel
      return one(settings_page::channel_add, r.name);
    if (m != "PUT")
      return problem(405, "PUT (a change) or POST (a new channel) only");
    return one(settings_page::channel, r.name);
  }
  if (r.section == "mcp" && !r.name.empty()) {
    if (r.action == "test") {
      if (m != "POST")
        return problem(405, "POST only");
      auto edited = apply_settings_form(
        read_file_text(ctx.config_path),
        settings_form{settings_page::mcp, r.name, body}, ctx.config_path);
      if (auto* e = std::get_if<config_error>(&edited))
        return problem(400, e->message());
      const auto& l = std::get<settings_change>(edited).loaded.value;
      return answer(200, probe_mcp_server(sys, r.name,
                                          l.tools.mcp_servers.at(r.name),
                                          l.tools.ssrf_whitelist));
    }
    if (!r.action.empty())
      return std::nullopt;
    if (m == "PUT")
      return one(settings_page::mcp, r.name);
    if (m == "DELETE")
      return one(settings_page::mcp_remove, r.name);
    return problem(405, "PUT or DELETE only");
  }
  return std::nullopt;
}

} // namespace

std::optional<api_reply> settings_api(caf::actor_system& sys,
                                      const settings_context& ctx,
                                      const api_call& call) {
  auto r = parse_route(call.name);
  if (!r)
    return std::nullopt;
  try {
    return route_call(sys, ctx, call, *r);
  } catch (const std::exception& e) {
    return problem(500, e.what());
  }
}

} // namespace nb::ws
