#include "tests/tools/fixture.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nb::test {

namespace fs = std::filesystem;

temp_tree::temp_tree() {
  char tmpl[] = "/tmp/nb-tools-XXXXXX";
  if (!::mkdtemp(tmpl))
    throw std::runtime_error("mkdtemp failed");
  // /tmp may itself be a symlink: compare against real paths.
  root = fs::canonical(tmpl).string();
  ws = root + "/ws";
  outside = root + "/outside";
  fs::create_directories(ws + "/src");
  fs::create_directories(root + "/home");
  put("outside/secret.txt", "TOP-SECRET\n");
  put("ws-evil/secret.txt", "EVIL-SECRET\n");
  if (const char* h = std::getenv("HOME")) {
    had_home_ = true;
    old_home_ = h;
  }
  ::setenv("HOME", (root + "/home").c_str(), 1);
}

temp_tree::~temp_tree() {
  if (had_home_)
    ::setenv("HOME", old_home_.c_str(), 1);
  else
    ::unsetenv("HOME");
  std::error_code ec;
  fs::remove_all(root, ec);
}

tool_context temp_tree::ctx(bool restrict) const {
  tool_context c;
  c.workspace = ws;
  c.restrict_to_workspace = restrict;
  c.session_key = "test:1";
  return c;
}

void temp_tree::put(const std::string& rel, const std::string& content) const {
  fs::path p = root + "/" + rel;
  fs::create_directories(p.parent_path());
  std::ofstream{p, std::ios::binary} << content;
}

std::string temp_tree::get(const std::string& rel) const {
  std::ifstream in{root + "/" + rel, std::ios::binary};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool temp_tree::exists(const std::string& rel) const {
  std::error_code ec;
  return fs::symlink_status(root + "/" + rel, ec).type()
         != fs::file_type::not_found;
}

settings settings_for(const std::string& ws) {
  settings cfg;
  cfg.agent.workspace = ws;
  return cfg;
}

tool_output run_raw(const tool_context& ctx, const std::string& name,
                    const std::string& arguments_json) {
  static const auto reg = make_builtin_registry(settings{});
  return reg.execute(tool_call{"call_1", name, arguments_json}, ctx);
}

tool_output run(const tool_context& ctx, const std::string& name,
                const nlohmann::json& args) {
  return run_raw(ctx, name, args.dump());
}

std::string unframed(const std::string& text) {
  auto begin = text.find("<<<UNTRUSTED_CONTENT");
  auto end = text.rfind("\n<<<END_UNTRUSTED_CONTENT");
  if (begin == std::string::npos || end == std::string::npos)
    return text;
  auto start = text.find('\n', begin);
  return text.substr(start + 1, end - start - 1);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace nb::test
