// Svix-style API calls the end-to-end tests repeat: create an application, an endpoint
// (pointing at a TestReceiver), publish a message, read its secret and attempts. Each helper
// asserts the HTTP status it expects (gtest ADD_FAILURE) and returns the parsed JSON.
// Thread-safety: stateless beyond the HookdProcess it is given; one test thread.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "e2e/hookd_process.hpp"

namespace hookd::e2e {

class ApiClient {
 public:
  explicit ApiClient(const HookdProcess& hookd) : hookd_(hookd) {}

  std::string create_app(const std::string& name);  // returns the app id
  std::string create_endpoint(const std::string& app_id, const std::string& url);  // ep id
  // POST .../endpoint with a full EndpointIn body (url, fifo, rateLimit, retryPolicy...).
  std::string create_endpoint(const std::string& app_id, const nlohmann::json& endpoint_in);
  std::string endpoint_secret(const std::string& app_id, const std::string& endpoint_id);
  // POST .../msg; returns the reply (202 expected by callers that care).
  HttpReply publish(const std::string& app_id, const std::string& event_type,
                    const nlohmann::json& payload);
  HttpReply publish(const std::string& app_id, const nlohmann::json& message_in);
  nlohmann::json attempts_for_message(const std::string& app_id, const std::string& msg_id);
  // Every attempt logged for an endpoint (all pages).
  std::vector<nlohmann::json> attempts_for_endpoint(const std::string& app_id,
                                                    const std::string& endpoint_id);
  // GET `path`, expecting 200; the parsed body.
  nlohmann::json get_json(const std::string& path);
  // The application's dead letters (GET /api/v1/hookd/dlq?app_id=, first 250).
  nlohmann::json dead_letters(const std::string& app_id);

 private:
  nlohmann::json expect(const HttpReply& reply, long status, const std::string& what);
  const HookdProcess& hookd_;
};

}  // namespace hookd::e2e
