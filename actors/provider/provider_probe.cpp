#include "actors/provider/provider_probe.hpp"

#include <algorithm>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "actors/provider/retry_policy.hpp"
#include "actors/provider/wire_format.hpp"
#include "actors/common/http_proxy.hpp"

namespace nb {

client_options probe_options() {
  client_options o;
  o.connect_timeout = std::chrono::seconds{10};
  o.attempt_timeout = std::chrono::seconds{30};
  o.call_timeout = std::chrono::seconds{30};
  o.retry_delays.clear();
  return o;
}

model_listing list_models(const provider_choice& choice,
                          const client_options& opts) {
  model_listing out;
  if (!choice.problem.empty() && choice.api_base.empty()) {
    out.error = choice.problem;
    return out;
  }
  auto base = parse_base_url(choice.api_base);
  if (!base) {
    out.error = "the URL \"" + choice.api_base + "\" is not http(s)://host";
    return out;
  }
  httplib::Client http{base->scheme_host_port};
  http.set_follow_location(false);
  auto secs = [](auto d) {
    return std::chrono::duration_cast<std::chrono::seconds>(d).count();
  };
  http.set_connection_timeout(secs(opts.connect_timeout), 0);
  http.set_read_timeout(secs(opts.attempt_timeout), 0);
  if (base->https && !opts.ca_cert_path.empty())
    http.set_ca_cert_path(opts.ca_cert_path);
  use_proxy(http, choice.proxy);
  httplib::Headers headers;
  for (auto& [k, v] : make_wire_format(choice.api)->headers(choice.api_key))
    headers.emplace(k, v);
  for (auto& [k, v] : choice.headers)
    headers.emplace(k, v);
  auto res =
    http.Get(with_query(base->path_prefix + "/models", choice.query), headers);
  if (!res) {
    out.error = "cannot reach " + base->scheme_host_port + ": "
                + httplib::to_string(res.error());
    return out;
  }
  if (res->status < 200 || res->status > 299) {
    out.error = redact(http_error_detail(res->status, res->body),
                       choice.api_key);
    return out;
  }
  auto doc = nlohmann::json::parse(res->body, nullptr, false);
  const nlohmann::json* list = nullptr;
  if (doc.is_object() && doc.contains("data") && doc["data"].is_array())
    list = &doc["data"];
  else if (doc.is_object() && doc.contains("models")
           && doc["models"].is_array())
    list = &doc["models"]; // Ollama's native shape
  if (!list) {
    out.error = "the answer of " + base->path_prefix
                + "/models holds no list of models";
    return out;
  }
  for (auto& m : *list) {
    if (m.is_object() && m.contains("id") && m["id"].is_string())
      out.models.push_back(m["id"].get<std::string>());
    else if (m.is_object() && m.contains("name") && m["name"].is_string())
      out.models.push_back(m["name"].get<std::string>());
  }
  std::sort(out.models.begin(), out.models.end());
  out.models.erase(std::unique(out.models.begin(), out.models.end()),
                   out.models.end());
  return out;
}

probe_outcome probe_model(const provider_choice& choice,
                          client_options opts) {
  probe_outcome out;
  model_client client{choice, std::move(opts)};
  model_request req;
  req.request_id = "setup-test";
  req.messages_json = nlohmann::json::array(
                        {{{"role", "user"},
                          {"content", "Reply with the single word: ready"}}})
                        .dump();
  req.max_tokens = 16;
  req.stream = false;
  auto reply = client.chat(req, callbacks{});
  out.latency_ms = reply.latency_us / 1000;
  if (reply.finish_reason == "error") {
    out.error = reply.error;
    return out;
  }
  out.ok = true;
  out.answer = reply.content.substr(0, 200);
  return out;
}

} // namespace nb
