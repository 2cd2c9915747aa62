#include "actors/store/lease.hpp"

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <caf/actor_system.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/blocking_task.hpp"
#include "actors/common/clock.hpp"
#include "actors/common/thread_name.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/store/pg_conn.hpp"
#include "actors/store/process_mark.hpp"
#include "config/atomic_file.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

caf::error lease_error(std::string text) {
  return caf::make_error(errc::store_failed, std::move(text));
}

/// Holds an exclusive flock on `<dir>/.lease-<name>.lock` while alive.
struct lease_lock {
  int fd = -1;
  explicit lease_lock(const std::string& path) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0 && ::flock(fd, LOCK_EX) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ~lease_lock() {
    if (fd >= 0)
      ::close(fd); // releases the flock
  }
};

bool valid_name(const std::string& name) {
  return !name.empty() && name.size() <= 64
         && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_")
              == std::string::npos;
}

} // namespace

caf::expected<lease_state> file_lease(const std::string& dir,
                                      const std::string& name,
                                      const std::string& owner, int64_t ttl_ms,
                                      int64_t now) {
  if (!valid_name(name) || owner.empty())
    return lease_error("lease: a name of a-z, 0-9, '-', '_' and an owner are "
                       "required");
  auto base = dir + "/.lease-" + name;
  lease_lock lock{base + ".lock"};
  if (lock.fd < 0)
    return lease_error("lease: cannot lock " + base + ".lock");
  std::string holder;
  int64_t expires = 0;
  process_mark holder_process;
  {
    std::ifstream in{base + ".json"};
    std::stringstream buf;
    buf << in.rdbuf();
    auto j = nlohmann::json::parse(buf.str(), nullptr, false);
    if (j.is_object()) {
      holder = j.value("owner", "");
      expires = j.value("expires_at_ms", int64_t{0});
      if (auto p = j.find("process"); p != j.end())
        holder_process = mark_from_json(*p);
    }
  }
  // A holder killed on this machine (kill -9, OOM) cannot renew: its lease
  // is taken at once instead of after the TTL.
  if (!holder.empty() && holder != owner && expires > now
      && !certainly_gone(holder_process))
    return lease_state{false, holder, expires - now};
  nlohmann::json j{{"owner", owner},
                   {"expires_at_ms", now + ttl_ms},
                   {"process", to_json(this_process())}};
  auto written = replace_file_atomic(base + ".json", j.dump(), 0600);
  if (written.outcome == write_outcome::failed)
    return lease_error("lease: " + written.error);
  return lease_state{true, owner, ttl_ms};
}

caf::error file_lease_release(const std::string& dir, const std::string& name,
                              const std::string& owner) {
  if (!valid_name(name))
    return lease_error("lease: bad name");
  auto base = dir + "/.lease-" + name;
  lease_lock lock{base + ".lock"};
  std::ifstream in{base + ".json"};
  std::stringstream buf;
  buf << in.rdbuf();
  auto j = nlohmann::json::parse(buf.str(), nullptr, false);
  if (j.is_object() && j.value("owner", "") == owner)
    ::unlink((base + ".json").c_str());
  return {};
}

caf::expected<lease_state> pg_lease(pg_connection& db, const std::string& name,
                                    const std::string& owner, int64_t ttl_ms) {
  if (!valid_name(name) || owner.empty())
    return lease_error("lease: a name of a-z, 0-9, '-', '_' and an owner are "
                       "required");
  pg_rows rows;
  auto me = to_json(this_process()).dump();
  auto ttl = std::to_string(ttl_ms);
  // One statement: take it when free, expired or ours; the database's
  // clock decides, so gateways on machines with skewed clocks agree.
  if (auto err = db.exec(
        "INSERT INTO nb_leases (name, owner, expires_at, process) VALUES ($1, "
        "$2, now() + $3::bigint * interval '1 millisecond', $4) "
        "ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, "
        "expires_at = EXCLUDED.expires_at, process = EXCLUDED.process WHERE "
        "nb_leases.owner = EXCLUDED.owner OR nb_leases.expires_at < now() "
        "RETURNING owner",
        {name, owner, ttl, me}, &rows))
    return err;
  if (!rows.empty())
    return lease_state{true, owner, ttl_ms};
  if (auto err = db.exec("SELECT owner, (extract(epoch FROM expires_at - "
                         "now()) * 1000)::bigint, process FROM nb_leases "
                         "WHERE name = $1",
                         {name}, &rows))
    return err;
  if (rows.empty()) // released between the two statements: try again later
    return lease_state{false, "", 0};
  auto holder = rows[0][0].value_or("");
  auto mark = nlohmann::json::parse(rows[0][2].value_or(""), nullptr, false);
  if (certainly_gone(mark_from_json(mark))) {
    // Its holder was killed on this machine: take it over, unless someone
    // else did so since.
    pg_rows taken;
    if (auto err = db.exec(
          "UPDATE nb_leases SET owner = $2, expires_at = now() + "
          "$3::bigint * interval '1 millisecond', process = $4 WHERE name = "
          "$1 AND owner = $5 RETURNING owner",
          {name, owner, ttl, me, holder}, &taken))
      return err;
    if (!taken.empty())
      return lease_state{true, owner, ttl_ms};
  }
  return lease_state{false, holder, std::stoll(rows[0][1].value_or("0"))};
}

