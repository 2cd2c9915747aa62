// The WhatsApp adapter's test fixtures: the test plays the channel manager
// for an adapter started against a scripted bridge or a scripted Cloud API.
#pragma once

#include <fstream>
#include <future>
#include <sstream>

#include <doctest/doctest.h>

#include "actors/channels/whatsapp/whatsapp_channel.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_whatsapp_bridge.hpp"
#include "tests/platforms/fake_whatsapp_cloud.hpp"

namespace nb::test {

using namespace std::chrono_literals;

struct wa : adapter_probe {
  temp_dir dir;

  ~wa() { stop(); }

  void start(nlohmann::json raw) {
    raw["enabled"] = true;
    adapter = whatsapp::make_channel(
      sys, channel_settings_for("whatsapp", raw, dir.path), "whatsapp",
      as_manager());
  }

  nlohmann::json meta(const inbound_msg& m) {
    return nlohmann::json::parse(m.metadata_json);
  }
};

struct bridged : wa {
  fake_whatsapp_bridge bridge;

  ~bridged() { stop(); }

  void start(nlohmann::json extra = nlohmann::json::object()) {
    nlohmann::json raw{{"bridgeUrl", bridge.url()},
             {"bridgeToken", fake_whatsapp_bridge::token}};
    raw.update(extra);
    wa::start(raw);
  }
};

struct cloud : wa {
  fake_whatsapp_cloud graph;
  std::string hook; ///< the webhook's URL, from the channel's status

  ~cloud() { stop(); }

  void start(nlohmann::json extra = nlohmann::json::object()) {
    nlohmann::json raw{{"mode", "cloud"},
             {"apiBase", graph.api_base()},
             {"accessToken", fake_whatsapp_cloud::access_token},
             {"phoneNumberId", fake_whatsapp_cloud::phone_number_id},
             {"appSecret", fake_whatsapp_cloud::app_secret},
             {"verifyToken", fake_whatsapp_cloud::verify_token},
             {"webhookPort", 0}};
    raw.update(extra);
    wa::start(raw);
    REQUIRE(wait_state("connected"));
    auto detail = status().detail;
    auto at = detail.find("http://");
    REQUIRE(at != std::string::npos);
    hook = detail.substr(at, detail.find(';', at) - at);
  }

  struct posted {
    int status = 0;
    std::optional<inbound_msg> msg;
  };

  /// Meta's POST from another thread while this one plays the manager
  /// (the webhook answers only once the journal's receipt came back).
  posted post(const nlohmann::json& body, std::chrono::milliseconds wait = 10s,
              const std::string& secret = fake_whatsapp_cloud::app_secret) {
    auto url = hook;
    auto answer = std::async(std::launch::async, [url, body, secret] {
      return fake_whatsapp_cloud::post_webhook(url, body, secret);
    });
    posted p;
    p.msg = next_inbound(wait);
    p.status = answer.get();
    return p;
  }
};

inline std::string read_all(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace nb::test
