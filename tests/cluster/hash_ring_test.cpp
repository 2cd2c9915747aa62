// Consistent hashing: placement is stable, balanced, and a membership change
// moves only the share of keys it must.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "actors/cluster/hash_ring.hpp"

namespace {

std::vector<std::string> keys(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back("api:chat-" + std::to_string(i));
  return out;
}

std::map<std::string, std::string> placement(const nb::hash_ring& ring,
                                             const std::vector<std::string>& ks) {
  std::map<std::string, std::string> out;
  for (auto& k : ks)
    out[k] = *ring.owner(k);
  return out;
}

} // namespace

TEST_CASE("an empty ring owns nothing") {
  nb::hash_ring ring;
  CHECK_FALSE(ring.owner("api:x").has_value());
  ring.add("a");
  ring.remove("a");
  CHECK(ring.empty());
  CHECK_FALSE(ring.owner("api:x").has_value());
}

TEST_CASE("the stable hash is fixed across builds and processes") {
  // Pinned values (computed independently with Python): a change here would
  // re-home every session of a cluster whose nodes run different builds.
  CHECK(nb::stable_hash("") == 0x552d3fb62b3c344full);
  CHECK(nb::stable_hash("telegram:12345") == 0xedc604dff5cf9bd9ull);
  CHECK(nb::stable_hash("api:1") != nb::stable_hash("api:2"));
  auto h = nb::stable_hash("telegram:12345");
  CHECK(h == nb::stable_hash(std::string{"telegram:"} + "12345"));
}

TEST_CASE("placement does not depend on the order nodes joined in") {
  nb::hash_ring a{32}, b{32};
  for (auto n : {"agent-1", "agent-2", "agent-3"})
    a.add(n);
  for (auto n : {"agent-3", "agent-1", "agent-2"})
    b.add(n);
  auto ks = keys(2000);
  CHECK(placement(a, ks) == placement(b, ks));
}

TEST_CASE("membership changes move only the share they must") {
  struct row {
    std::vector<std::string> before;
    std::string change; ///< "+x" adds x, "-x" removes x
  };
  std::vector<row> table = {
    {{"a"}, "+b"},
    {{"a", "b"}, "+c"},
    {{"a", "b", "c"}, "+d"},
    {{"a", "b", "c"}, "-b"},
    {{"a", "b", "c", "d"}, "-a"},
    {{"a", "b"}, "-b"},
  };
  auto ks = keys(10000);
  for (auto& r : table) {
    CAPTURE(r.change);
    nb::hash_ring ring{64};
    for (auto& n : r.before)
      ring.add(n);
    auto before = placement(ring, ks);
    auto name = r.change.substr(1);
    bool adding = r.change[0] == '+';
    if (adding)
      ring.add(name);
    else
      ring.remove(name);
    auto after = placement(ring, ks);
    size_t moved = 0;
    for (auto& k : ks) {
      if (before[k] == after[k])
        continue;
      ++moved;
      // Adding: a key moves only onto the new node. Removing: only the
      // removed node's keys move.
      if (adding)
        CHECK(after[k] == name);
      else
        CHECK(before[k] == name);
    }
    // The moved share is near 1/n of the keys (n = nodes after an add,
    // before a remove); 64 virtual nodes keep it within a loose band.
    auto n = adding ? ring.size() : ring.size() + 1;
    double share = static_cast<double>(moved) / ks.size();
    CHECK(share > 0.5 / n);
    CHECK(share < 1.6 / n);
  }
}

TEST_CASE("keys spread over the nodes within a loose band") {
  nb::hash_ring ring{64};
  for (auto n : {"agent-1", "agent-2", "agent-3", "agent-4"})
    ring.add(n);
  std::map<std::string, int> count;
  for (auto& k : keys(20000))
    ++count[*ring.owner(k)];
  REQUIRE(count.size() == 4);
  for (auto& [node, c] : count) {
    CAPTURE(node);
    CHECK(c > 20000 / 4 / 2);
    CHECK(c < 20000 / 4 * 3 / 2);
  }
}

TEST_CASE("removing a node that collided on a point gives the point back") {
  nb::hash_ring ring{256};
  ring.add("x");
  ring.add("y");
  auto ks = keys(3000);
  auto with_both = placement(ring, ks);
  ring.remove("y");
  nb::hash_ring only_x{256};
  only_x.add("x");
  CHECK(placement(ring, ks) == placement(only_x, ks));
  ring.add("y");
  CHECK(placement(ring, ks) == with_both);
}
