#include "actors/common/tool_definition.hpp"

#include <nlohmann/json.hpp>

namespace nb {

std::string tool_definition_json(const tool_spec& spec) {
  using json = nlohmann::json;
  std::string out = R"({"type":"function","function":{"name":)";
  out += json(spec.name).dump(-1, ' ', false, json::error_handler_t::replace);
  out += R"(,"description":)";
  out += json(spec.description)
           .dump(-1, ' ', false, json::error_handler_t::replace);
  out += R"(,"parameters":)";
  out += spec.parameters_json.empty() ? std::string{"{}"}
                                      : spec.parameters_json;
  out += "}}";
  return out;
}

tool_spec with_definition(tool_spec spec) {
  spec.definition_json = tool_definition_json(spec);
  return spec;
}

std::string tool_definitions_json(const std::vector<tool_spec>& specs) {
  if (specs.empty())
    return {};
  size_t size = 2;
  for (auto& s : specs)
    size += s.definition_json.size() + 1;
  std::string out;
  out.reserve(size);
  out += '[';
  for (auto& s : specs) {
    if (out.size() > 1)
      out += ',';
    if (s.definition_json.empty())
      out += tool_definition_json(s);
    else
      out += s.definition_json;
  }
  out += ']';
  return out;
}

} // namespace nb
