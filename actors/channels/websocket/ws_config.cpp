#include "actors/channels/websocket/ws_config.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "config/keys.hpp"
#include "config/load.hpp"

#ifndef NB_WEBUI_SOURCE_DIR
#define NB_WEBUI_SOURCE_DIR ""
#endif

namespace nb::ws {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const json* member(const json& obj, const char* camel) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (config::key_matches(it.key(), camel) && !it->is_null())
      return &*it;
  return nullptr;
}

bool has_index(const std::string& dir) {
  std::error_code ec;
  return !dir.empty() && fs::exists(dir + "/index.html", ec);
}

} // namespace

std::string default_webui_dir() {
  if (const char* env = std::getenv("NANOBOT_WEBUI_DIR"); env && *env)
    return env;
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto installed = (exe.parent_path() / "../share/nanobot/webui")
                       .lexically_normal().string();
    if (has_index(installed))
      return installed;
  }
  return NB_WEBUI_SOURCE_DIR;
}

std::variant<channel_config, std::string>
parse_channel_config(const settings& cfg, const std::string& name) {
  channel_config out;
  out.server.webui_dir = default_webui_dir();
  out.stats_host = cfg.gateway.host;
  out.stats_port = cfg.gateway.port;
  auto at = "channels." + name + ".";
  auto i = cfg.channels.find(name);
  auto obj = json::parse(i == cfg.channels.end() ? "{}" : i->second.raw_json,
                         nullptr, false);
  if (!obj.is_object())
    return "channels." + name + ": expected an object";
  auto text = [&](const char* key, std::string& into) -> std::string {
    if (const auto* v = member(obj, key)) {
      if (!v->is_string())
        return at + key + ": expected a string";
      into = v->get<std::string>();
    }
    return "";
  };
  for (auto [key, into] : {std::pair{"host", &out.server.host},
                           std::pair{"path", &out.server.path},
                           std::pair{"token", &out.server.token},
                           std::pair{"webuiDir", &out.server.webui_dir}})
    if (auto err = text(key, *into); !err.empty())
      return err;
  if (out.server.path.empty() || out.server.path[0] != '/')
    return at + "path: must start with '/'";
  if (const auto* v = member(obj, "port")) {
    if (!v->is_number_integer() || v->get<int64_t>() < 0
        || v->get<int64_t>() > 65535)
      return at + "port: expected an integer 0-65535";
    out.server.port = static_cast<uint16_t>(v->get<int64_t>());
  }
  if (const auto* v = member(obj, "maxMessageBytes")) {
    if (!v->is_number_integer() || v->get<int64_t>() < 1024
        || v->get<int64_t>() > 41943040)
      return at + "maxMessageBytes: expected an integer 1024-41943040";
    out.server.max_message_bytes = static_cast<size_t>(v->get<int64_t>());
  }
  if (const auto* v = member(obj, "maxQueuedBytes")) {
    if (!v->is_number_integer() || v->get<int64_t>() < 65536
        || v->get<int64_t>() > 1073741824)
      return at + "maxQueuedBytes: expected an integer 65536-1073741824";
    out.server.max_queued_bytes = static_cast<size_t>(v->get<int64_t>());
  }
  if (const auto* v = member(obj, "streaming")) {
    if (!v->is_boolean())
      return at + "streaming: expected a boolean";
    out.streaming = v->get<bool>();
  }
  if (const auto* v = member(obj, "allowFrom")) {
    if (!v->is_array())
      return at + "allowFrom: expected a list of strings";
    out.allow_from.clear();
    for (const auto& x : *v) {
      if (!x.is_string())
        return at + "allowFrom: expected a list of strings";
      out.allow_from.push_back(x.get<std::string>());
    }
  }
  if (!is_loopback_host(out.server.host) && out.server.token.empty())
    return at + "token: required when host is not a loopback address";
  return out;
}

} // namespace nb::ws
