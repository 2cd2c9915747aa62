#include "actors/common/image_content.hpp"

#include "actors/common/base64.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace nb {

std::string sniff_image_mime(const std::string& h) {
  if (h.rfind("\x89PNG\r\n\x1a\n", 0) == 0)
    return "image/png";
  if (h.size() >= 3 && h.compare(0, 3, "\xFF\xD8\xFF") == 0)
    return "image/jpeg";
  if (h.rfind("GIF87a", 0) == 0 || h.rfind("GIF89a", 0) == 0)
    return "image/gif";
  if (h.size() >= 12 && h.compare(0, 4, "RIFF") == 0
      && h.compare(8, 4, "WEBP") == 0)
    return "image/webp";
  return "";
}

nlohmann::json user_content(const std::string& text,
                            const std::vector<std::string>& media) {
  auto parts = nlohmann::json::array();
  std::string others;
  for (auto& path : media) {
    try {
      std::ifstream in{path, std::ios::binary};
      std::string head(16, '\0');
      if (in)
        in.read(head.data(), 16);
      head.resize(in ? 16 : static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
      auto mime = sniff_image_mime(head);
      in.clear();
      in.seekg(0, std::ios::end);
      auto size = static_cast<long long>(in.tellg());
      if (mime.empty() || size <= 0
          || size > static_cast<long long>(max_inline_image_bytes)) {
        others += "\n[attachment: " + path + "]";
        continue;
      }
      in.seekg(0);
      std::ostringstream ss;
      ss << in.rdbuf();
      parts.push_back({{"type", "image_url"},
                       {"image_url",
                        {{"url", "data:" + mime + ";base64," + base64_encode(ss.str())}}}});
    } catch (const std::exception&) {
      others += "\n[attachment: " + path + "]";
    }
  }
  if (parts.empty())
    return text + others;
  parts.push_back({{"type", "text"}, {"text", text + others}});
  return parts;
}

} // namespace nb
