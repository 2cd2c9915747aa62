// TZif parsing and the wall-clock <-> UTC mapping.
#include "actors/cron/time_zone.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace nb::cron {

namespace {

int64_t be(const std::string& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int k = 0; k < bytes; ++k)
    v = (v << 8) | static_cast<unsigned char>(b[at + k]);
  if (bytes == 4)
    return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

bool valid_name(const std::string& n) {
  if (n.empty() || n.front() == '/' || n.find("..") != std::string::npos)
    return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_'
           || c == '-' || c == '+';
  });
}

std::optional<std::string> slurp(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

} // namespace

time_zone::time_zone() = default;

std::optional<time_zone> time_zone::from_tzif(const std::string& b,
                                              std::string name) {
  constexpr size_t header = 44;
  if (b.size() < header || b.compare(0, 4, "TZif") != 0)
    return std::nullopt;
  // Counts are signed 32-bit in the file; a negative or huge one would
  // wrap the size arithmetic below and pass the bounds check.
  auto counts = [&](size_t at, int64_t* c) {
    for (int k = 0; k < 6; ++k) {
      c[k] = be(b, at + 20 + 4 * k, 4);
      if (c[k] < 0 || c[k] > (1 << 20))
        return false;
    }
    return true;
  };
  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  int64_t c[6];
  if (!counts(0, c))
    return std::nullopt;
  char version = b[4];
  size_t at = header;
  int tbytes = 4;
  if (version >= '2') {
    // Skip the 32-bit block: the 64-bit one follows with its own header.
    at += c[3] * 4 + c[3] + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
    if (b.size() < at + header || b.compare(at, 4, "TZif") != 0
        || !counts(at, c))
      return std::nullopt;
    at += header;
    tbytes = 8;
  }
  size_t need = c[3] * tbytes + c[3] + c[4] * 6 + c[5] + c[2] * (tbytes + 4)
                + c[1] + c[0];
  if (c[4] < 1 || b.size() < at + need)
    return std::nullopt;
  time_zone z;
  z.name_ = std::move(name);
  std::vector<int64_t> type_offsets;
  std::vector<bool> type_dst;
  size_t types_at = at + c[3] * tbytes + c[3];
  for (int64_t k = 0; k < c[4]; ++k) {
    type_offsets.push_back(be(b, types_at + 6 * k, 4));
    type_dst.push_back(b[types_at + 6 * k + 4] != 0);
  }
  for (int64_t k = 0; k < c[3]; ++k) {
    z.times_.push_back(be(b, at + k * tbytes, tbytes));
    auto idx = static_cast<unsigned char>(b[at + c[3] * tbytes + k]);
    if (idx >= type_offsets.size())
      return std::nullopt;
    z.offsets_.push_back(type_offsets[idx]);
  }
  // Before the first transition: the first standard-time type (RFC 8536).
  z.initial_offset_ = type_offsets[0];
  for (size_t k = 0; k < type_dst.size(); ++k)
    if (!type_dst[k]) {
      z.initial_offset_ = type_offsets[k];
      break;
    }
  if (version >= '2') {
    size_t f = at + need;
    if (f < b.size() && b[f] == '\n') {
      auto e = b.find('\n', f + 1);
      if (e != std::string::npos && e > f + 1)
        z.footer_ = posix_tz::parse(b.substr(f + 1, e - f - 1));
    }
  }
  return z;
}

std::optional<time_zone> time_zone::load(const std::string& name,
                                         std::string* error) {
  auto fail = [&](std::string why) -> std::optional<time_zone> {
    if (error)
      *error = std::move(why);
    return std::nullopt;
  };
  if (name == "UTC" || name == "Etc/UTC" || name == "Z")
    return time_zone{};
  std::string path;
  if (name.empty() || name == "local") {
    path = "/etc/localtime";
  } else {
    if (!valid_name(name))
      return fail("'" + name + "' is not a time zone name");
    const char* dir = std::getenv("TZDIR");
    path = std::string{dir && *dir ? dir : "/usr/share/zoneinfo"} + "/" + name;
  }
  auto bytes = slurp(path);
  if (!bytes) {
    if (name.empty() || name == "local")
      return time_zone{}; // no /etc/localtime: the system runs on UTC
    return fail("unknown time zone '" + name + "' (an IANA name such as "
                "'Europe/Berlin' is expected)");
  }
  auto z = from_tzif(*bytes, name.empty() ? "local" : name);
  if (!z)
    return fail("the time zone file " + path + " is not valid TZif data");
  return z;
}

int64_t time_zone::offset_at(int64_t t) const {
  if (times_.empty())
    return footer_ ? footer_->offset_at(t) : initial_offset_;
  if (t < times_.front())
    return initial_offset_;
  if (t >= times_.back() && footer_)
    return footer_->offset_at(t);
  auto i = std::upper_bound(times_.begin(), times_.end(), t) - times_.begin();
  return offsets_[i - 1];
}

local_resolution time_zone::resolve(int64_t local) const {
  // The offsets that could apply: whatever is in force within a day and a
  // bit on either side (no zone moves twice within that).
  std::set<int64_t> offs{offset_at(local - 100000), offset_at(local),
                         offset_at(local + 100000)};
  std::vector<int64_t> hits;
  for (auto o : offs)
    if (offset_at(local - o) == o)
      hits.push_back(local - o);
  std::sort(hits.begin(), hits.end());
  hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
  local_resolution r;
  if (hits.size() == 1) {
    r.first = hits[0];
  } else if (hits.size() >= 2) {
    r.kind = local_resolution::ambiguous;
    r.first = hits.front();
    r.second = hits.back();
  } else {
    // A gap (clocks jumped forward over `local`): find the transition.
    r.kind = local_resolution::gap;
    int64_t lo = local - *offs.rbegin(); // still before the jump
    int64_t hi = local - *offs.begin();  // already after it
    while (hi - lo > 1) {
      auto mid = lo + (hi - lo) / 2;
      if (mid + offset_at(mid) > local)
        hi = mid;
      else
        lo = mid;
    }
    r.first = hi;
  }
  return r;
}

std::string system_zone_name() {
  if (const char* tz = std::getenv("TZ"); tz && *tz) {
    std::string n = *tz == ':' ? tz + 1 : tz;
    if (time_zone::load(n))
      return n;
  }
  std::error_code ec;
  auto target = std::filesystem::read_symlink("/etc/localtime", ec).string();
  if (!ec) {
    auto at = target.find("zoneinfo/");
    if (at != std::string::npos) {
      auto n = target.substr(at + 9);
      if (time_zone::load(n))
        return n;
    }
  }
  return "UTC";
}

} // namespace nb::cron
