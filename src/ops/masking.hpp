// Masker: hides secrets and personal data in JSON payloads, free text and HTTP headers
// before they reach logs or the console (SPEC §7, A31). Pure, no I/O.
//
// JSON: values at configured JSON pointers are replaced entirely by "***" (any type; a "*"
// token matches any one key or array index, e.g. "/items/*/email"); values under a key that
// looks secret (is_secret_name) become "[REDACTED]"; every other string, and integers that
// look like phone/ID/card numbers, go through the text rules of text_masking.hpp.
// Headers: secret-looking names (authorization, *signature*, *secret*, *token*, cookie, …)
// are redacted entirely; other values go through the text rules.
// Secrets are always redacted; personal-data patterns can be switched off by configuration.
// Thread-safety: immutable after creation; share one Masker between threads.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hookd/result.hpp"
#include "ops/text_masking.hpp"

namespace hookd::ops {

inline constexpr std::string_view kMasked = "***";

struct MaskingConfig {
  std::vector<std::string> json_pointers;  // RFC 6901, plus "*" for any one token
  bool mask_personal_data = true;          // e-mail, phone, ID, card patterns
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;

class Masker {
 public:
  Masker();  // built-in rules only, no pointers
  // Fails with kInvalidArgument naming the bad pointer (must be "" or start with '/').
  static Result<Masker> create(const MaskingConfig& config);

  std::string mask_text(std::string_view text) const;
  nlohmann::json mask_json(const nlohmann::json& document) const;
  void mask_json_in_place(nlohmann::json& document) const;
  // Parses, masks and re-serialises compactly; text that is not JSON is masked as text.
  std::string mask_json_text(std::string_view body) const;
  std::string mask_header_value(std::string_view name, std::string_view value) const;
  HeaderList mask_headers(const HeaderList& headers) const;

 private:
  using Pointer = std::vector<std::string>;
  bool pointer_matches(const std::vector<std::string>& path) const;
  void walk(nlohmann::json& node, std::vector<std::string>& path) const;

  std::vector<Pointer> pointers_;
  bool mask_personal_data_ = true;
};

}  // namespace hookd::ops
