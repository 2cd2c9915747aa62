// Streamed answers in Feishu, as the original shows them: the first words
// create a CardKit card in streaming mode (one markdown element,
// "streaming_md") and send it to the chat; later deltas set that element's
// text (at most every 0.5 s); the end of the segment sets the whole text
// and turns streaming mode off, so the chat list stops showing it as
// "generating". Every card operation carries a sequence that increases per
// card, as CardKit requires. When Feishu has closed streaming (it does
// after a while) an update reopens it once; when no card could be made or
// kept, the text goes as an ordinary message at the end. A turn's card
// outlives the end of one of its segments: a tool hint of the turn goes
// into it ("🔧 call"), as the original inlines hints while a card is
// open, and the turn's next segment goes on in it.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <spdlog/logger.h>

#include "actors/channels/feishu/feishu_api.hpp"

namespace nb::feishu {

/// The element the card's text lives in (the original's id).
inline constexpr const char* stream_element_id = "streaming_md";

/// Sends one message (msg_type, content) the way the sender sends replies:
/// "" or why not.
using message_send =
  std::function<std::string(const std::string& type, const std::string& content)>;

/// A tool hint as the original shows it: "🔧 " before each line.
std::string tool_hint_markdown(const std::string& hint);

/// The card JSON a streaming answer starts from (schema 2.0, streaming_mode
/// on, an empty markdown element).
nlohmann::json streaming_card();

/// The answers streaming into cards, by chat and stream. Blocking HTTP:
/// the sender's own thread.
class card_streams {
public:
  card_streams(open_api& api, std::shared_ptr<spdlog::logger> log);

  /// More text for stream `key`. The first non-blank text creates the card
  /// and sends it with `send`; a failure is logged, and the text then goes
  /// at the end as a message.
  void delta(const std::string& key, const std::string& piece,
             const message_send& send);

  /// The segment's end (`piece`: its last text, often ""). "" when the
  /// text is shown (or there was none), else why not: the stream is kept
  /// so that the manager's retry of this end sends it then.
  std::string end(const std::string& key, const std::string& piece,
                  const message_send& send);

  /// A tool hint of stream `key`: while the stream has its card (open, or
  /// closed at the end of one of the turn's segments) the hint goes into
  /// the card's text and shows at once. False when there is no card: the
  /// caller sends it on its own.
  bool hint(const std::string& key, const std::string& hint_text);

  /// The turn of `key` is over: its card is not taken up again.
  void forget(const std::string& key);

private:
  struct live {
    std::string text;
    std::string card_id; ///< "" = no card
    int64_t sequence = 0; ///< the last one used on the card
    std::chrono::steady_clock::time_point last_edit;
    bool card_tried = false; ///< one card per stream, asked for once
    bool ending = false;     ///< end() took its piece already
    /// The segment ended: streaming mode is off until more comes.
    bool closed = false;
  };

  /// Streaming mode back on for a closed card, its next text on a new
  /// paragraph. False when Feishu refused.
  bool resume(live& s);

  bool open_card(live& s, const message_send& send);
  /// Sets the card's text; when refused, reopens streaming once and tries
  /// again (the original's recovery after Feishu closed the stream).
  bool show(live& s);
  std::string update(const live& s, int64_t sequence);
  std::string set_streaming(const live& s, bool on, int64_t sequence);

  open_api& api_;
  std::shared_ptr<spdlog::logger> lg_;
  std::map<std::string, live> streams_;
};

} // namespace nb::feishu
