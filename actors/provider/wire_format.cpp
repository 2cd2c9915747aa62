// The three wire formats behind the wire_format seam.
#include "actors/provider/wire_format.hpp"

#include "actors/provider/anthropic_wire.hpp"
#include "actors/provider/openai_wire.hpp"
#include "actors/provider/responses_wire.hpp"

namespace nb {

namespace {

class openai_format : public wire_format {
public:
  std::string path(const base_url& base) const override {
    return base.path_prefix + "/chat/completions";
  }

  header_list headers(const std::string& api_key) const override {
    if (api_key.empty())
      return {};
    return {{"Authorization", "Bearer " + api_key}};
  }

  std::string body(const model_request& req, const std::string& model,
                   const body_options& opts,
                   std::string& error) const override {
    return build_chat_body(req, model, error, opts);
  }

  std::string parse(std::string_view body, model_reply& out) const override {
    return parse_completion(body, out);
  }

  std::unique_ptr<stream_decoder> decoder() const override {
    return std::make_unique<stream_accumulator>();
  }
};

class anthropic_format : public wire_format {
public:
  /// Users write the base with or without the version segment, as the
  /// Anthropic SDK's base_url ("https://api.anthropic.com") or as the
  /// OpenAI habit ("https://api.anthropic.com/v1").
  std::string path(const base_url& base) const override {
    if (base.path_prefix.ends_with("/v1"))
      return base.path_prefix + "/messages";
    return base.path_prefix + "/v1/messages";
  }

  header_list headers(const std::string& api_key) const override {
    header_list out{{"anthropic-version", std::string{anthropic_version}}};
    if (!api_key.empty())
      out.emplace_back("x-api-key", api_key);
    return out;
  }

  std::string body(const model_request& req, const std::string& model,
                   const body_options& opts,
                   std::string& error) const override {
    return build_anthropic_body(req, model, error, opts);
  }

  std::string parse(std::string_view body, model_reply& out) const override {
    return parse_anthropic_message(body, out);
  }

  std::unique_ptr<stream_decoder> decoder() const override {
    return std::make_unique<anthropic_stream>();
  }
};

/// OpenAI's Responses API: the same host, key and header as Chat
/// Completions; its own path, body and answers.
class responses_format : public openai_format {
public:
  std::string path(const base_url& base) const override {
    return base.path_prefix + "/responses";
  }

  std::string body(const model_request& req, const std::string& model,
                   const body_options& opts,
                   std::string& error) const override {
    return build_responses_body(req, model, error, opts);
  }

  std::string parse(std::string_view body, model_reply& out) const override {
    return parse_responses_body(body, out);
  }

  std::unique_ptr<stream_decoder> decoder() const override {
    return std::make_unique<responses_stream>();
  }
};

} // namespace

std::unique_ptr<wire_format> make_wire_format(wire_api api) {
  if (api == wire_api::anthropic)
    return std::make_unique<anthropic_format>();
  if (api == wire_api::openai_responses)
    return std::make_unique<responses_format>();
  return std::make_unique<openai_format>();
}

} // namespace nb
