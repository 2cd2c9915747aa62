#include "actors/channels/kit/media_out.hpp"

#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "actors/common/strings.hpp"

namespace nb::chan {

std::vector<std::string> outbound_media(const std::string& metadata_json) {
  std::vector<std::string> out;
  if (metadata_json.find("\"media\"") == std::string::npos)
    return out;
  auto meta = nlohmann::json::parse(metadata_json, nullptr, false);
  if (!meta.is_object())
    return out;
  auto it = meta.find("media");
  if (it == meta.end() || !it->is_array())
    return out;
  for (const auto& p : *it)
    if (p.is_string() && !p.get_ref<const std::string&>().empty())
      out.push_back(p.get<std::string>());
  return out;
}

bool is_web_link(const std::string& ref) {
  return ref.rfind("http://", 0) == 0 || ref.rfind("https://", 0) == 0;
}

words_and_files links_into_words(const std::string& content,
                                 const std::string& metadata_json) {
  words_and_files out{content, {}};
  for (auto& ref : outbound_media(metadata_json)) {
    if (is_web_link(ref))
      out.text += (out.text.empty() ? "" : "\n") + ref;
    else
      out.files.push_back(std::move(ref));
  }
  return out;
}

std::string file_name_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string lower_extension(const std::string& path) {
  auto name = file_name_of(path);
  auto dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0)
    return "";
  return ascii_lower(name.substr(dot));
}

std::string read_attachment(const std::string& path, int64_t max_bytes,
                            std::string& bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    return "attachment " + path + " does not exist";
  if (!fs::is_regular_file(st))
    return "attachment " + path + " is not a regular file";
  auto size = fs::file_size(path, ec);
  if (ec)
    return "attachment " + path + ": " + ec.message();
  if (size == 0)
    return "attachment " + path + " is empty";
  if (static_cast<int64_t>(size) > max_bytes)
    return "attachment " + path + " has " + std::to_string(size)
           + " bytes, over the platform's limit of "
           + std::to_string(max_bytes);
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return "attachment " + path + " cannot be read";
  bytes.assign(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (in.gcount() != static_cast<std::streamsize>(size))
    return "attachment " + path + " changed while it was read";
  return "";
}

multipart_form::multipart_form() {
  std::random_device rd;
  std::mt19937_64 gen{(static_cast<uint64_t>(rd()) << 32) ^ rd()};
  boundary_ = "nanobot-" + std::to_string(gen());
}

void multipart_form::field(const std::string& name, const std::string& value) {
  parts_ += "--" + boundary_ + "\r\nContent-Disposition: form-data; name=\""
            + name + "\"\r\n\r\n" + value + "\r\n";
}

void multipart_form::file(const std::string& name, const std::string& file_name,
                          const std::string& mime, const std::string& bytes) {
  // Quotes and line breaks would end the header early.
  std::string safe;
  for (char c : file_name)
    safe += (c == '"' || c == '\r' || c == '\n') ? '_' : c;
  parts_ += "--" + boundary_ + "\r\nContent-Disposition: form-data; name=\""
            + name + "\"; filename=\"" + safe + "\"\r\nContent-Type: " + mime
            + "\r\n\r\n";
  parts_ += bytes;
  parts_ += "\r\n";
}

std::string multipart_form::body() const {
  return parts_ + "--" + boundary_ + "--\r\n";
}

std::string multipart_form::content_type() const {
  return "multipart/form-data; boundary=" + boundary_;
}

} // namespace nb::chan
