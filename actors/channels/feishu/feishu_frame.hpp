// The frames of Feishu's WebSocket long connection: pbbp2.Frame (proto2,
// lark-oapi's ws/pb/pbbp2.proto) written and read by hand, and the joining
// of a payload that arrives in several frames.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nb::feishu {

/// method: what a frame carries.
enum class frame_method : int32_t { control = 0, data = 1 };

/// One pbbp2.Frame. Header order is kept: an acknowledgement is the frame
/// sent back with one header added.
struct frame {
  uint64_t seq_id = 0;   ///< SeqID (1)
  uint64_t log_id = 0;   ///< LogID (2)
  int32_t service = 0;   ///< service (3)
  int32_t method = 0;    ///< method (4): frame_method
  std::vector<std::pair<std::string, std::string>> headers; ///< (5)
  std::string payload_encoding; ///< (6)
  std::string payload_type;     ///< (7)
  std::string payload;          ///< (8), bytes
  std::string log_id_new;       ///< LogIDNew (9)

  /// The value of header `key` ("" when absent).
  std::string header(const std::string& key) const;
  void set_header(const std::string& key, const std::string& value);
};

/// The frame's protobuf encoding.
std::string encode(const frame& f);

/// Parses `bytes`; nullopt with `error` set when they are not a Frame
/// (truncated, a wrong wire type, a required field missing).
std::optional<frame> decode(const std::string& bytes, std::string& error);

/// A ping control frame for `service` (the service_id of the URL).
frame ping_frame(int32_t service);

/// The acknowledgement of data frame `f`: the same frame with payload
/// {"code":<code>} and a biz_rt header (handling time in ms).
frame ack_frame(frame f, int code, int64_t biz_rt_ms);

/// Joins payloads split over several frames ("sum" parts numbered by "seq"
/// under one "message_id"). Parts of an unfinished payload are dropped after
/// `ttl_ms` (lark-oapi keeps them 5 s).
class fragment_joiner {
public:
  explicit fragment_joiner(int64_t ttl_ms = 5000) : ttl_ms_(ttl_ms) {}

  /// The whole payload once part `seq` of `sum` completes it, else nullopt
  /// (also for a seq outside 0..sum-1, with `error` set).
  std::optional<std::string> add(const std::string& message_id, int sum,
                                 int seq, std::string part, int64_t now_ms,
                                 std::string& error);

  size_t pending() const { return parts_.size(); }

private:
  struct partial {
    std::vector<std::optional<std::string>> parts;
    int64_t started_ms = 0;
  };
  int64_t ttl_ms_;
  std::map<std::string, partial> parts_;
};

} // namespace nb::feishu
