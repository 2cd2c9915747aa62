// IANA time zones read from the system's tzdata (TZif files under
// /usr/share/zoneinfo, or $TZDIR), with the POSIX rule in the file's footer
// for instants past its last transition. Wall clock <-> UTC, DST included.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nb::cron {

/// A POSIX TZ rule ("CET-1CEST,M3.5.0,M10.5.0/3"): what TZif footers hold.
struct posix_tz {
  int64_t std_offset = 0; ///< seconds east of UTC
  int64_t dst_offset = 0;
  bool has_dst = false;
  struct rule {
    char kind = 'M'; ///< 'M' (month.week.day), 'J' (1..365, no Feb 29), 'N'
    int month = 0, week = 0, day = 0; ///< day: weekday for 'M', else day no.
    int64_t time = 7200; ///< seconds after local midnight
  };
  rule start, end;

  /// Parses a rule; nullopt when malformed.
  static std::optional<posix_tz> parse(const std::string& text);
  /// Offset (seconds east of UTC) in effect at UTC instant `t`.
  int64_t offset_at(int64_t t) const;
};

/// How one wall-clock time maps to UTC.
struct local_resolution {
  enum kind_t { unique, ambiguous, gap } kind = unique;
  int64_t first = 0;  ///< the (earlier) instant; for a gap: when it ends
  int64_t second = 0; ///< ambiguous only: the later instant
};

class time_zone {
public:
  /// UTC.
  time_zone();

  /// Loads an IANA zone ("Europe/Berlin", "UTC"); "" or "local" loads the
  /// system's /etc/localtime. nullopt with `error` set when unknown.
  static std::optional<time_zone> load(const std::string& name,
                                       std::string* error = nullptr);

  const std::string& name() const {
    return name_;
  }

  /// Offset (seconds east of UTC) at UTC instant `t` (seconds).
  int64_t offset_at(int64_t t) const;

  /// Wall-clock seconds at UTC instant `t`.
  int64_t to_local(int64_t t) const {
    return t + offset_at(t);
  }

  /// The UTC instant(s) of wall-clock time `local` (seconds).
  local_resolution resolve(int64_t local) const;

  /// Parses TZif bytes; nullopt when they are not a valid TZif file.
  static std::optional<time_zone> from_tzif(const std::string& bytes,
                                            std::string name);

private:
  std::string name_ = "UTC";
  std::vector<int64_t> times_;  ///< transition instants, ascending
  std::vector<int64_t> offsets_; ///< offset after each transition
  int64_t initial_offset_ = 0;   ///< before the first transition
  std::optional<posix_tz> footer_;
};

/// The system's zone as an IANA name: $TZ when it names one, else the
/// target of the /etc/localtime link, else "UTC".
std::string system_zone_name();

} // namespace nb::cron
