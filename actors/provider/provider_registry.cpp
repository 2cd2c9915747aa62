#include "actors/provider/provider_registry.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace nb {

namespace {

using k = provider_kind;
using keywords = std::array<std::string_view, 5>;

/// One table row; the trailing fields are rarely set.
provider_spec row(std::string_view name, std::string_view display,
                  keywords kw, std::string_view base, provider_kind kind,
                  std::string_view unsupported = {}, bool strip_all = false,
                  std::string_view base_keyword = {}) {
  return {name, display, kw, base, kind, unsupported, strip_all, base_keyword};
}

constexpr std::string_view anthropic_native
  = "Anthropic's native API is not supported yet";
constexpr std::string_view not_openai_compatible
  = "this provider does not speak the OpenAI chat-completions protocol, "
    "which is the only one supported so far";

} // namespace

const std::vector<provider_spec>& provider_table() {
  // Order = priority (the original's registry order, trimmed to the
  // OpenAI-compatible providers plus the ones users are likely to name).
  static const std::vector<provider_spec> table{
    row("custom", "Custom", {}, "", k::direct),
    row("azure_openai", "Azure OpenAI", {"azure", "azure-openai"}, "",
        k::direct, not_openai_compatible),
    row("openrouter", "OpenRouter", {"openrouter"},
        "https://openrouter.ai/api/v1", k::gateway),
    row("aihubmix", "AiHubMix", {"aihubmix"}, "https://aihubmix.com/v1",
        k::gateway, {}, true),
    row("siliconflow", "SiliconFlow", {"siliconflow"},
        "https://api.siliconflow.cn/v1", k::gateway),
    row("volcengine", "VolcEngine", {"volcengine", "volces", "ark"},
        "https://ark.cn-beijing.volces.com/api/v3", k::gateway),
    row("huggingface", "Hugging Face", {"huggingface", "hugging-face"},
        "https://router.huggingface.co/v1", k::gateway),
    row("anthropic", "Anthropic", {"anthropic", "claude"}, "", k::standard,
        anthropic_native),
    row("openai", "OpenAI", {"openai", "gpt"}, "https://api.openai.com/v1",
        k::standard),
    row("github_copilot", "GitHub Copilot", {"github_copilot", "copilot"},
        "", k::standard, not_openai_compatible),
    row("deepseek", "DeepSeek", {"deepseek"}, "https://api.deepseek.com",
        k::standard),
    row("gemini", "Gemini", {"gemini", "gemma"},
        "https://generativelanguage.googleapis.com/v1beta/openai",
        k::standard),
    row("zhipu", "Zhipu AI", {"zhipu", "glm", "zai"},
        "https://open.bigmodel.cn/api/paas/v4", k::standard),
    row("dashscope", "DashScope", {"qwen", "dashscope"},
        "https://dashscope.aliyuncs.com/compatible-mode/v1", k::standard),
    row("moonshot", "Moonshot", {"moonshot", "kimi"},
        "https://api.moonshot.ai/v1", k::standard),
    row("minimax", "MiniMax", {"minimax"}, "https://api.minimax.io/v1",
        k::standard),
    row("mistral", "Mistral",
        {"mistral", "magistral", "ministral", "codestral", "devstral"},
        "https://api.mistral.ai/v1", k::standard),
    row("vllm", "vLLM", {"vllm"}, "", k::local),
    row("ollama", "Ollama", {"ollama", "nemotron"},
        "http://localhost:11434/v1", k::local, {}, false, "11434"),
    row("lm_studio", "LM Studio", {"lm-studio", "lmstudio", "lm_studio"},
        "http://localhost:1234/v1", k::local, {}, false, "1234"),
    row("nvidia", "NVIDIA NIM", {"nvidia", "nemotron", "nvapi"},
        "https://integrate.api.nvidia.com/v1", k::standard),
    row("groq", "Groq", {"groq"}, "https://api.groq.com/openai/v1",
        k::standard),
    row("qianfan", "Qianfan", {"qianfan", "ernie"},
        "https://qianfan.baidubce.com/v2", k::standard),
  };
  return table;
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
  std::string h = b->host;
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
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
