// Key spellings: camelCase/snake_case, "did you mean", safe display of
// user-supplied key names, and the built-in provider names.
#include "config/spelling.hpp"

#include <algorithm>
#include <cctype>

#include "config/keys.hpp"

namespace nb {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

} // namespace nb

namespace nb::config {

namespace {

std::string normalise(std::string_view key) {
  std::string out;
  for (char c : key)
    if (c != '_' && c != '-')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}


} // namespace

std::string display_key(const std::string& key) {
  // Keys are user input too: a pasted token used as a key must not reach
  // the logs, and odd characters would garble the path.
  static constexpr std::string_view secret_prefixes[] = {
    "sk-", "sk_", "ghp_", "gho_", "ghs_", "github_pat_", "AKIA", "xox", "eyJ"};
  bool plain = !key.empty() && key.size() <= 40;
  for (char c : key)
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_'
                      || c == '-');
  for (auto prefix : secret_prefixes)
    plain = plain && !std::string_view{key}.starts_with(prefix);
  return plain ? key : "<redacted key>";
}

std::string snake_case(std::string_view camel) {
  std::string out;
  for (char c : camel) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

bool key_matches(std::string_view json_key, std::string_view camel) {
  return json_key == camel || json_key == snake_case(camel);
}

std::optional<std::string>
suggest_key(std::string_view key, const std::vector<std::string>& candidates) {
  // Compare without case or separators, so "restrict_to_workspce" finds
  // "restrictToWorkspace" too; allow about one typo per four letters.
  if (key.size() > 64)
    return std::nullopt; // not a typo of a real key; keep the cost bounded
  auto want = normalise(key);
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(1, want.size() / 4) + 1;
  for (const auto& candidate : candidates) {
    auto d = edit_distance(want, normalise(candidate));
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

const std::vector<std::string>& builtin_provider_names() {
  static const std::vector<std::string> names = {
    "custom", "azure_openai", "bedrock", "openrouter", "orcarouter", "edenai",
    "opencode", "opencode_zen", "opencode_go", "huggingface", "skywork",
    "aihubmix", "siliconflow", "novita", "volcengine",
    "volcengine_coding_plan", "byteplus", "byteplus_coding_plan",
    "anthropic", "openai", "openai_codex", "xai_grok", "github_copilot",
    "deepseek", "gemini", "zhipu", "dashscope", "modelscope", "moonshot",
    "kimi_coding", "minimax", "minimax_anthropic", "mistral", "stepfun",
    "xiaomi_mimo", "longcat", "ant_ling", "vllm", "ollama", "lm_studio",
    "atomic_chat", "ovms", "nvidia", "groq", "assemblyai", "qianfan",
  };
  return names;
}

} // namespace nb::config
