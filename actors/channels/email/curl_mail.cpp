#include "actors/channels/email/curl_mail.hpp"

#include <algorithm>
#include <cstring>
#include <regex>
#include <sstream>

#include "actors/channels/email/curl_library.hpp"

namespace nb::email {

namespace {

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

struct upload {
  const std::string* text;
  size_t pos = 0;
};

size_t feed(char* buf, size_t size, size_t n, void* in) {
  auto* u = static_cast<upload*>(in);
  size_t len = std::min(size * n, u->text->size() - u->pos);
  std::memcpy(buf, u->text->data() + u->pos, len);
  u->pos += len;
  return len;
}

void common(const curl_library& lib, CURL* c, const email_config& cfg,
            const std::string& user, const std::string& password) {
  lib.easy_setopt(c, CURLOPT_USERNAME, user.c_str());
  lib.easy_setopt(c, CURLOPT_PASSWORD, password.c_str());
  lib.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
  lib.easy_setopt(c, CURLOPT_TIMEOUT, 120L);
  lib.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  if (!cfg.ca_file.empty())
    lib.easy_setopt(c, CURLOPT_CAINFO, cfg.ca_file.c_str());
}

} // namespace

static int abort_check(void* stop, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* flag = static_cast<const std::atomic<bool>*>(stop);
  return flag && flag->load() ? 1 : 0;
}

imap_client::imap_client(const email_config& cfg,
                         const std::atomic<bool>* stop)
  : cfg_(cfg), stop_(stop) {
  lib_ = load_curl(load_error_);
  base_ = std::string{cfg.imap_use_ssl ? "imaps://" : "imap://"}
          + cfg.imap_host + ":" + std::to_string(cfg.imap_port) + "/"
          + cfg.imap_mailbox;
  curl_ = lib_ != nullptr ? lib_->easy_init() : nullptr;
}

imap_client::~imap_client() {
  if (curl_ != nullptr)
    lib_->easy_cleanup(static_cast<CURL*>(curl_));
}

curl_result imap_client::run(const std::string& url, const std::string& custom,
                             std::string* lines) {
  curl_result out;
  auto* c = static_cast<CURL*>(curl_);
  if (!c) {
    out.error = lib_ == nullptr ? load_error_ : "libcurl did not start";
    return out;
  }
  const curl_library& lib = *lib_;
  lib.easy_reset(c);
  common(lib, c, cfg_, cfg_.imap_username, cfg_.imap_password);
  lib.easy_setopt(c, CURLOPT_URL, url.c_str());
  lib.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  lib.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, abort_check);
  lib.easy_setopt(c, CURLOPT_XFERINFODATA, stop_);
  if (!cfg_.imap_use_ssl)
    lib.easy_setopt(c, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_ALL));
  if (!custom.empty())
    lib.easy_setopt(c, CURLOPT_CUSTOMREQUEST, custom.c_str());
  if (lines) {
    lib.easy_setopt(c, CURLOPT_HEADERFUNCTION, collect);
    lib.easy_setopt(c, CURLOPT_HEADERDATA, lines);
  }
  lib.easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
  lib.easy_setopt(c, CURLOPT_WRITEDATA, &out.body);
  auto rc = lib.easy_perform(c);
  if (rc != CURLE_OK)
    out.error = std::string{"IMAP: "} + lib.easy_strerror(rc);
  return out;
}

curl_result imap_client::search_unseen(std::vector<std::string>& uids) {
  // NOOP first, IMAP's poll for new mail (RFC 3501 6.1.2): on the open
  // connection Dovecot answers a SEARCH from a fast sync that looks into
  // the Maildir for new mail only every 5 s, so a poll without it saw a
  // new message up to 5 s late (the original reconnects on every poll,
  // and its SELECT always looks).
  if (auto noop = run(base_, "NOOP"); !noop.error.empty())
    return noop;
  auto r = run(base_, "UID SEARCH UNSEEN");
  static const std::regex line{R"(\* SEARCH([ 0-9]*))"};
  std::smatch m;
  if (r.error.empty() && std::regex_search(r.body, m, line)) {
    std::istringstream in{m[1].str()};
    for (std::string uid; in >> uid;)
      uids.push_back(uid);
  }
  return r;
}

curl_result imap_client::fetch(const std::string& uid) {
  return run(base_ + "/;UID=" + uid, "");
}

curl_result imap_client::fetch_peek(const std::string& uid) {
  // libcurl's IMAP URLs fetch BODY[] (which sets \Seen); a custom command
  // hands the answer over line by line, the literal included.
  std::string lines;
  auto r = run(base_, "UID FETCH " + uid + " BODY.PEEK[]", &lines);
  if (!r.error.empty())
    return r;
  static const std::regex head{R"(BODY\[\] \{([0-9]+)\}\r\n)"};
  std::smatch m;
  if (!std::regex_search(lines, m, head)) {
    r.error = "IMAP: no message text in the FETCH answer";
    return r;
  }
  auto start = static_cast<size_t>(m.position(0) + m.length(0));
  auto size = std::stoull(m[1].str());
  if (lines.size() - start < size) {
    r.error = "IMAP: the FETCH answer is shorter than its literal";
    return r;
  }
  r.body = lines.substr(start, size);
  return r;
}

curl_result imap_client::see(const std::string& uid) {
  return run(base_, "UID STORE " + uid + " +FLAGS (\\Seen)");
}

curl_result imap_client::unsee(const std::string& uid) {
  return run(base_, "UID STORE " + uid + " -FLAGS (\\Seen)");
}

curl_result smtp_send(const email_config& cfg, const std::string& from,
                      const std::string& to, const std::string& message) {
  curl_result out;
  const curl_library* loaded = load_curl(out.error);
  if (loaded == nullptr)
    return out;
  const curl_library& lib = *loaded;
  CURL* c = lib.easy_init();
  if (!c) {
    out.error = "libcurl did not start";
    return out;
  }
  common(lib, c, cfg, cfg.smtp_username, cfg.smtp_password);
  auto url = std::string{cfg.smtp_use_ssl ? "smtps://" : "smtp://"}
             + cfg.smtp_host + ":" + std::to_string(cfg.smtp_port);
  lib.easy_setopt(c, CURLOPT_URL, url.c_str());
  if (!cfg.smtp_use_ssl)
    lib.easy_setopt(c, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_ALL));
  auto mail_from = "<" + from + ">";
  lib.easy_setopt(c, CURLOPT_MAIL_FROM, mail_from.c_str());
  curl_slist* rcpt = lib.slist_append(nullptr, ("<" + to + ">").c_str());
  lib.easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
  upload u{&message};
  lib.easy_setopt(c, CURLOPT_READFUNCTION, feed);
  lib.easy_setopt(c, CURLOPT_READDATA, &u);
  lib.easy_setopt(c, CURLOPT_UPLOAD, 1L);
  auto rc = lib.easy_perform(c);
  if (rc != CURLE_OK)
    out.error = std::string{"SMTP: "} + lib.easy_strerror(rc);
  lib.slist_free_all(rcpt);
  lib.easy_cleanup(c);
  return out;
}

} // namespace nb::email
