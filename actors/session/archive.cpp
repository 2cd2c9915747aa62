#include "actors/session/archive.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "actors/runner/context_governor.hpp"
#include "actors/session/transcript.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

std::string text_of(const json& m) {
  auto c = m.find("content");
  if (c == m.end() || c->is_null())
    return {};
  if (c->is_string())
    return c->get<std::string>();
  return c->dump();
}

/// The longest prefix of `s` of at most `max` bytes that ends on a UTF-8
/// character boundary.
std::string utf8_prefix(const std::string& s, size_t max) {
  if (s.size() <= max)
    return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut;
  return s.substr(0, cut);
}

} // namespace

size_t replay_start(const transcript_entries& transcript, size_t archived) {
  auto n = transcript.size();
  size_t start = std::min(archived, n);
  if (n - start < min_replay_messages)
    start = n > min_replay_messages ? n - min_replay_messages : 0;
  while (start > 0 && role_of(transcript[start]) != "user")
    --start;
  return start;
}

int64_t replay_tokens(replay_estimate& e, const transcript_entries& transcript,
                      size_t base, size_t start, int generation) {
  size_t first = base + std::min(start, transcript.size());
  size_t end = base + transcript.size();
  if (e.generation != generation || first < e.from || first > e.upto
      || e.from < base || e.upto > end)
    e = replay_estimate{0, first, first, generation};
  for (; e.from < first; ++e.from)
    e.sum -= estimate_message_tokens(transcript[e.from - base]);
  for (; e.upto < end; ++e.upto)
    e.sum += estimate_message_tokens(transcript[e.upto - base]);
  return e.sum;
}

std::optional<size_t> archive_boundary(const transcript_entries& transcript,
                                       size_t from, int64_t excess) {
  std::optional<size_t> last_user;
  int64_t tokens = 0;
  for (size_t i = from; i < transcript.size(); ++i) {
    if (i > from && role_of(transcript[i]) == "user") {
      if (tokens >= excess)
        return i;
      last_user = i;
    }
    tokens += estimate_message_tokens(transcript[i]);
  }
  return last_user;
}

std::string format_for_archive(const transcript_entries& transcript,
                               size_t from, size_t upto) {
  std::string out;
  for (size_t i = from; i < upto && i < transcript.size(); ++i) {
    const json& m = transcript[i];
    if (is_command(m))
      continue;
    auto role = role_of(m);
    std::string ts = m.value("timestamp", json()).is_string()
                       ? m["timestamp"].get<std::string>().substr(0, 16)
                       : std::string{};
    for (auto& c : ts)
      if (c == 'T')
        c = ' ';
    std::string line = ts.empty() ? "" : "[" + ts + "] ";
    for (auto& ch : role)
      line += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (m.contains("tool_calls") && m["tool_calls"].is_array()) {
      std::string names;
      for (auto& c : m["tool_calls"])
        if (c.is_object() && c.contains("function")
            && c["function"].value("name", json()).is_string())
          names += (names.empty() ? "" : ", ")
                   + c["function"]["name"].get<std::string>();
      if (!names.empty())
        line += " [tools: " + names + "]";
    }
    auto text = text_of(m);
    line += text.empty() ? "\n" : ": " + text + "\n";
    out += line;
  }
  return out;
}

std::string raw_archive(const std::string& formatted, size_t count) {
  constexpr size_t cap = 16000;
  auto body = formatted.size() > cap
                ? utf8_prefix(formatted, cap) + "\n... (truncated)"
                : formatted;
  return "[RAW] " + std::to_string(count) + " messages\n" + body;
}

std::string archive_prompt(const std::string& formatted) {
  return "Below is an older part of a conversation between the user and you, "
         "their assistant. It is leaving your working context, so write what "
         "is worth remembering from it.\n\n"
         "Rules:\n"
         "- One fact per line, each starting with \"- \".\n"
         "- Keep decisions, results, open tasks, names, dates and the user's "
         "preferences; drop greetings, chatter and tool output details.\n"
         "- Start a line with \"- [permanent]\" when it is a lasting fact "
         "about the user (who they are, what they like, how they want to be "
         "helped).\n"
         "- Start a line with \"- [profile]\" for who the user is: name, "
         "preferences, the people in their life.\n"
         "- Start a line with \"- [experience]\" for what worked or failed "
         "while doing a task (a command, a tool, an approach).\n"
         "- If nothing is worth keeping, answer exactly: (nothing)\n"
         "- Answer with the lines only, no introduction.\n\n"
         "<conversation>\n" + formatted + "</conversation>";
}

std::string clean_summary(const std::string& reply) {
  std::string text = reply;
  for (auto a = text.find("<think>"); a != std::string::npos;
       a = text.find("<think>", a)) {
    auto b = text.find("</think>", a);
    text.erase(a, b == std::string::npos ? std::string::npos
                                         : b + 8 - a);
  }
  auto a = text.find_first_not_of(" \t\r\n");
  if (a == std::string::npos)
    return {};
  auto b = text.find_last_not_of(" \t\r\n");
  text = text.substr(a, b + 1 - a);
  return utf8_prefix(text, summary_cap);
}

std::vector<std::string> permanent_facts(const std::string& summary) {
  std::vector<std::string> out;
  std::istringstream in{summary};
  const std::string mark = "- [permanent]";
  const std::string profile = "- [profile]";
  auto rest_of = [](const std::string& line, size_t from) -> std::string {
    auto f = line.find_first_not_of(" \t", from);
    return f == std::string::npos ? std::string{} : line.substr(f);
  };
  for (std::string line; std::getline(in, line);) {
    auto a = line.find_first_not_of(" \t");
    if (a == std::string::npos)
      continue;
    if (line.compare(a, mark.size(), mark) == 0) {
      if (auto fact = rest_of(line, a + mark.size()); !fact.empty())
        out.push_back(fact);
    } else if (line.compare(a, profile.size(), profile) == 0) {
      // The tag stays: the memory index files the line under "profile",
      // which never fades.
      if (auto fact = rest_of(line, a + profile.size()); !fact.empty())
        out.push_back("[profile] " + fact);
    }
  }
  return out;
}

} // namespace nb
