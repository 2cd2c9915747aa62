#include "actors/cron/job.hpp"

namespace nb::cron {

using json = nlohmann::json;

json ms_or_null(int64_t v) {
  return v > 0 ? json(v) : json(nullptr);
}

json text_or_null(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}

namespace {

/// The value under `camel` or `snake` (null when neither is there).
const json* camel_or_snake(const json& obj, const char* camel,
                           const char* snake) {
  if (!obj.is_object())
    return nullptr;
  for (auto* k : {camel, snake})
    if (auto i = obj.find(k); i != obj.end() && !i->is_null())
      return &*i;
  return nullptr;
}

bool read_int(const json& obj, const char* camel, const char* snake,
              int64_t& out, std::string& err) {
  auto* v = camel_or_snake(obj, camel, snake);
  if (!v)
    return true;
  if (v->is_number()) {
    out = v->is_number_float() ? static_cast<int64_t>(v->get<double>())
                               : v->get<int64_t>();
    return true;
  }
  if (v->is_string()) {
    try {
      size_t used = 0;
      auto s = v->get<std::string>();
      out = static_cast<int64_t>(std::stod(s, &used));
      if (used == s.size())
        return true;
    } catch (const std::exception&) {
    }
  }
  err = std::string{camel} + ": expected a number";
  return false;
}

bool read_text(const json& obj, const char* camel, const char* snake,
               std::string& out, std::string& err) {
  auto* v = camel_or_snake(obj, camel, snake);
  if (!v)
    return true;
  if (!v->is_string()) {
    err = std::string{camel} + ": expected a string";
    return false;
  }
  out = v->get<std::string>();
  return true;
}

bool read_bool(const json& obj, const char* camel, const char* snake,
               bool& out, std::string& err) {
  auto* v = camel_or_snake(obj, camel, snake);
  if (!v)
    return true;
  if (!v->is_boolean()) {
    err = std::string{camel} + ": expected true or false";
    return false;
  }
  out = v->get<bool>();
  return true;
}

} // namespace

json to_json(const job& j) {
  auto& s = j.schedule;
  json history = json::array();
  for (auto& r : j.run_history)
    history.push_back({{"runAtMs", r.run_at_ms},
                       {"status", r.status},
                       {"durationMs", r.duration_ms},
                       {"error", text_or_null(r.error)}});
  json payload = j.payload_extra.is_object() ? j.payload_extra : json::object();
  payload["kind"] = j.payload_kind;
  payload["message"] = j.message;
  payload["sessionKey"] = text_or_null(j.session_key);
  payload["originChannel"] = text_or_null(j.origin_channel);
  payload["originChatId"] = text_or_null(j.origin_chat_id);
  payload["originMetadata"] = j.origin_metadata;
  return {
    {"id", j.id},
    {"name", j.name},
    {"enabled", j.enabled},
    {"schedule",
     {{"kind", s.kind},
      {"atMs", s.kind == "at" ? ms_or_null(s.at_ms) : json(nullptr)},
      {"everyMs", s.kind == "every" ? ms_or_null(s.every_ms) : json(nullptr)},
      {"expr", s.kind == "cron" ? json(s.expr) : json(nullptr)},
      {"tz", text_or_null(s.tz)}}},
    {"payload", payload},
    {"state",
     {{"nextRunAtMs", ms_or_null(j.next_run_at_ms)},
      {"lastRunAtMs", ms_or_null(j.last_run_at_ms)},
      {"lastStatus", text_or_null(j.last_status)},
      {"lastError", text_or_null(j.last_error)},
      {"runHistory", history}}},
    {"createdAtMs", j.created_at_ms},
    {"updatedAtMs", j.updated_at_ms},
    {"deleteAfterRun", j.delete_after_run},
  };
}

std::optional<job> job_from_json(const json& v, std::string* error) {
  std::string err;
  auto fail = [&](std::string why) -> std::optional<job> {
    if (error)
      *error = std::move(why);
    return std::nullopt;
  };
  if (!v.is_object())
    return fail("a job must be a JSON object");
  job j;
  if (!read_text(v, "id", "id", j.id, err) || j.id.empty())
    return fail(err.empty() ? "id: missing" : err);
  auto prefix = "job " + j.id + ": ";
  if (!read_text(v, "name", "name", j.name, err)
      || !read_bool(v, "enabled", "enabled", j.enabled, err)
      || !read_int(v, "createdAtMs", "created_at_ms", j.created_at_ms, err)
      || !read_int(v, "updatedAtMs", "updated_at_ms", j.updated_at_ms, err)
      || !read_bool(v, "deleteAfterRun", "delete_after_run",
                    j.delete_after_run, err))
    return fail(prefix + err);
  auto* s = camel_or_snake(v, "schedule", "schedule");
  if (!s || !s->is_object())
    return fail(prefix + "schedule: missing");
  auto& sc = j.schedule;
  if (!read_text(*s, "kind", "kind", sc.kind, err)
      || !read_int(*s, "atMs", "at_ms", sc.at_ms, err)
      || !read_int(*s, "everyMs", "every_ms", sc.every_ms, err)
      || !read_text(*s, "expr", "expr", sc.expr, err)
      || !read_text(*s, "tz", "tz", sc.tz, err))
    return fail(prefix + "schedule." + err);
  if (sc.kind != "at" && sc.kind != "every" && sc.kind != "cron")
    return fail(prefix + "schedule.kind: '" + sc.kind
                + "' is not one of at, every, cron");
  if (auto* p = camel_or_snake(v, "payload", "payload"); p && p->is_object()) {
    j.payload_extra = *p;
    for (auto* k : {"kind", "message", "sessionKey", "session_key",
                    "originChannel", "origin_channel", "originChatId",
                    "origin_chat_id", "originMetadata", "origin_metadata"})
      j.payload_extra.erase(k);
    if (!read_text(*p, "kind", "kind", j.payload_kind, err)
        || !read_text(*p, "message", "message", j.message, err)
        || !read_text(*p, "sessionKey", "session_key", j.session_key, err)
        || !read_text(*p, "originChannel", "origin_channel",
                      j.origin_channel, err)
        || !read_text(*p, "originChatId", "origin_chat_id",
                      j.origin_chat_id, err))
      return fail(prefix + "payload." + err);
    if (auto* m = camel_or_snake(*p, "originMetadata", "origin_metadata");
        m && m->is_object())
      j.origin_metadata = *m;
    // Older stores named the target with deliver/channel/to: bind to it.
    auto* ch = camel_or_snake(*p, "channel", "channel");
    auto* to = camel_or_snake(*p, "to", "to");
    if (j.session_key.empty() && ch && to && ch->is_string()
        && to->is_string()) {
      j.origin_channel = ch->get<std::string>();
      j.origin_chat_id = to->get<std::string>();
      j.session_key = j.origin_channel + ":" + j.origin_chat_id;
    }
  }
  if (auto* st = camel_or_snake(v, "state", "state"); st && st->is_object()) {
    if (!read_int(*st, "nextRunAtMs", "next_run_at_ms", j.next_run_at_ms, err)
        || !read_int(*st, "lastRunAtMs", "last_run_at_ms", j.last_run_at_ms,
                     err)
        || !read_text(*st, "lastStatus", "last_status", j.last_status, err)
        || !read_text(*st, "lastError", "last_error", j.last_error, err))
      return fail(prefix + "state." + err);
    if (auto* h = camel_or_snake(*st, "runHistory", "run_history");
        h && h->is_array())
      for (auto& r : *h) {
        run_record rec;
        if (!read_int(r, "runAtMs", "run_at_ms", rec.run_at_ms, err)
            || !read_text(r, "status", "status", rec.status, err)
            || !read_int(r, "durationMs", "duration_ms", rec.duration_ms, err)
            || !read_text(r, "error", "error", rec.error, err))
          return fail(prefix + "state.runHistory." + err);
        j.run_history.push_back(std::move(rec));
      }
  }
  return j;
}

void add_run(job& j, run_record r) {
  j.run_history.push_back(std::move(r));
  if (j.run_history.size() > run_history_cap)
    j.run_history.erase(j.run_history.begin(),
                        j.run_history.end() - run_history_cap);
}

} // namespace nb::cron
