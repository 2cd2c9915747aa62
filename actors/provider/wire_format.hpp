// The seam between the HTTP client and a provider's wire protocol: where a
// call goes, which headers and body it carries, how answers and streams
// read. Pure: bytes in, values out.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actors/provider/provider_registry.hpp"
#include "actors/provider/request_extras.hpp"
#include "messages/model.hpp"

namespace nb {

/// A piece of streamed output for the caller.
struct stream_piece {
  std::string text;
  bool reasoning = false; ///< thinking text, never shown as the answer
  /// Not empty: a provider-hosted tool began (model_delta::hosted_tool);
  /// `text` holds its arguments as a JSON object.
  std::string hosted_tool{};
};

/// Rebuilds one streamed answer from the payloads of its SSE events.
class stream_decoder {
public:
  virtual ~stream_decoder() = default;

  /// Applies one `data:` payload; returns the text pieces it carried.
  virtual std::vector<stream_piece> apply(std::string_view data) = 0;

  /// True once the answer is complete (end event or a stop reason seen).
  virtual bool finished() const = 0;

  /// Non-empty once the stream is unusable (not JSON, an error event).
  virtual const std::string& error() const = 0;

  /// Moves the accumulated answer into `out`.
  virtual void finish(model_reply& out) = 0;
};

using header_list = std::vector<std::pair<std::string, std::string>>;

/// One wire protocol (OpenAI chat completions, Anthropic Messages).
class wire_format {
public:
  virtual ~wire_format() = default;

  /// The request path under `base` ("/v1/chat/completions").
  virtual std::string path(const base_url& base) const = 0;

  /// Authentication and protocol headers for `api_key` ("" = none).
  virtual header_list headers(const std::string& api_key) const = 0;

  /// The JSON body for `req` sent as `model`, with what `opts` adds; ""
  /// and `error` set when the request cannot be expressed (messages that
  /// are not a JSON array).
  virtual std::string body(const model_request& req, const std::string& model,
                           const body_options& opts,
                           std::string& error) const = 0;

  /// Fills `out` from a whole (non-streamed) answer; returns "" or why the
  /// body is not a usable answer.
  virtual std::string parse(std::string_view body, model_reply& out) const = 0;

  /// A fresh decoder for one streamed answer.
  virtual std::unique_ptr<stream_decoder> decoder() const = 0;
};

/// The wire format of `api`.
std::unique_ptr<wire_format> make_wire_format(wire_api api);

} // namespace nb
