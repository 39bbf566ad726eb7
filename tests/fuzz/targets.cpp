// The list of fuzz targets (see fuzz_target.hpp).
#include "fuzz/fuzz_target.hpp"

namespace hookd::fuzz {

std::vector<FuzzTarget> all_targets() {
  return {retry_after_target(), ids_target(),    encoding_target(), address_target(),
          signing_target(),     config_target(), api_target()};
}

}  // namespace hookd::fuzz