caf::error pg_lease_release(pg_connection& db, const std::string& name,
                            const std::string& owner) {
  return db.exec("DELETE FROM nb_leases WHERE name = $1 AND owner = $2",
                 {name, owner});
}

namespace {

/// The PostgreSQL keeper's connection.
struct lease_keeper_state {
  lease_keeper_state() = default;
  std::unique_ptr<pg_connection> db;
  bool schema = false;
  static inline const char* name = "lease_keeper";
};

/// The file store's keeper: each lease operation runs on a thread that
/// exists only while it does (a renewal every few seconds at most), and
/// `await` keeps them in the order they were asked (a release is never
/// overtaken by the renewal before it). Idle, it holds no thread.
lease_actor::behavior_type file_lease_keeper(lease_actor::pointer self,
                                             std::string dir,
                                             std::function<int64_t()> wall_ms) {
  constexpr auto op_timeout = std::chrono::seconds(30);
  return {
    [=](lease_atom, const std::string& name, const std::string& owner,
        int64_t ttl) -> caf::result<bool, std::string, int64_t> {
      auto rp = self->make_response_promise<bool, std::string, int64_t>();
      timed_request(self,
                    blocking_task(self, "nb.lease",
                                  [=]() -> caf::result<lease_state> {
                                    auto r = file_lease(dir, name, owner, ttl,
                                                        wall_ms());
                                    if (!r)
                                      return std::move(r.error());
                                    return std::move(*r);
                                  }),
                    op_timeout, caf::get_atom::value)
        .await(
          [=](lease_state& r) mutable {
            rp.deliver(r.held, std::move(r.holder), r.expires_in_ms);
          },
          [=](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
    [=](unlease_atom, const std::string& name,
        const std::string& owner) -> caf::result<caf::ok_atom> {
      auto rp = self->make_response_promise<caf::ok_atom>();
      timed_request(self,
                    blocking_task(self, "nb.lease",
                                  [=]() -> caf::result<caf::ok_atom> {
                                    if (auto err = file_lease_release(
                                          dir, name, owner))
                                      return err;
                                    return caf::ok_atom::value;
                                  }),
                    op_timeout, caf::get_atom::value)
        .await([=](caf::ok_atom) mutable { rp.deliver(caf::ok_atom::value); },
               [=](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
  };
}

} // namespace

lease_actor spawn_lease_keeper(caf::actor_system& sys,
                               const std::string& sessions_dir,
                               const std::string& dsn,
                               std::function<int64_t()> wall_ms) {
  if (dsn.empty())
    return sys.spawn(file_lease_keeper, sessions_dir,
                     wall_ms ? std::move(wall_ms) : std::function{unix_ms});
  // PostgreSQL: one connection, kept on a thread of its own.
  using state = lease_keeper_state;
  auto impl = [](lease_actor::stateful_pointer<state> self,
                 std::string dsn) -> lease_actor::behavior_type {
    name_thread("nb.lease");
    self->state.db = std::make_unique<pg_connection>(std::move(dsn));
    auto attempt = [self](const std::string& name, const std::string& owner,
                          int64_t ttl) -> caf::expected<lease_state> {
      try {
        auto& st = self->state;
        if (!st.schema) {
          if (auto err = st.db->exec("CREATE TABLE IF NOT EXISTS nb_leases ("
                                     " name text PRIMARY KEY, owner text NOT "
                                     "NULL, expires_at timestamptz NOT NULL)"))
            return err;
          // Tables made before the holder's process was recorded.
          if (auto err = st.db->exec("ALTER TABLE nb_leases ADD COLUMN IF NOT "
                                     "EXISTS process text NOT NULL DEFAULT ''"))
            return err;
          st.schema = true;
        }
        return pg_lease(*st.db, name, owner, ttl);
      } catch (const std::exception& ex) {
        return lease_error(std::string{"lease failed: "} + ex.what());
      }
    };
    return {
      [=](lease_atom, const std::string& name, const std::string& owner,
          int64_t ttl) -> caf::result<bool, std::string, int64_t> {
        auto r = attempt(name, owner, ttl);
        if (!r)
          return std::move(r.error());
        return {r->held, r->holder, r->expires_in_ms};
      },
      [=](unlease_atom, const std::string& name,
          const std::string& owner) -> caf::result<caf::ok_atom> {
        if (auto err = pg_lease_release(*self->state.db, name, owner))
          return err;
        return caf::ok_atom::value;
      },
    };
  };
  return sys.spawn<caf::detached>(impl, dsn);
}

} // namespace nb
