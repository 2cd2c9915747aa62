// Pairing: an unknown direct-message sender gets a short code; the owner
// approves it with `/pairing approve <code>`. Kept in <config-dir>/
// pairing.json so approvals survive a restart.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace nb {

/// Codes are valid this long (nanobot's TTL).
inline constexpr int64_t pairing_ttl_s = 600;

struct pairing_request {
  std::string code; ///< "ABCD-EFGH"
  std::string channel;
  std::string sender_id;
  std::string chat_id;
  int64_t expires_at = 0; ///< unix seconds
};

/// Pending codes and approved senders per channel.
class pairing_book {
public:
  /// The pending code of this sender, or a new one. `now` in unix seconds.
  const pairing_request& request(const std::string& channel,
                                 const std::string& sender,
                                 const std::string& chat, int64_t now,
                                 std::mt19937_64& rng);

  /// Approves `code` (any case, with or without the dash); nullopt when it
  /// is unknown or expired.
  std::optional<pairing_request> approve(const std::string& code,
                                         int64_t now);

  /// Forgets `code`; whether it was pending.
  bool deny(const std::string& code);

  bool is_approved(const std::string& channel,
                   const std::string& sender) const;

  /// Unexpired pending requests.
  std::vector<pairing_request> pending(int64_t now) const;

  /// The file's JSON text.
  std::string to_json() const;
  /// Reads the file's text; bad entries are skipped. nullopt: not JSON.
  static std::optional<pairing_book> from_json(const std::string& text);

private:
  void drop_expired(int64_t now);
  std::vector<pairing_request> pending_;
  std::map<std::string, std::set<std::string>> approved_;
};

/// "abcd-efgh" / "ABCDEFGH" -> "ABCD-EFGH"; "" when not 8 code characters.
std::string normalise_pairing_code(const std::string& text);

/// <config-dir>/pairing.json read at start; an unreadable or corrupt file
/// gives an empty book and a warning (it is renamed aside, never deleted).
pairing_book load_pairing_book(const std::string& path);

} // namespace nb
