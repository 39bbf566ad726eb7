// Helpers for the signing tests: build Signer/Verifier or fail the test, edit headers.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hookd/signing.hpp"

namespace hookd::testing {

inline Signer make_signer(const SchemeOptions& options, std::vector<std::string> secrets) {
  auto signer = Signer::create(options, secrets);
  if (!signer) ADD_FAILURE() << "Signer::create: " << signer.error().message;
  return *std::move(signer);
}

inline Verifier make_verifier(const SchemeOptions& options, std::vector<std::string> secrets) {
  auto verifier = Verifier::create(options, secrets);
  if (!verifier) ADD_FAILURE() << "Verifier::create: " << verifier.error().message;
  return *std::move(verifier);
}

inline SchemeOptions scheme(SchemeKind kind) {
  SchemeOptions options;
  options.kind = kind;
  return options;
}

// The reason verify() failed, or "ok".
inline std::string outcome(const Verifier& verifier, const HttpHeaders& headers,
                           std::string_view body, std::int64_t now) {
  const auto result = verifier.verify(headers, body, now);
  if (result) return "ok";
  return std::string(to_string(result.error().reason));
}

inline void set_header(HttpHeaders& headers, std::string_view name, std::string value) {
  for (HttpHeader& header : headers) {
    if (header.name == name) {
      header.value = std::move(value);
      return;
    }
  }
  headers.push_back({std::string(name), std::move(value)});
}

inline void remove_header(HttpHeaders& headers, std::string_view name) {
  std::erase_if(headers, [&](const HttpHeader& header) { return header.name == name; });
}

inline std::string header_value(const HttpHeaders& headers, std::string_view name) {
  const auto value = find_header(headers, name);
  return value ? std::string(*value) : std::string("<missing>");
}

}  // namespace hookd::testing
