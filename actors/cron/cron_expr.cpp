#include "actors/cron/cron_expr.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include "actors/cron/civil_time.hpp"
#include "actors/common/strings.hpp"

namespace nb::cron {

namespace {

struct field_spec {
  const char* name;
  int min, max;
  const char* const* names; ///< null, or max-min+1 three-letter names
};

const char* const month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                   "jul", "aug", "sep", "oct", "nov", "dec"};
const char* const dow_names[] = {"sun", "mon", "tue", "wed",
                                 "thu", "fri", "sat", "sun"};

const field_spec specs[5] = {
  {"minute", 0, 59, nullptr},
  {"hour", 0, 23, nullptr},
  {"day of month", 1, 31, nullptr},
  {"month", 1, 12, month_names},
  {"day of week", 0, 7, dow_names},
};

/// One value: a number or a name. Returns false with `err` set.
bool value(const field_spec& f, const std::string& tok, int& out,
           std::string& err) {
  if (tok.empty()) {
    err = "an empty value";
    return false;
  }
  if (std::all_of(tok.begin(), tok.end(),
                  [](unsigned char c) { return std::isdigit(c); })) {
    if (tok.size() > 4) {
      err = "'" + tok + "' is out of range " + std::to_string(f.min) + "-"
            + std::to_string(f.max);
      return false;
    }
    out = std::stoi(tok);
  } else if (f.names) {
    auto t = ascii_lower(tok);
    int n = f.max - f.min + 1;
    int found = -1;
    for (int k = 0; k < n && found < 0; ++k)
      if (t == f.names[k])
        found = f.min + k;
    if (found < 0) {
      err = "'" + tok + "' is not a number or a "
            + std::string{f.max == 12 ? "month" : "weekday"}
            + " name";
      return false;
    }
    out = found;
  } else {
    err = "'" + tok + "' is not a number";
    if (tok == "L" || tok == "W" || tok.find('#') != std::string::npos
        || tok == "?")
      err += " (the L, W, # and ? extensions are not supported)";
    return false;
  }
  if (out < f.min || out > f.max) {
    err = "'" + tok + "' is out of range " + std::to_string(f.min) + "-"
          + std::to_string(f.max);
    return false;
  }
  return true;
}

/// Parses one field into `bits` (index = value). Returns false with `err`.
template <size_t N>
bool field(const field_spec& f, const std::string& text, std::bitset<N>& bits,
           std::string& err) {
  std::stringstream ss{text};
  std::string item;
  while (std::getline(ss, item, ',')) {
    int step = 1;
    if (auto slash = item.find('/'); slash != std::string::npos) {
      auto s = item.substr(slash + 1);
      if (s.empty() || s.size() > 4
          || !std::all_of(s.begin(), s.end(),
                          [](unsigned char c) { return std::isdigit(c); })
          || std::stoi(s) == 0) {
        err = "step '" + s + "' must be a positive number";
        return false;
      }
      step = std::stoi(s);
      item.erase(slash);
    }
    int lo, hi;
    if (item == "*") {
      lo = f.min;
      hi = f.max == 7 ? 6 : f.max;
    } else if (auto dash = item.find('-'); dash != std::string::npos) {
      if (!value(f, item.substr(0, dash), lo, err)
          || !value(f, item.substr(dash + 1), hi, err))
        return false;
      if (hi < lo) {
        err = "range '" + item + "' runs backwards";
        return false;
      }
    } else {
      if (!value(f, item, lo, err))
        return false;
      // "5/15" means from 5 to the end, every 15.
      hi = step > 1 ? (f.max == 7 ? 6 : f.max) : lo;
    }
    for (int v = lo; v <= hi; v += step)
      bits.set(f.max == 7 ? v % 7 : v); // 7 is Sunday too
  }
  if (text.empty() || text.back() == ',' || text.front() == ',') {
    err = "an empty list item";
    return false;
  }
  return true;
}

std::string expand_shorthand(const std::string& t) {
  auto l = ascii_lower(t);
  if (l == "@yearly" || l == "@annually")
    return "0 0 1 1 *";
  if (l == "@monthly")
    return "0 0 1 * *";
  if (l == "@weekly")
    return "0 0 * * 0";
  if (l == "@daily" || l == "@midnight")
    return "0 0 * * *";
  if (l == "@hourly")
    return "0 * * * *";
  return t;
}

} // namespace

