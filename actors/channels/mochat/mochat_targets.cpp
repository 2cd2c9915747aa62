#include "actors/channels/mochat/mochat_targets.hpp"

#include <filesystem>
#include <fstream>

#include "actors/common/log.hpp"
#include "config/atomic_file.hpp"

namespace nb::mochat {

using nlohmann::json;

watch_targets::watch_targets(const mochat_config& cfg, std::string cursor_file)
    : cursor_file_(std::move(cursor_file)) {
  load(cfg.name);
  sessions_.insert(cfg.sessions.begin(), cfg.sessions.end());
  panels_.insert(cfg.panels.begin(), cfg.panels.end());
  for (const auto& s : sessions_)
    if (!cursors_.count(s))
      cold_.insert(s);
}

void watch_targets::load(const std::string& name) {
  std::ifstream f{cursor_file_};
  if (!f)
    return;
  auto doc = json::parse(f, nullptr, false);
  auto cur = doc.is_object() ? doc.value("cursors", json{}) : json{};
  if (!cur.is_object()) {
    log::get("channel." + name)
      ->warn("cursor file {} unreadable: starting without cursors",
             cursor_file_);
    return;
  }
  for (auto& [id, c] : cur.items())
    if (c.is_number_integer() && c.get<int64_t>() >= 0)
      cursors_[id] = c.get<int64_t>();
}

std::string watch_targets::refresh_sessions(rest_api& api,
                                            std::vector<std::string>& fresh,
                                            bool& bad_token) {
  auto a = api.post("/api/claw/sessions/list", json::object());
  bad_token = a.bad_token;
  if (!a.error.empty())
    return a.error;
  for (const auto& s : a.data.value("sessions", json::array())) {
    auto sid = s.is_object() ? s.value("sessionId", json{}) : json{};
    if (!sid.is_string() || sid.get<std::string>().empty())
      continue;
    auto id = sid.get<std::string>();
    if (sessions_.insert(id).second) {
      fresh.push_back(id);
      if (!cursors_.count(id))
        cold_.insert(id);
    }
    if (auto c = s.value("converseId", json{}); c.is_string())
      session_of_converse_[c.get<std::string>()] = id;
  }
  return "";
}

std::string watch_targets::refresh_panels(rest_api& api,
                                          std::vector<std::string>& fresh,
                                          bool& bad_token) {
  auto a = api.post("/api/claw/groups/get", json::object());
  bad_token = a.bad_token;
  if (!a.error.empty())
    return a.error;
  for (const auto& p : a.data.value("panels", json::array())) {
    if (!p.is_object())
      continue;
    if (auto t = p.value("type", json{}); t.is_number_integer() && t != 0)
      continue; // only text panels carry messages
    auto id = p.value("id", json{});
    if (!id.is_string())
      id = p.value("_id", json{});
    if (id.is_string() && !id.get<std::string>().empty()
        && panels_.insert(id.get<std::string>()).second)
      fresh.push_back(id.get<std::string>());
  }
  return "";
}

std::string watch_targets::session_of(const std::string& converse) const {
  auto it = session_of_converse_.find(converse);
  return it == session_of_converse_.end() ? "" : it->second;
}

json watch_targets::cursors() const {
  json out = json::object();
  for (const auto& [id, c] : cursors_)
    out[id] = c;
  return out;
}

int64_t watch_targets::cursor(const std::string& session) const {
  auto it = cursors_.find(session);
  return it == cursors_.end() ? 0 : it->second;
}

std::string watch_targets::move_cursor(const std::string& session,
                                       int64_t cursor) {
  auto it = cursors_.find(session);
  if (cursor < 0 || (it != cursors_.end() && it->second >= cursor))
    return "";
  cursors_[session] = cursor;
  json doc{{"schemaVersion", 1}, {"cursors", cursors()}};
  std::error_code ec;
  std::filesystem::create_directories(
    std::filesystem::path(cursor_file_).parent_path(), ec);
  auto w = replace_file_atomic(cursor_file_, doc.dump(2) + "\n", 0600);
  return w.outcome == write_outcome::failed ? w.error : "";
}

} // namespace nb::mochat
