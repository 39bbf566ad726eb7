#include "e2e/api_client.hpp"

#include <gtest/gtest.h>

namespace hookd::e2e {

nlohmann::json ApiClient::expect(const HttpReply& reply, long status, const std::string& what) {
  if (reply.status != status) {
    ADD_FAILURE() << what << ": expected " << status << ", got " << reply.status << " "
                  << reply.error << " " << reply.body;
  }
  return reply.json();
}

std::string ApiClient::create_app(const std::string& name) {
  const auto body = nlohmann::json{{"name", name}}.dump();
  return expect(hookd_.post("/api/v1/app", body), 201, "create app").value("id", "");
}

std::string ApiClient::create_endpoint(const std::string& app_id, const std::string& url) {
  const auto body = nlohmann::json{{"url", url}, {"description", "e2e receiver"}}.dump();
  return expect(hookd_.post("/api/v1/app/" + app_id + "/endpoint", body), 201, "create endpoint")
      .value("id", "");
}

std::string ApiClient::create_endpoint(const std::string& app_id,
                                       const nlohmann::json& endpoint_in) {
  return expect(hookd_.post("/api/v1/app/" + app_id + "/endpoint", endpoint_in.dump()), 201,
                "create endpoint")
      .value("id", "");
}

std::string ApiClient::endpoint_secret(const std::string& app_id, const std::string& endpoint_id) {
  return expect(hookd_.get("/api/v1/app/" + app_id + "/endpoint/" + endpoint_id + "/secret"), 200,
                "get secret")
      .value("key", "");
}

HttpReply ApiClient::publish(const std::string& app_id, const std::string& event_type,
                             const nlohmann::json& payload) {
  const auto body = nlohmann::json{{"eventType", event_type}, {"payload", payload}}.dump();
  return hookd_.post("/api/v1/app/" + app_id + "/msg", body);
}

HttpReply ApiClient::publish(const std::string& app_id, const nlohmann::json& message_in) {
  return hookd_.post("/api/v1/app/" + app_id + "/msg", message_in.dump());
}

nlohmann::json ApiClient::attempts_for_message(const std::string& app_id,
                                               const std::string& msg_id) {
  return expect(hookd_.get("/api/v1/app/" + app_id + "/attempt/msg/" + msg_id), 200,
                "list attempts");
}

std::vector<nlohmann::json> ApiClient::attempts_for_endpoint(const std::string& app_id,
                                                             const std::string& endpoint_id) {
  std::vector<nlohmann::json> out;
  std::string iterator;
  for (int page = 0; page < 100; ++page) {
    std::string path = "/api/v1/app/" + app_id + "/attempt/endpoint/" + endpoint_id + "?limit=250";
    if (!iterator.empty()) path += "&iterator=" + iterator;
    const auto json = get_json(path);
    if (!json.contains("data")) break;
    for (const auto& attempt : json["data"]) out.push_back(attempt);
    if (json.value("done", true) || !json["iterator"].is_string()) break;
    iterator = json["iterator"].get<std::string>();
  }
  return out;
}

nlohmann::json ApiClient::get_json(const std::string& path) {
  return expect(hookd_.get(path), 200, "GET " + path);
}

nlohmann::json ApiClient::dead_letters(const std::string& app_id) {
  return get_json("/api/v1/hookd/dlq?limit=250&app_id=" + app_id);
}

}  // namespace hookd::e2e
