// Attachments going out: the message tool's "media" paths as the channel
// manager hands them on (the outbound message's metadata "media", with the
// last piece of a split reply), read from disk under a platform's cap, and
// the multipart/form-data body the upload APIs take.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nb::chan {

/// The non-empty strings of metadata "media" (local paths or links); empty
/// when the metadata is not JSON or has none.
std::vector<std::string> outbound_media(const std::string& metadata_json);

/// "http://..." or "https://...": a link, not a file on this machine.
bool is_web_link(const std::string& ref);

/// A reply's words with its links appended (one per line), and its local
/// files to upload: for platforms that send links as text.
struct words_and_files {
  std::string text;
  std::vector<std::string> files;
};

words_and_files links_into_words(const std::string& content,
                                 const std::string& metadata_json);

/// The last path element ("report.pdf" for "/a/b/report.pdf").
std::string file_name_of(const std::string& path);

/// The extension in lower case with its dot (".jpg"), "" when none.
std::string lower_extension(const std::string& path);

/// Reads the regular file `path` into `bytes` when it holds 1 to
/// `max_bytes` bytes (its size is checked before it is read). "" or why
/// not, naming the file: missing, not a regular file, empty, too large.
std::string read_attachment(const std::string& path, int64_t max_bytes,
                            std::string& bytes);

/// A multipart/form-data body, built in the order of the calls.
class multipart_form {
public:
  multipart_form();
  void field(const std::string& name, const std::string& value);
  void file(const std::string& name, const std::string& file_name,
            const std::string& mime, const std::string& bytes);
  /// The body, closed with the final boundary.
  std::string body() const;
  /// "multipart/form-data; boundary=..." for the Content-Type header.
  std::string content_type() const;

private:
  std::string boundary_;
  std::string parts_;
};

} // namespace nb::chan
