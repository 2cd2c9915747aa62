#include "actors/provider/responses_route.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "actors/common/strings.hpp"

namespace nb {

bool is_direct_openai_base(std::string_view api_base) {
  auto base = ascii_lower(trim_view(api_base));
  if (base.empty())
    return true;
  return base.find("api.openai.com") != std::string::npos
         && base.find("openrouter") == std::string::npos;
}

bool responses_hosted_search_tool(const nlohmann::json& tool) {
  auto type = tool.is_object() ? tool.value("type", nlohmann::json{})
                               : nlohmann::json{};
  return type.is_string()
         && (type == "web_search"
             || type.get<std::string>().rfind("web_search_", 0) == 0);
}

bool responses_hosted_web_search(const std::string& extra_body,
                                 std::string_view default_tool) {
  auto extra = extra_body.empty()
                 ? nlohmann::json::object()
                 : nlohmann::json::parse(extra_body, nullptr, false);
  if (!extra.is_object() || !extra.contains("tools"))
    return !default_tool.empty()
           && responses_hosted_search_tool(
             {{"type", std::string{default_tool}}});
  if (!extra["tools"].is_array())
    return false;
  for (auto& tool : extra["tools"])
    if (responses_hosted_search_tool(tool))
      return true;
  return false;
}

namespace {

/// A provider other than OpenAI: the Responses API for the models its
/// registry entry lists (matched as the whole name or its last segments).
responses_use responses_listed_model_route(const provider_choice& choice,
                                           const std::string& model) {
  auto* spec = find_provider_spec(choice.name);
  if (!spec)
    return responses_use::never;
  auto name = ascii_lower(model.empty() ? choice.model : model);
  bool listed = std::any_of(
    spec->responses_models.begin(), spec->responses_models.end(),
    [&](std::string_view m) {
      return !m.empty()
             && (name == m
                 || (name.size() > m.size()
                     && name.compare(name.size() - m.size(), m.size(), m) == 0
                     && name[name.size() - m.size() - 1] == '/'));
    });
  if (!listed)
    return responses_use::never;
  return responses_hosted_web_search(choice.extra_body,
                                     spec->responses_default_tool)
           ? responses_use::required
           : responses_use::preferred;
}

} // namespace

responses_use responses_route(const provider_choice& choice,
                              const std::string& model,
                              const std::string& effort) {
  if (choice.name != "openai")
    return responses_listed_model_route(choice, model);
  if (choice.api_type == "chat_completions")
    return responses_use::never;
  if (choice.api_type == "responses"
      || responses_hosted_web_search(choice.extra_body))
    return responses_use::required;
  if (!is_direct_openai_base(choice.api_base))
    return responses_use::never;
  auto level = ascii_lower(effort);
  if (!level.empty() && level != "none")
    return responses_use::preferred;
  auto name = ascii_lower(model.empty() ? choice.model : model);
  for (auto token : {"gpt-5", "o1", "o3", "o4"})
    if (name.find(token) != std::string::npos)
      return responses_use::preferred;
  return responses_use::never;
}

bool responses_refused(const attempt_failure& f) {
  if (f.kind != failure_kind::http_status
      || (f.status != 400 && f.status != 404 && f.status != 422))
    return false;
  auto text = ascii_lower(f.detail);
  for (auto marker :
       {"responses", "response api", "max_output_tokens", "instructions",
        "previous_response", "unsupported", "not supported",
        "unknown parameter", "unrecognized request argument"})
    if (text.find(marker) != std::string::npos)
      return true;
  return false;
}

std::string responses_breaker_key(const provider_choice& choice,
                                  const std::string& model,
                                  const std::string& effort) {
  return choice.name + '\n' + choice.api_base + '\n'
         + ascii_lower(model.empty() ? choice.model : model) + '\n'
         + ascii_lower(effort);
}

} // namespace nb
