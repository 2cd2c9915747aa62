#include "actors/provider/provider_registry.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "actors/common/strings.hpp"

namespace nb {

namespace {

using k = provider_kind;

constexpr std::string_view not_supported
  = "this provider speaks neither the OpenAI chat-completions protocol nor "
    "Anthropic's Messages API, the two supported here";

} // namespace

const std::vector<provider_spec>& provider_table() {
  // Order = priority (the original's registry order, trimmed to the
  // providers users are likely to name).
  static const std::vector<provider_spec> table{
    {.name = "custom", .display = "Custom", .kind = k::direct},
    {.name = "azure_openai", .display = "Azure OpenAI",
     .keywords = {"azure", "azure-openai"}, .kind = k::direct,
     .env_key = "AZURE_OPENAI_API_KEY", .unsupported = not_supported},
    {.name = "openrouter", .display = "OpenRouter", .keywords = {"openrouter"},
     .default_base = "https://openrouter.ai/api/v1", .kind = k::gateway,
     .env_key = "OPENROUTER_API_KEY"},
    {.name = "aihubmix", .display = "AiHubMix", .keywords = {"aihubmix"},
     .default_base = "https://aihubmix.com/v1", .kind = k::gateway,
     .env_key = "AIHUBMIX_API_KEY", .strip_all_prefixes = true},
    {.name = "siliconflow", .display = "SiliconFlow",
     .keywords = {"siliconflow"},
     .default_base = "https://api.siliconflow.cn/v1", .kind = k::gateway,
     .env_key = "SILICONFLOW_API_KEY"},
    {.name = "volcengine", .display = "VolcEngine",
     .keywords = {"volcengine", "volces", "ark"},
     .default_base = "https://ark.cn-beijing.volces.com/api/v3",
     .kind = k::gateway, .env_key = "VOLCENGINE_API_KEY",
     .thinking_style = "thinking_type"},
    {.name = "huggingface", .display = "Hugging Face",
     .keywords = {"huggingface", "hugging-face"},
     .default_base = "https://router.huggingface.co/v1", .kind = k::gateway,
     .env_key = "HF_TOKEN"},
    {.name = "anthropic", .display = "Anthropic",
     .keywords = {"anthropic", "claude"},
     .default_base = "https://api.anthropic.com/v1",
     .env_key = "ANTHROPIC_API_KEY", .wire = wire_api::anthropic},
    {.name = "openai", .display = "OpenAI", .keywords = {"openai", "gpt"},
     .default_base = "https://api.openai.com/v1", .env_key = "OPENAI_API_KEY"},
    {.name = "github_copilot", .display = "GitHub Copilot",
     .keywords = {"github_copilot", "copilot"}, .unsupported = not_supported},
    {.name = "deepseek", .display = "DeepSeek", .keywords = {"deepseek"},
     .default_base = "https://api.deepseek.com",
     .env_key = "DEEPSEEK_API_KEY", .thinking_style = "thinking_type",
     .responses_models = {"deepseek-v4-flash", "deepseek-v4-pro",
                          "deepseek-v4-flash-vision-exp"},
     .responses_default_tool = "web_search"},
    {.name = "gemini", .display = "Gemini", .keywords = {"gemini", "gemma"},
     .default_base
     = "https://generativelanguage.googleapis.com/v1beta/openai",
     .env_key = "GEMINI_API_KEY"},
    {.name = "zhipu", .display = "Zhipu AI", .keywords = {"zhipu", "glm", "zai"},
     .default_base = "https://open.bigmodel.cn/api/paas/v4",
     .env_key = "ZAI_API_KEY"},
    {.name = "dashscope", .display = "DashScope",
     .keywords = {"qwen", "dashscope"},
     .default_base = "https://dashscope.aliyuncs.com/compatible-mode/v1",
     .env_key = "DASHSCOPE_API_KEY", .thinking_style = "enable_thinking"},
    {.name = "moonshot", .display = "Moonshot", .keywords = {"moonshot", "kimi"},
     .default_base = "https://api.moonshot.ai/v1",
     .env_key = "MOONSHOT_API_KEY"},
    {.name = "minimax", .display = "MiniMax", .keywords = {"minimax"},
     .default_base = "https://api.minimax.io/v1",
     .env_key = "MINIMAX_API_KEY", .thinking_style = "reasoning_split"},
    {.name = "mistral", .display = "Mistral",
     .keywords = {"mistral", "magistral", "ministral", "codestral",
                  "devstral"},
     .default_base = "https://api.mistral.ai/v1",
     .env_key = "MISTRAL_API_KEY"},
    {.name = "vllm", .display = "vLLM", .keywords = {"vllm"},
     .kind = k::local, .env_key = "HOSTED_VLLM_API_KEY"},
    {.name = "ollama", .display = "Ollama", .keywords = {"ollama", "nemotron"},
     .default_base = "http://localhost:11434/v1", .kind = k::local,
     .env_key = "OLLAMA_API_KEY", .base_keyword = "11434"},
    {.name = "lm_studio", .display = "LM Studio",
     .keywords = {"lm-studio", "lmstudio", "lm_studio"},
     .default_base = "http://localhost:1234/v1", .kind = k::local,
     .env_key = "LM_STUDIO_API_KEY", .base_keyword = "1234"},
    {.name = "nvidia", .display = "NVIDIA NIM",
     .keywords = {"nvidia", "nemotron", "nvapi"},
     .default_base = "https://integrate.api.nvidia.com/v1",
     .env_key = "NVIDIA_API_KEY"},
    {.name = "groq", .display = "Groq", .keywords = {"groq"},
     .default_base = "https://api.groq.com/openai/v1",
     .env_key = "GROQ_API_KEY"},
    {.name = "qianfan", .display = "Qianfan", .keywords = {"qianfan", "ernie"},
     .default_base = "https://qianfan.baidubce.com/v2",
     .env_key = "QIANFAN_API_KEY"},
  };
  return table;
}

std::string process_env(std::string_view name) {
  auto* v = std::getenv(std::string{name}.c_str());
  return v ? std::string{v} : std::string{};
}

std::string_view wire_api_name(wire_api api) {
  switch (api) {
    case wire_api::anthropic: return "anthropic";
    case wire_api::openai_responses: return "openai_responses";
    default: return "openai";
  }
}

std::string normalize_provider_name(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    if (c == '-' || c == ' ') {
      out += '_';
    } else if (std::isupper(c)) {
      // camelCase boundary: "lmStudio" -> "lm_studio".
      if (i > 0 && std::islower(static_cast<unsigned char>(name[i - 1])))
        out += '_';
      out += static_cast<char>(std::tolower(c));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

bool same_provider_name(std::string_view a, std::string_view b) {
  auto loose = [](std::string_view s) {
    std::string out;
    for (unsigned char c : s)
      if (c != '-' && c != '_' && c != ' ')
        out += static_cast<char>(std::tolower(c));
    return out;
  };
  return loose(a) == loose(b);
}

const provider_spec* find_provider_spec(std::string_view name) {
  for (auto& spec : provider_table())
    if (same_provider_name(spec.name, name))
      return &spec;
  return nullptr;
}

std::optional<base_url> parse_base_url(std::string_view url) {
  base_url out;
  std::string_view rest;
  if (url.starts_with("https://")) {
    out.https = true;
    rest = url.substr(8);
  } else if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else {
    return std::nullopt;
  }
  auto slash = rest.find('/');
  auto authority = rest.substr(0, slash);
  if (authority.empty() || authority.find('@') != std::string_view::npos
      || authority.find_first_of(" \t\r\n?#") != std::string_view::npos)
    return std::nullopt;
  // Host without port; IPv6 literals keep their brackets in `authority`.
  auto host = authority;
  if (host.front() == '[') {
    auto close = host.find(']');
    if (close == std::string_view::npos)
      return std::nullopt;
    host = host.substr(1, close - 1);
  } else if (auto colon = host.rfind(':'); colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  if (host.empty())
    return std::nullopt;
  out.host = std::string{host};
  out.scheme_host_port = std::string{url.substr(0, url.size() - rest.size())}
                         + std::string{authority};
  if (slash != std::string_view::npos) {
    auto path = rest.substr(slash);
    while (!path.empty() && path.back() == '/')
      path.remove_suffix(1);
    if (path.find_first_of("?# ") != std::string_view::npos)
      return std::nullopt;
    out.path_prefix = std::string{path};
  }
  return out;
}

bool is_local_base(std::string_view url) {
  auto b = parse_base_url(url);
  if (!b)
    return false;
  auto h = ascii_lower(b->host);
  if (h == "localhost" || h.ends_with(".localhost")
      || h == "host.docker.internal" || h == "::1")
    return true;
  // Dotted IPv4 only; anything else is treated as remote.
  int o[4] = {0, 0, 0, 0};
  char tail = 0;
  if (std::sscanf(h.c_str(), "%d.%d.%d.%d%c", &o[0], &o[1], &o[2], &o[3],
                  &tail)
      != 4)
    return false;
  return o[0] == 127 || o[0] == 10 || (o[0] == 192 && o[1] == 168)
         || (o[0] == 172 && o[1] >= 16 && o[1] <= 31);
}

std::string request_model(const provider_choice& choice,
                          std::string_view model) {
  auto slash = model.find('/');
  if (slash == std::string_view::npos)
    return std::string{model};
  auto* spec = find_provider_spec(choice.name);
  if (spec && spec->strip_all_prefixes)
    return std::string{model.substr(model.rfind('/') + 1)};
  if (same_provider_name(model.substr(0, slash), choice.name))
    return std::string{model.substr(slash + 1)};
  return std::string{model};
}

} // namespace nb
