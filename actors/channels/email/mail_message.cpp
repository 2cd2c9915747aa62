#include "actors/channels/email/mail_message.hpp"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <regex>
#include <vector>

#include "actors/common/base64.hpp"
#include "actors/common/strings.hpp"

namespace nb::email {

namespace {

struct part {
  std::vector<std::pair<std::string, std::string>> headers; ///< lower names
  std::string body;
  std::string header(const std::string& name) const {
    for (auto& [k, v] : headers)
      if (k == name)
        return v;
    return "";
  }
};

/// Splits headers (unfolded) from the body.
part split(const std::string& raw) {
  part p;
  size_t pos = 0;
  std::string current;
  auto flush = [&] {
    auto colon = current.find(':');
    if (colon != std::string::npos)
      p.headers.emplace_back(ascii_lower(trim_space(current.substr(0, colon))),
                             trim_space(current.substr(colon + 1)));
    current.clear();
  };
  while (pos < raw.size()) {
    auto eol = raw.find('\n', pos);
    auto line = raw.substr(pos, eol == std::string::npos ? std::string::npos
                                                         : eol - pos);
    pos = eol == std::string::npos ? raw.size() : eol + 1;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty()) {
      flush();
      p.body = raw.substr(pos);
      return p;
    }
    if ((line[0] == ' ' || line[0] == '\t') && !current.empty())
      current += " " + trim_space(line);
    else {
      flush();
      current = line;
    }
  }
  flush();
  return p;
}

std::string decode_qp(const std::string& in, bool underscore_space) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '=' && i + 1 < in.size() && (in[i + 1] == '\n' || in[i + 1] == '\r')) {
      i += in[i + 1] == '\r' && i + 2 < in.size() && in[i + 2] == '\n' ? 2 : 1;
      continue; // soft line break
    }
    if (c == '=' && i + 2 < in.size() && std::isxdigit(in[i + 1])
        && std::isxdigit(in[i + 2])) {
      out += static_cast<char>(std::stoi(in.substr(i + 1, 2), nullptr, 16));
      i += 2;
      continue;
    }
    out += underscore_space && c == '_' ? ' ' : c;
  }
  return out;
}

/// =?charset?B|Q?text?= words (the charset is taken as UTF-8).
std::string decode_words(const std::string& s) {
  static const std::regex word{R"(=\?[^?]+\?([bBqQ])\?([^?]*)\?=)"};
  std::string out;
  size_t last = 0;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), word);
       it != std::sregex_iterator(); ++it) {
    auto gap = s.substr(last, it->position() - last);
    if (last == 0 || !trim_space(gap).empty())
      out += gap; // whitespace between two encoded words is dropped
    auto kind = (*it)[1].str();
    if (kind == "b" || kind == "B")
      // A word that is not base64 stays as it came: nothing is dropped.
      out += base64_decode((*it)[2].str()).value_or(it->str());
    else
      out += decode_qp((*it)[2].str(), true);
    last = it->position() + it->length();
  }
  return out + s.substr(last);
}

std::string param(const std::string& header, const std::string& name) {
  std::regex re{";\\s*" + name + "=\"?([^\";]+)\"?", std::regex::icase};
  std::smatch m;
  return std::regex_search(header, m, re) ? m[1].str() : "";
}

std::string decode_body(const part& p) {
  auto enc = ascii_lower(p.header("content-transfer-encoding"));
  if (enc == "base64")
    return base64_decode(p.body).value_or(p.body);
  if (enc == "quoted-printable")
    return decode_qp(p.body, false);
  return p.body;
}

std::string strip_tags(const std::string& html) {
  static const std::regex tags{"<[^>]*>"};
  static const std::regex blocks{"<(br|/p|/div)[^>]*>", std::regex::icase};
  return std::regex_replace(std::regex_replace(html, blocks, "\n"), tags, "");
}

