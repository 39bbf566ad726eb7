// Svix-style API calls the end-to-end tests repeat: create an application, an endpoint
// (pointing at a TestReceiver), publish a message, read its secret and attempts. Each helper
// asserts the HTTP status it expects (gtest ADD_FAILURE) and returns the parsed JSON.
// Thread-safety: stateless beyond the HookdProcess it is given; one test thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "e2e/hookd_process.hpp"

namespace hookd::e2e {

class ApiClient {
 public:
  explicit ApiClient(const HookdProcess& hookd) : hookd_(hookd) {}

  std::string create_app(const std::string& name);  // returns the app id
  std::string create_endpoint(const std::string& app_id, const std::string& url);  // ep id
  std::string endpoint_secret(const std::string& app_id, const std::string& endpoint_id);
  // POST .../msg; returns the reply (202 expected by callers that care).
  HttpReply publish(const std::string& app_id, const std::string& event_type,
                    const nlohmann::json& payload);
  nlohmann::json attempts_for_message(const std::string& app_id, const std::string& msg_id);

 private:
  nlohmann::json expect(const HttpReply& reply, long status, const std::string& what);
  const HookdProcess& hookd_;
};

}  // namespace hookd::e2e
