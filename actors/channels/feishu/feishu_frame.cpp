#include "actors/channels/feishu/feishu_frame.hpp"

namespace nb::feishu {

namespace {

// Wire types of the protobuf encoding.
constexpr int varint = 0;
constexpr int fixed64 = 1;
constexpr int length_delimited = 2;
constexpr int fixed32 = 5;

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

void put_key(std::string& out, int field, int wire) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | wire);
}

void put_bytes(std::string& out, int field, const std::string& s) {
  put_key(out, field, length_delimited);
  put_varint(out, s.size());
  out += s;
}

void put_number(std::string& out, int field, uint64_t v) {
  put_key(out, field, varint);
  put_varint(out, v);
}

/// Reads the encoding of one message; every method fails with a reason.
class reader {
public:
  explicit reader(const std::string& s) : s_(s) {}

  bool done() const { return pos_ >= s_.size(); }

  bool get_varint(uint64_t& v, std::string& error) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= s_.size()) {
        error = "truncated varint";
        return false;
      }
      auto b = static_cast<uint8_t>(s_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0)
        return true;
    }
    error = "varint longer than 10 bytes";
    return false;
  }

  bool get_bytes(std::string& out, std::string& error) {
    uint64_t n = 0;
    if (!get_varint(n, error))
      return false;
    if (n > s_.size() - pos_) {
      error = "field longer than the frame";
      return false;
    }
    out.assign(s_, pos_, n);
    pos_ += n;
    return true;
  }

  /// Steps over a field this parser does not know.
  bool skip(int wire, std::string& error) {
    uint64_t ignored = 0;
    std::string bytes;
    size_t width = 0;
    switch (wire) {
      case varint: return get_varint(ignored, error);
      case length_delimited: return get_bytes(bytes, error);
      case fixed64: width = 8; break;
      case fixed32: width = 4; break;
      default:
        error = "unsupported wire type " + std::to_string(wire);
        return false;
    }
    if (width > s_.size() - pos_) {
      error = "truncated fixed field";
      return false;
    }
    pos_ += width;
    return true;
  }

private:
  const std::string& s_;
  size_t pos_ = 0;
};

bool decode_header(const std::string& bytes,
                   std::pair<std::string, std::string>& out,
                   std::string& error) {
  reader r{bytes};
  bool has_key = false, has_value = false;
  while (!r.done()) {
    uint64_t key = 0;
    if (!r.get_varint(key, error))
      return false;
    int field = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    bool ok = false;
    if (field == 1 && wire == length_delimited)
      ok = has_key = r.get_bytes(out.first, error);
    else if (field == 2 && wire == length_delimited)
      ok = has_value = r.get_bytes(out.second, error);
    else
      ok = r.skip(wire, error);
    if (!ok)
      return false;
  }
  if (!has_key || !has_value)
    error = "header without key or value";
  return has_key && has_value;
}

} // namespace

std::string frame::header(const std::string& key) const {
  for (const auto& [k, v] : headers)
    if (k == key)
      return v;
  return "";
}

void frame::set_header(const std::string& key, const std::string& value) {
  for (auto& [k, v] : headers)
    if (k == key) {
      v = value;
      return;
    }
  headers.emplace_back(key, value);
}

std::string encode(const frame& f) {
  std::string out;
  put_number(out, 1, f.seq_id);
  put_number(out, 2, f.log_id);
  // int32 is sign-extended to 64 bits on the wire.
  put_number(out, 3, static_cast<uint64_t>(static_cast<int64_t>(f.service)));
  put_number(out, 4, static_cast<uint64_t>(static_cast<int64_t>(f.method)));
  for (const auto& [k, v] : f.headers) {
    std::string h;
    put_bytes(h, 1, k);
    put_bytes(h, 2, v);
    put_bytes(out, 5, h);
  }
  if (!f.payload_encoding.empty())
    put_bytes(out, 6, f.payload_encoding);
  if (!f.payload_type.empty())
    put_bytes(out, 7, f.payload_type);
  if (!f.payload.empty())
    put_bytes(out, 8, f.payload);
  if (!f.log_id_new.empty())
    put_bytes(out, 9, f.log_id_new);
  return out;
}

std::optional<frame> decode(const std::string& bytes, std::string& error) {
  frame f;
  reader r{bytes};
  unsigned seen = 0; // bit n: field n was present
  while (!r.done()) {
    uint64_t key = 0;
    if (!r.get_varint(key, error))
      return std::nullopt;
    int field = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    if (field == 0) {
      error = "field number 0";
      return std::nullopt;
    }
    uint64_t n = 0;
    std::string s;
    bool ok = true;
    if (field >= 1 && field <= 4 && wire == varint) {
      ok = r.get_varint(n, error);
      if (field == 1)
        f.seq_id = n;
      else if (field == 2)
        f.log_id = n;
      else if (field == 3)
        f.service = static_cast<int32_t>(n);
      else
        f.method = static_cast<int32_t>(n);
    } else if (field >= 5 && field <= 9 && wire == length_delimited) {
      ok = r.get_bytes(s, error);
      if (ok && field == 5) {
        std::pair<std::string, std::string> h;
        ok = decode_header(s, h, error);
        f.headers.push_back(std::move(h));
      } else if (field == 6) {
        f.payload_encoding = std::move(s);
      } else if (field == 7) {
        f.payload_type = std::move(s);
      } else if (field == 8) {
        f.payload = std::move(s);
      } else if (field == 9) {
        f.log_id_new = std::move(s);
      }
    } else if (field <= 9) {
      error = "field " + std::to_string(field) + " has wire type "
              + std::to_string(wire);
      return std::nullopt;
    } else {
      ok = r.skip(wire, error);
    }
    if (!ok)
      return std::nullopt;
    if (field < 32)
      seen |= 1u << field;
  }
  constexpr unsigned required = 0b11110; // SeqID, LogID, service, method
  if ((seen & required) != required) {
    error = "a required field (SeqID, LogID, service, method) is missing";
    return std::nullopt;
  }
  return f;
}

frame ping_frame(int32_t service) {
  frame f;
  f.service = service;
  f.method = static_cast<int32_t>(frame_method::control);
  f.headers.emplace_back("type", "ping");
  return f;
}

frame ack_frame(frame f, int code, int64_t biz_rt_ms) {
  f.set_header("biz_rt", std::to_string(biz_rt_ms));
  f.payload = "{\"code\":" + std::to_string(code) + "}";
  return f;
}

std::optional<std::string>
fragment_joiner::add(const std::string& message_id, int sum, int seq,
                     std::string part, int64_t now_ms, std::string& error) {
  for (auto it = parts_.begin(); it != parts_.end();)
    it = now_ms - it->second.started_ms > ttl_ms_ ? parts_.erase(it)
                                                  : std::next(it);
  if (sum <= 1 && seq == 0)
    return part;
  if (sum < 1 || sum > 1024 || seq < 0 || seq >= sum) {
    error = "fragment " + std::to_string(seq) + " of "
            + std::to_string(sum) + " is out of range";
    return std::nullopt;
  }
  auto& p = parts_[message_id];
  if (p.parts.size() != static_cast<size_t>(sum)) {
    p.parts.assign(static_cast<size_t>(sum), std::nullopt);
    p.started_ms = now_ms;
  }
  p.parts[static_cast<size_t>(seq)] = std::move(part);
  std::string whole;
  for (auto& piece : p.parts) {
    if (!piece)
      return std::nullopt;
    whole += *piece;
  }
  parts_.erase(message_id);
  return whole;
}

} // namespace nb::feishu