/// The best text of a part: text/plain first, else HTML without tags.
std::string text_of(const part& p, int depth = 0) {
  auto type = ascii_lower(p.header("content-type"));
  if (type.rfind("multipart/", 0) == 0 && depth < 5) {
    auto boundary = param(p.header("content-type"), "boundary");
    if (boundary.empty())
      return "";
    std::string delim = "--" + boundary;
    std::vector<part> parts;
    size_t pos = p.body.find(delim);
    while (pos != std::string::npos) {
      pos += delim.size();
      if (p.body.compare(pos, 2, "--") == 0)
        break;
      auto next = p.body.find(delim, pos);
      auto chunk = p.body.substr(pos, next == std::string::npos
                                        ? std::string::npos : next - pos);
      auto nl = chunk.find('\n');
      parts.push_back(split(nl == std::string::npos ? "" : chunk.substr(nl + 1)));
      pos = next;
    }
    std::string html;
    for (auto& sub : parts) {
      auto t = ascii_lower(sub.header("content-type"));
      if (t.empty() || t.rfind("text/plain", 0) == 0
          || t.rfind("multipart/", 0) == 0) {
        auto s = text_of(sub, depth + 1);
        if (!trim_space(s).empty())
          return s;
      } else if (t.rfind("text/html", 0) == 0 && html.empty()) {
        html = strip_tags(decode_body(sub));
      }
    }
    return html;
  }
  if (type.rfind("text/html", 0) == 0)
    return strip_tags(decode_body(p));
  if (type.empty() || type.rfind("text/", 0) == 0)
    return decode_body(p);
  return "";
}

std::string address_of(const std::string& from) {
  auto lt = from.rfind('<');
  auto gt = from.rfind('>');
  auto addr = lt != std::string::npos && gt != std::string::npos && gt > lt
                ? from.substr(lt + 1, gt - lt - 1) : from;
  addr = ascii_lower(trim_space(addr));
  return addr.find('@') == std::string::npos ? "" : addr;
}

std::string encode_qp(const std::string& s) {
  std::string out;
  size_t col = 0;
  auto put = [&](const std::string& t) {
    if (col + t.size() > 75) {
      out += "=\r\n";
      col = 0;
    }
    out += t;
    col += t.size();
  };
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      out += "\r\n";
      col = 0;
    } else if (c == '\r') {
      continue;
    } else if (c == '=' || c >= 127 || (c < 32 && c != '\t')
               || (c == ' ' && (i + 1 == s.size() || s[i + 1] == '\n'))) {
      char buf[4];
      std::snprintf(buf, sizeof buf, "=%02X", c);
      put(buf);
    } else {
      put(std::string(1, static_cast<char>(c)));
    }
  }
  return out;
}

bool ascii(const std::string& s) {
  for (unsigned char c : s)
    if (c >= 127)
      return false;
  return true;
}

} // namespace

mail parse_mail(const std::string& raw) {
  auto p = split(raw);
  mail m;
  m.from_address = address_of(decode_words(p.header("from")));
  m.subject = decode_words(p.header("subject"));
  m.message_id = p.header("message-id");
  m.references = p.header("references");
  if (m.references.empty())
    m.references = p.header("in-reply-to");
  auto auto_sub = ascii_lower(p.header("auto-submitted"));
  auto prec = ascii_lower(p.header("precedence"));
  m.auto_submitted = (!auto_sub.empty() && auto_sub != "no")
                     || prec == "bulk" || prec == "junk" || prec == "list";
  m.body = trim_space(text_of(p));
  return m;
}

std::string reply_subject(const std::string& subject,
                          const std::string& prefix) {
  if (!prefix.empty()
      && ascii_lower(subject).rfind(ascii_lower(trim_space(prefix)), 0) == 0)
    return subject;
  return prefix + (subject.empty() ? "(no subject)" : subject);
}

std::string compose_reply(const std::string& from, const std::string& to,
                          const std::string& subject,
                          const std::string& in_reply_to,
                          const std::string& references,
                          const std::string& body,
                          const std::string& message_id) {
  char date[64];
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tm);
  std::string subj = ascii(subject)
                       ? subject : "=?UTF-8?B?" + base64_encode(subject) + "?=";
  std::string out = "From: " + from + "\r\nTo: " + to + "\r\nSubject: " + subj
                    + "\r\nDate: " + date + "\r\nMessage-ID: " + message_id
                    + "\r\n";
  if (!in_reply_to.empty()) {
    out += "In-Reply-To: " + in_reply_to + "\r\n";
    auto refs = trim_space(references + " " + in_reply_to);
    out += "References: " + refs + "\r\n";
  }
  out += "Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
         "Content-Type: text/plain; charset=utf-8\r\n"
         "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
  return out + encode_qp(body) + "\r\n";
}

} // namespace nb::email
