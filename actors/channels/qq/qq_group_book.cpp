#include "actors/channels/qq/qq_group_book.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "config/atomic_file.hpp"

namespace nb::qq {

group_book::group_book(std::string path, std::string& error)
    : path_(std::move(path)) {
  std::ifstream in{path_};
  if (!in)
    return;
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (!j.is_object() || !j.value("groups", nlohmann::json{}).is_array()) {
    error = path_ + " is not {\"groups\": [...]}; starting without it";
    return;
  }
  for (const auto& g : j["groups"])
    if (g.is_string() && !g.get_ref<const std::string&>().empty())
      groups_.insert(g.get<std::string>());
}

std::string group_book::add(const std::string& openid) {
  if (openid.empty() || !groups_.insert(openid).second)
    return "";
  std::error_code ec;
  std::filesystem::create_directories(
    std::filesystem::path{path_}.parent_path(), ec);
  nlohmann::json j{{"groups", groups_}};
  auto r = replace_file_atomic(path_, j.dump(2) + "\n", 0600);
  return r.outcome == write_outcome::failed ? r.error : "";
}

} // namespace nb::qq
