#include "actors/store/session_handles.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <numeric>
#include <vector>

#include <sys/stat.h>

#include <openssl/sha.h>

#include "actors/common/file_lock.hpp"
#include "actors/store/posix_io.hpp"
#include "actors/store/session_files.hpp"
#include "actors/store/session_format.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace {

using session_format::json;

// The original's syllable tables (nanobot/session/session_handles.py): a
// name is 1–3 syllables from the first table and an ending from the second.
constexpr std::array<const char*, 64> syllables{
  "ba", "be", "bi", "bo", "da", "de", "di", "do", "fa", "fe", "fi",
  "fo", "ga", "ge", "gi", "go", "ha", "he", "hi", "ho", "ja", "je",
  "ji", "jo", "ka", "ke", "ki", "ko", "ku", "la", "le", "li", "lo",
  "lu", "ma", "me", "mi", "mo", "mu", "na", "ne", "ni", "no", "nu",
  "pa", "pe", "pi", "po", "ra", "re", "ri", "ro", "ru", "sa", "se",
  "si", "so", "su", "ta", "te", "ti", "to", "tu", "va"};
constexpr std::array<const char*, 40> endings{
  "la", "le", "li", "lo", "lu", "ma", "me", "mi", "mo", "mu",
  "na", "ne", "ni", "no", "nu", "ra", "re", "ri", "ro", "ru",
  "sa", "se", "si", "so", "su", "ta", "te", "ti", "to", "tu",
  "va", "ve", "vi", "vo", "vu", "ya", "ye", "yi", "yo", "yu"};
constexpr std::array<const char*, 5> blocked{"dago", "homo", "kike", "pedo",
                                             "rape"};

uint64_t tier_size(int count) {
  uint64_t size = endings.size();
  for (int i = 1; i < count; ++i)
    size *= syllables.size();
  return size;
}

uint64_t big_endian(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v = (v << 8) | p[i];
  return v;
}

/// The name at `index` of a tier, or "" when it repeats a syllable (the
/// original skips those).
std::string name_at(int count, uint64_t index) {
  std::vector<std::string> parts;
  parts.push_back(endings[index % endings.size()]);
  index /= endings.size();
  for (int i = 1; i < count; ++i) {
    parts.push_back(syllables[index % syllables.size()]);
    index /= syllables.size();
  }
  std::reverse(parts.begin(), parts.end());
  auto sorted = parts;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return {};
  std::string out;
  for (auto& p : parts)
    out += p;
  return out;
}

bool is_blocked(const std::string& name) {
  return std::find(blocked.begin(), blocked.end(), name) != blocked.end();
}

std::string random_name(const std::set<std::string>& used) {
  for (;;) {
    auto hex = store_io::random_hex(12);
    std::string name;
    for (char c : hex)
      name += static_cast<char>('a' + (c % 26));
    if (!used.count(name) && !is_blocked(name))
      return name;
  }
}

struct session_row {
  std::string key;
  std::string created_at;
  std::string handle; ///< "" when missing, invalid or taken
};

/// The metadata record of a session file's first line (null when absent).
json first_record(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::string line;
  if (!std::getline(in, line))
    return nullptr;
  auto rec = json::parse(line, nullptr, false);
  if (!rec.is_object() || rec.value("_type", "") != "metadata")
    return nullptr;
  return rec;
}

/// Sets metadata.session_handle in the file's first line, the rest as it
/// is (the original's update_metadata). Returns false when the file has no
/// metadata record or cannot be rewritten.
bool store_handle(const std::string& path, const std::string& name) {
  auto text = store_io::read_file(path);
  if (!text)
    return false;
  auto eol = text->find('\n');
  auto rec = json::parse(text->substr(0, eol), nullptr, false);
  if (!rec.is_object() || rec.value("_type", "") != "metadata")
    return false;
  if (!rec["metadata"].is_object())
    rec["metadata"] = json::object();
  rec["metadata"][session_handle_key] = name;
  auto rest = eol == std::string::npos ? std::string{} : text->substr(eol + 1);
  auto line = rec.dump(-1, ' ', false, json::error_handler_t::replace);
  return replace_file_atomic(path, line + "\n" + rest, 0600).outcome
         == write_outcome::written;
}

} // namespace

std::optional<std::string> normalize_session_handle(std::string_view text) {
  auto b = text.find_first_not_of(" \t\r\n\f\v");
  if (b == std::string_view::npos)
    return std::nullopt;
  auto e = text.find_last_not_of(" \t\r\n\f\v");
  auto s = text.substr(b, e - b + 1);
  if (!s.empty() && s.front() == '@')
    s.remove_prefix(1);
  if (s.size() < 4 || s.size() > 16)
    return std::nullopt;
  std::string out;
  for (char c : s) {
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
    if (c < 'a' || c > 'z')
      return std::nullopt;
    out += c;
  }
  return out;
}

std::string allocate_session_handle(const std::set<std::string>& used) {
  for (int count : {2, 3, 4}) {
    // The original's stable, non-alphabetical walk: a start and a step
    // coprime with the tier's size, both from SHA-256 of a fixed seed.
    auto seed = "nanobot-handle-v1:" + std::to_string(count);
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(seed.data()), seed.size(),
           digest);
    auto size = tier_size(count);
    auto start = big_endian(digest) % size;
    auto step = big_endian(digest + 8) % size;
    if (step == 0)
      step = 1;
    while (std::gcd(step, size) != 1)
      ++step;
    for (uint64_t offset = 0; offset < size; ++offset) {
      auto name = name_at(count, (start + offset * step) % size);
      if (!name.empty() && !used.count(name) && !is_blocked(name))
        return name;
    }
  }
  return random_name(used);
}

caf::expected<std::map<std::string, std::string>>
ensure_session_handles(const std::string& dir) {
  std::map<std::string, std::string> out;
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return out;
  // Exclusive: no store worker (shared holders) and no original nanobot
  // writes a session file while handles are read and assigned.
  file_lock lock{dir + "/" + session_files_lock, lock_mode::exclusive,
                 std::chrono::seconds(30)};
  if (!lock.held())
    return store_io::store_error("cannot lock the sessions in " + dir + ": "
                                 + lock.error());
  std::vector<session_row> rows;
  for (auto& s : list_sessions(dir).sessions) {
    auto rec = first_record(dir + "/" + session_file_name(s.key));
    session_row row{s.key, {}, {}};
    if (rec.is_object()) {
      if (rec.value("created_at", json()).is_string())
        row.created_at = rec["created_at"].get<std::string>();
      auto meta = rec.value("metadata", json());
      if (meta.is_object() && meta.value(session_handle_key, json()).is_string())
        row.handle = normalize_session_handle(
                       meta[session_handle_key].get<std::string>())
                       .value_or("");
    }
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) {
    return a.created_at != b.created_at ? a.created_at < b.created_at
                                        : a.key < b.key;
  });
  std::set<std::string> used;
  std::vector<const session_row*> pending;
  for (auto& row : rows) {
    if (row.handle.empty() || used.count(row.handle)) {
      pending.push_back(&row);
      continue;
    }
    used.insert(row.handle);
    out[row.key] = row.handle;
  }
  for (auto* row : pending) {
    auto name = allocate_session_handle(used);
    if (!store_handle(dir + "/" + session_file_name(row->key), name))
      continue;
    used.insert(name);
    out[row->key] = name;
  }
  return out;
}

} // namespace nb
