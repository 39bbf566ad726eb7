// ApiError: one failed API request, rendered as RFC 9457 application/problem+json whose body
// also satisfies Svix's error schemas, so problem-aware clients and the Svix SDKs (which
// parse the body as Svix's HttpErrorOut or HTTPValidationError) both understand it:
//   - any status but 422: `code` and `detail` strings (HttpErrorOut) beside type/title/status;
//   - 422: `detail` is Svix's array of {loc, msg, type} (HTTPValidationError), the one-line
//     summary moves to `message`, and hookd's own `errors` [{field, message}] stays.
// Helpers map store errors to HTTP statuses. Thread-safety: plain values and pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "net/http_types.hpp"

namespace hookd::api {

struct FieldError {
  std::string field;    // JSON path of the offending field, e.g. "url" or "filterTypes[2]"
  std::string message;  // what is wrong and what is allowed
  std::string location = "body";  // where the field is: "body", "query" or "path" (Svix `loc`)
};

struct ApiError {
  int status = 500;
  std::string code;  // short machine-readable code, e.g. "validation", "not_found"
  std::string detail;
  std::vector<FieldError> errors;
  std::vector<net::HttpHeader> headers;  // extra response headers (Allow, WWW-Authenticate)
  nlohmann::json extensions = nlohmann::json::object();  // extra members, e.g. "message"
};

ApiError api_error(int status, std::string code, std::string detail);
ApiError validation_error(std::vector<FieldError> errors);
// A 422 for query parameters: as validation_error, every error located in "query".
ApiError query_validation_error(std::vector<FieldError> errors);
ApiError bad_request(std::string detail);
ApiError not_found(std::string detail);
ApiError conflict(std::string detail);
ApiError unavailable(std::string detail);

// kInvalidArgument → 422, kNotFound → 404, kConflict → 409, kUnavailable → 503, else 500.
// `what` names the object for a not-found message ("application 'app_x'").
ApiError from_store_error(const Error& error, std::string_view what = {});

// The answer's Retry-After (seconds) for a 503 unless the error sets its own.
inline constexpr std::string_view kUnavailableRetryAfter = "1";

// Every 503 carries `Retry-After: 1` (kUnavailableRetryAfter) unless `error.headers` has one.
net::HttpResponse to_response(const ApiError& error);

// Svix's `loc` of a field error: its location, then the field path split at `.` and `[i]`
// ("filterTypes[2]" in the body -> ["body", "filterTypes", "2"]; every item a string).
nlohmann::json svix_location(const FieldError& error);

// A JSON response (`application/json`) with the given status and serialized body.
net::HttpResponse json_response(int status, std::string body);
net::HttpResponse empty_response(int status);

}  // namespace hookd::api
