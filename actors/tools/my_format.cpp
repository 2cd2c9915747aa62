#include "actors/tools/my_format.hpp"

#include <cstdio>

namespace nb {

namespace {

using ojson = nlohmann::ordered_json; // a name of its own: unity batches

std::string py_string(const std::string& s) {
  bool single = s.find('\'') != std::string::npos;
  bool dbl = s.find('"') != std::string::npos;
  char quote = single && !dbl ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == static_cast<unsigned char>(quote))
      out += std::string{"\\"} + quote;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else
      out += static_cast<char>(c); // UTF-8 passes as Python prints it
  }
  return out + quote;
}

std::string py_number(const ojson& v) {
  if (!v.is_number_float())
    return v.dump();
  auto text = v.dump();
  // Python writes a whole float with ".0"; nlohmann already does.
  return text;
}

} // namespace

std::string py_repr(const ojson& v) {
  switch (v.type()) {
  case ojson::value_t::null:
    return "None";
  case ojson::value_t::boolean:
    return v.get<bool>() ? "True" : "False";
  case ojson::value_t::string:
    return py_string(v.get<std::string>());
  case ojson::value_t::array: {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i)
      out += (i ? ", " : "") + py_repr(v[i]);
    return out + "]";
  }
  case ojson::value_t::object: {
    std::string out = "{";
    bool first = true;
    for (auto& [k, x] : v.items()) {
      out += (first ? "" : ", ") + py_string(k) + ": " + py_repr(x);
      first = false;
    }
    return out + "}";
  }
  default:
    return py_number(v);
  }
}

std::string my_format_value(const ojson& v, const std::string& key) {
  auto with_key = [&](const std::string& text) {
    return key.empty() ? text : key + ": " + text;
  };
  if (v.is_object()) {
    if (v.empty())
      return with_key("{}");
    if (v.size() <= 5) {
      auto r = py_repr(v);
      if (r.size() <= 200)
        return with_key(r);
    }
    std::string preview;
    size_t n = 0;
    for (auto& [k, _] : v.items()) {
      if (n == 15)
        break;
      preview += (n++ ? ", " : "") + k;
    }
    return with_key("{" + preview + (v.size() > 15 ? ", ..." : "") + "}");
  }
  if (v.is_array() && v.size() > 20)
    return with_key("[" + std::to_string(v.size()) + " items]");
  return with_key(py_repr(v));
}

} // namespace nb