std::optional<cron_expr> cron_expr::parse(const std::string& text,
                                          std::string* error) {
  auto fail = [&](std::string why) -> std::optional<cron_expr> {
    if (error)
      *error = "cron expression '" + text + "': " + why;
    return std::nullopt;
  };
  std::vector<std::string> parts;
  std::stringstream ss{expand_shorthand(text)};
  for (std::string p; ss >> p;)
    parts.push_back(p);
  if (parts.size() != 5)
    return fail("expected 5 fields (minute hour day-of-month month "
                "day-of-week), got " + std::to_string(parts.size()));
  cron_expr e;
  e.text_ = text;
  std::string err;
  std::bitset<8> dows;
  auto bad = [&](int k) {
    return fail(std::string{specs[k].name} + " field: " + err);
  };
  if (!field(specs[0], parts[0], e.minutes_, err))
    return bad(0);
  if (!field(specs[1], parts[1], e.hours_, err))
    return bad(1);
  if (!field(specs[2], parts[2], e.doms_, err))
    return bad(2);
  if (!field(specs[3], parts[3], e.months_, err))
    return bad(3);
  if (!field(specs[4], parts[4], dows, err))
    return bad(4);
  for (int d = 0; d < 7; ++d)
    e.dows_[d] = dows[d];
  // As cron(8): a field starting with '*' counts as unrestricted.
  e.dom_star_ = parts[2].front() == '*';
  e.dow_star_ = parts[4].front() == '*';
  e.hour_star_ = parts[1].front() == '*';
  return e;
}

bool cron_expr::day_matches(int64_t days) const {
  auto c = civil_from_days(days);
  if (!months_[c.month])
    return false;
  bool dom = doms_[c.day];
  bool dow = dows_[weekday_from_days(days)];
  // cron(8): when either field starts with '*', both must match (a plain
  // '*' matches every day); when both are restricted, either may.
  if (dom_star_ || dow_star_)
    return dom && dow;
  return dom || dow;
}

std::optional<int64_t> cron_expr::next_local(int64_t local,
                                             int64_t limit) const {
  // Round up to a whole minute.
  local = floor_div(local + 59, 60) * 60;
  auto days = floor_div(local, 86400);
  int start_min = static_cast<int>((local - days * 86400) / 60);
  for (; days * 86400 <= limit; ++days, start_min = 0) {
    if (!day_matches(days))
      continue;
    for (int m = start_min; m < 24 * 60; ++m) {
      int h = m / 60;
      if (!hours_[h]) {
        m = h * 60 + 59; // skip the rest of this hour
        continue;
      }
      if (minutes_[m % 60])
        return days * 86400 + m * 60;
    }
  }
  return std::nullopt;
}

std::optional<int64_t> cron_expr::next_after(int64_t after,
                                             const time_zone& zone) const {
  constexpr int64_t horizon = 8 * 366 * 86400LL;
  // Start three hours of wall clock early: after a fall-back, earlier wall
  // times can still be ahead of `after` in real time.
  constexpr int64_t slack = 3 * 3600;
  auto local = zone.to_local(after) - slack;
  auto limit = local + horizon;
  std::optional<int64_t> best;
  while (auto l = next_local(local, limit)) {
    if (best && *l > zone.to_local(*best) + slack)
      break;
    auto r = zone.resolve(*l);
    auto consider = [&](int64_t t) {
      if (t > after && (!best || t < *best))
        best = t;
    };
    consider(r.first);
    if (r.kind == local_resolution::ambiguous && hour_star_)
      consider(r.second);
    local = *l + 60;
  }
  return best;
}

} // namespace nb::cron
