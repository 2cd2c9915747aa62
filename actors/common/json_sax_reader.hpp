// Reading a few fields of a JSON text without building its tree, through
// nlohmann's sax_parse: this base keeps the nesting depth and hands the
// reader (Self, CRTP) each key and each value with the depth it sits at.
// A text that is not JSON stops the parse (sax_parse returns false).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace nb {

/// A value as a SAX reader sees it: an object or array that opens, or a
/// scalar with its integer or string when it is one.
struct sax_value {
  enum class kind : uint8_t { scalar, object, array };
  kind what = kind::scalar;
  std::optional<int64_t> integer; ///< integers, unsigned ones cast
  const std::string* text = nullptr; ///< strings
};

/// Self provides `void key_at(int depth, const std::string&)` and
/// `void value_at(int depth, const sax_value&)`; depth 0 is the document,
/// 1 the top-level object's members.
template <class Self>
class json_sax_reader {
public:
  using json = nlohmann::json;
  using string_t = json::string_t;

  bool null() { return scalar({}); }
  bool boolean(bool) { return scalar({}); }
  bool number_integer(json::number_integer_t v) { return scalar(v); }
  bool number_unsigned(json::number_unsigned_t v) {
    return scalar(static_cast<int64_t>(v));
  }
  bool number_float(json::number_float_t, const string_t&) {
    return scalar({});
  }
  bool string(string_t& s) {
    self().value_at(depth_, sax_value{sax_value::kind::scalar, {}, &s});
    return true;
  }
  bool binary(json::binary_t&) { return scalar({}); }
  bool start_object(std::size_t) { return open(sax_value::kind::object); }
  bool key(string_t& k) {
    self().key_at(depth_, k);
    return true;
  }
  bool end_object() { return --depth_, true; }
  bool start_array(std::size_t) { return open(sax_value::kind::array); }
  bool end_array() { return --depth_, true; }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception&) {
    return false;
  }

protected:
  int depth() const { return depth_; }

private:
  Self& self() { return static_cast<Self&>(*this); }
  bool scalar(std::optional<int64_t> integer) {
    self().value_at(depth_, sax_value{sax_value::kind::scalar, integer});
    return true;
  }
  bool open(sax_value::kind k) {
    self().value_at(depth_, sax_value{k, {}});
    ++depth_;
    return true;
  }
  int depth_ = 0;
};

} // namespace nb
