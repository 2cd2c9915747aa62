#include "actors/channels/api/api_server.hpp"

#include <stdexcept>

#include "actors/channels/api/completion.hpp"
#include "actors/channels/http/http_listener.hpp"
#include "actors/common/log.hpp"

namespace nb {

using namespace nb::api;

namespace {

constexpr const char* json_type = "application/json";

void reply_error(httplib::Response& res, const api_error& err) {
  res.status = err.status;
  res.set_content(error_body(err), json_type);
}

/// Words for the statuses httplib answers by itself (no route, too big, ...).
api_error error_for_status(const httplib::Request& req, int status) {
  switch (status) {
    case 404:
      return {404, "unknown endpoint: " + req.method + ' ' + req.path};
    case 413:
      return {413, "request body exceeds "
                     + std::to_string(max_body_bytes / 1024) + " KiB"};
    case 400:
      return {400, "malformed HTTP request"};
    default:
      return {status, "HTTP error " + std::to_string(status),
              status >= 500 ? "server_error" : "invalid_request_error"};
  }
}

} // namespace

struct api_server::impl {
  api_settings cfg;
  int threads;
  completion_context ctx;
  http_listener listener{"api"};

  impl(caf::actor_system& sys, const settings& all, router_actor router)
    : cfg(all.api),
      threads(all.gateway.http_threads),
      ctx{sys,
          std::move(router),
          std::chrono::seconds(std::max(all.api.timeout_s, 1)),
          all.agent.model,
          std::make_shared<std::atomic<bool>>(false),
          nb::log::get("api")} {
    // nop
  }

  /// Bearer check for every path but /health (nanobot leaves it open).
  httplib::Server::HandlerResponse authorize(const httplib::Request& req,
                                             httplib::Response& res) {
    if (cfg.api_key.empty() || req.path == "/health")
      return httplib::Server::HandlerResponse::Unhandled;
    auto header = req.get_header_value("Authorization");
    if (header.empty()) {
      reply_error(res, {401,
                        "Missing Authorization header. Use: Bearer <api_key>",
                        "authentication_error"});
    } else if (!bearer_matches(header, cfg.api_key)) {
      reply_error(res, {401, "Invalid API key", "authentication_error"});
    } else {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    res.set_header("WWW-Authenticate", "Bearer");
    return httplib::Server::HandlerResponse::Handled;
  }

  void routes() {
    auto& svr = listener.server();
    svr.set_payload_max_length(max_body_bytes);
    svr.set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) {
        return authorize(req, res);
      });
    svr.Get("/health", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"status":"ok"})", json_type);
    });
    svr.Get("/v1/models",
            [this](const httplib::Request&, httplib::Response& res) {
              res.set_content(models_body(ctx.model), json_type);
            });
    svr.Post("/v1/chat/completions",
             [this](const httplib::Request& req, httplib::Response& res) {
               auto parsed = parse_completion_request(req.body);
               if (auto err = std::get_if<api_error>(&parsed)) {
                 ctx.log->debug("rejected completion: {}", err->message);
                 reply_error(res, *err);
                 return;
               }
               answer_completion(ctx, std::get<completion_request>(
                                        std::move(parsed)),
                                 res);
             });
    // httplib's own refusals (no route, body too large) get a body too.
    svr.set_error_handler(
      [](const httplib::Request& req, httplib::Response& res) {
        if (res.body.empty())
          reply_error(res, error_for_status(req, res.status));
      });
    svr.set_exception_handler(
      [this](const httplib::Request&, httplib::Response& res,
             std::exception_ptr ep) {
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          ctx.log->error("API handler failed: {}", e.what());
        } catch (...) {
          ctx.log->error("API handler failed with a non-standard exception");
        }
        reply_error(res, {500, "Internal server error", "server_error"});
      });
  }
};

api_server::api_server(caf::actor_system& sys, router_actor router,
                       const settings& cfg) {
  if (!is_loopback_host(cfg.api.host) && cfg.api.api_key.empty())
    throw std::runtime_error("api.apiKey is required when the API listens "
                             "beyond loopback (api.host is '"
                             + cfg.api.host + "')");
  impl_ = std::make_unique<impl>(sys, cfg, std::move(router));
  impl_->routes();
  const auto& c = impl_->cfg;
  auto port = impl_->listener.start(c.host, c.port, impl_->threads);
  impl_->ctx.log->info("OpenAI-compatible API listening on {}:{}{}", c.host,
                       port, c.api_key.empty() ? "" : " (bearer auth)");
}

api_server::~api_server() {
  stop();
}

void api_server::stop() {
  *impl_->ctx.stopping = true;
  impl_->listener.stop();
}

uint16_t api_server::port() const {
  return impl_->listener.port();
}

} // namespace nb
