// A scripted MCP server on stdio (newline-delimited JSON-RPC), for tests
// that need a real child process speaking MCP without node: one tool,
// `echo {text}`, whose answer also names the PLUGIN_ROOT and PLUGIN_DATA it
// was started with and its working directory.
#include <cstdlib>
#include <iostream>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

std::string env_or_dash(const char* key) {
  const char* v = std::getenv(key);
  return v ? v : "-";
}

json answer(const json& rq) {
  auto method = rq.value("method", std::string{});
  auto params = rq.value("params", json::object());
  if (method == "initialize")
    return {{"protocolVersion",
             params.value("protocolVersion", std::string{"2025-06-18"})},
            {"capabilities", {{"tools", json::object()}}},
            {"serverInfo", {{"name", "fake-mcp"}, {"version", "1"}}}};
  if (method == "tools/list")
    return {{"tools",
             {{{"name", "echo"},
               {"description", "Echo the text back"},
               {"inputSchema",
                {{"type", "object"},
                 {"properties", {{"text", {{"type", "string"}}}}},
                 {"required", {"text"}}}}}}}};
  if (method == "tools/call") {
    auto args = params.value("arguments", json::object());
    char cwd[4096];
    auto text = "echo: " + args.value("text", std::string{})
                + " root=" + env_or_dash("PLUGIN_ROOT")
                + " data=" + env_or_dash("PLUGIN_DATA")
                + " cwd=" + (::getcwd(cwd, sizeof cwd) ? cwd : "?");
    return {{"content", {{{"type", "text"}, {"text", text}}}}};
  }
  return json::object(); // ping and anything else
}

} // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    auto rq = json::parse(line, nullptr, false);
    if (!rq.is_object() || !rq.contains("id"))
      continue; // notifications
    json reply = {{"jsonrpc", "2.0"}, {"id", rq["id"]}, {"result", answer(rq)}};
    std::cout << reply.dump() << "\n" << std::flush;
  }
  return 0;
}
