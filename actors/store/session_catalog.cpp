// What the WebUI's sessions page needs of the files: every session with
// its title, archive flag, first user message and size; a metadata change
// that keeps every message as written; deleting a file.
#include <cerrno>

#include <sys/stat.h>
#include <unistd.h>

#include "actors/common/file_lock.hpp"

#include "actors/common/strings.hpp"
#include "actors/common/utf8.hpp"
#include "actors/store/posix_io.hpp"
#include "actors/store/session_files.hpp"
#include "actors/store/session_format.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

using namespace store_io;
using session_format::json;

constexpr size_t preview_bytes = 160;

/// The text of a message's content: a string, or the text parts of a list.
std::string content_text(const json& content) {
  if (content.is_string())
    return content.get<std::string>();
  std::string out;
  if (content.is_array())
    for (const auto& part : content)
      if (part.is_object() && part.value("type", "") == "text"
          && part.contains("text") && part["text"].is_string())
        out += (out.empty() ? "" : " ") + part["text"].get<std::string>();
  return out;
}

void fill_card(session_card& card, const std::string& text) {
  auto parsed = session_format::parse_lines(text);
  card.messages = static_cast<int32_t>(parsed.messages.size());
  if (parsed.has_meta)
    if (auto m = parsed.meta.find("metadata"); m != parsed.meta.end())
      read_card_meta(*m, card);
  for (const auto& line : parsed.messages)
    if (card.preview = card_preview(line); !card.preview.empty())
      break;
}

} // namespace

void read_card_meta(const json& metadata, session_card& card) {
  if (!metadata.is_object())
    return;
  if (auto t = metadata.find("title"); t != metadata.end() && t->is_string())
    card.title = t->get<std::string>();
  if (auto a = metadata.find("archived");
      a != metadata.end() && a->is_boolean())
    card.archived = a->get<bool>();
}

std::string card_preview(const std::string& message_line) {
  auto msg = json::parse(message_line, nullptr, false);
  if (!msg.is_object() || msg.value("role", "") != "user"
      || !msg.contains("content"))
    return {};
  auto words = fold_space(content_text(msg["content"]));
  if (words.empty())
    return {};
  auto head = utf8_head(words, preview_bytes);
  return std::string{head} + (head.size() < words.size() ? "…" : "");
}

session_catalog catalog_sessions(const std::string& dir, int32_t limit) {
  session_catalog out;
  for (auto& s : list_sessions(dir, limit).sessions) {
    session_card card;
    card.key = s.key;
    card.updated_ms = s.updated_ms;
    int err = 0;
    // A file that went between the listing and now is left out; one we
    // cannot read is still listed, without its details.
    auto text = read_file(dir + "/" + session_file_name(s.key), &err);
    if (!text && err == ENOENT)
      continue;
    if (text)
      fill_card(card, *text);
    out.sessions.push_back(std::move(card));
  }
  return out;
}

caf::error patch_session_meta(const std::string& dir, const std::string& key,
                              const std::string& patch_json) {
  auto patch = json::parse(patch_json, nullptr, false);
  if (!patch.is_object())
    return caf::make_error(errc::invalid_arguments,
                           "the metadata change is not a JSON object");
  auto snap = load_session(dir, key);
  if (!snap)
    return std::move(snap.error());
  if (!snap->existed)
    return caf::make_error(errc::invalid_arguments,
                           "no session " + key + " is stored");
  auto meta = json::parse(snap->metadata_json, nullptr, false);
  if (!meta.is_object())
    meta = json::object();
  meta.merge_patch(patch);
  // Every message stays as written: the rewrite keeps them all.
  return replace_session(dir, key, meta.dump(), {},
                         static_cast<uint64_t>(snap->messages.size()));
}

caf::error remove_session(const std::string& dir, const std::string& key) {
  if (key.empty())
    return store_error("empty session key (directory " + dir + ")");
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return caf::none; // no folder, no file
  file_lock lock{dir + "/" + session_files_lock, lock_mode::shared};
  auto path = dir + "/" + session_file_name(key);
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT)
      return caf::none;
    return sys_error("cannot delete", path, errno);
  }
  return fsync_dir(dir);
}

} // namespace nb
