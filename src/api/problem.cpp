#include "api/problem.hpp"

#include <nlohmann/json.hpp>

#include <utility>

namespace hookd::api {
namespace {

std::string_view title_for(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 413:
      return "Content Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Content";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

// Svix's HTTPValidationError members of a 422: `detail` as [{loc, msg, type}] (one item per
// field error; an error without fields is one item located in the body) and the one-line
// summary, which RFC 9457 would keep in `detail`, as `message`.
nlohmann::json svix_validation_members(const ApiError& error) {
  auto detail = nlohmann::json::array();
  for (const auto& e : error.errors) {
    detail.push_back({{"loc", svix_location(e)}, {"msg", e.message}, {"type", "value_error"}});
  }
  if (detail.empty()) {
    detail.push_back({{"loc", {"body"}}, {"msg", error.detail}, {"type", "value_error"}});
  }
  return {{"detail", std::move(detail)}, {"message", error.detail}};
}

}  // namespace

ApiError api_error(int status, std::string code, std::string detail) {
  ApiError error;
  error.status = status;
  error.code = std::move(code);
  error.detail = std::move(detail);
  return error;
}

ApiError validation_error(std::vector<FieldError> errors) {
  std::string detail = "The request body is invalid";
  if (!errors.empty()) detail = errors.front().field + ": " + errors.front().message;
  if (errors.size() > 1) detail += " (and " + std::to_string(errors.size() - 1) + " more)";
  ApiError error = api_error(422, "validation", std::move(detail));
  error.errors = std::move(errors);
  return error;
}

ApiError query_validation_error(std::vector<FieldError> errors) {
  for (auto& e : errors) e.location = "query";
  return validation_error(std::move(errors));
}

ApiError bad_request(std::string detail) {
  return api_error(400, "bad_request", std::move(detail));
}
ApiError not_found(std::string detail) { return api_error(404, "not_found", std::move(detail)); }
ApiError conflict(std::string detail) { return api_error(409, "conflict", std::move(detail)); }
ApiError unavailable(std::string detail) {
  return api_error(503, "unavailable", std::move(detail));
}

ApiError from_store_error(const Error& error, std::string_view what) {
  switch (error.code) {
    case ErrorCode::kInvalidArgument:
      return api_error(422, "validation", error.message);
    case ErrorCode::kNotFound:
      return not_found(what.empty() ? error.message : std::string(what) + " was not found");
    case ErrorCode::kConflict:
      return conflict(error.message);
    case ErrorCode::kUnavailable:
      return unavailable("Storage is temporarily unavailable; retry later (" + error.message + ")");
    case ErrorCode::kInternal:
      break;
  }
  return api_error(500, "internal", "Internal error: " + error.message);
}

nlohmann::json svix_location(const FieldError& error) {
  auto loc = nlohmann::json::array({error.location});
  std::string part;
  for (const char c : error.field) {
    if (c == '.' || c == '[' || c == ']') {
      if (!part.empty()) loc.push_back(std::exchange(part, {}));
    } else {
      part += c;
    }
  }
  if (!part.empty()) loc.push_back(part);
  return loc;
}

net::HttpResponse to_response(const ApiError& error) {
  nlohmann::json body = {
      {"type", "urn:hookd:problem:" + error.code},
      {"title", title_for(error.status)},
      {"status", error.status},
      {"detail", error.detail},
      {"code", error.code},
  };
  if (error.status == 422) body.update(svix_validation_members(error));
  if (!error.errors.empty()) {
    auto& list = body["errors"] = nlohmann::json::array();
    for (const auto& e : error.errors) list.push_back({{"field", e.field}, {"message", e.message}});
  }
  for (const auto& [name, value] : error.extensions.items()) body[name] = value;
  net::HttpResponse response;
  response.status = error.status;
  response.headers.set("Content-Type", "application/problem+json");
  for (const auto& h : error.headers) response.headers.set(h.name, h.value);
  // A 503 is temporary (storage unavailable, a full queue, stopping): say when to come back,
  // as the inbound gateway and the idempotency gateway do.
  if (error.status == 503 && !response.headers.contains("Retry-After")) {
    response.headers.set("Retry-After", std::string(kUnavailableRetryAfter));
  }
  response.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return response;
}

net::HttpResponse json_response(int status, std::string body) {
  net::HttpResponse response;
  response.status = status;
  response.headers.set("Content-Type", "application/json");
  response.body = std::move(body);
  return response;
}

net::HttpResponse empty_response(int status) {
  net::HttpResponse response;
  response.status = status;
  return response;
}

}  // namespace hookd::api
