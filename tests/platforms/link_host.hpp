// A scripted web host on 127.0.0.1 for links in replies: it serves the
// bytes a test gives it at a path (or redirects), and counts the GETs, so
// a test sees whether an adapter fetched a link or refused to.
#pragma once

#include <memory>
#include <string>

namespace nb::test {

class link_host {
public:
  link_host();
  ~link_host();
  link_host(const link_host&) = delete;
  link_host& operator=(const link_host&) = delete;

  /// GET `path` answers 200 with `bytes` as `content_type`.
  void serve(const std::string& path, const std::string& bytes,
             const std::string& content_type);
  /// GET `path` answers 302 to `location`.
  void redirect(const std::string& path, const std::string& location);

  /// "http://127.0.0.1:<port>" + path.
  std::string url(const std::string& path) const;
  /// GETs of `path` so far (served, redirected or not found).
  int hits(const std::string& path) const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test
