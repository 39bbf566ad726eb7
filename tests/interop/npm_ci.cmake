# Runs `npm ci` in DIR unless node_modules already matches package-lock.json (a stamp file
# newer than the lock), so repeated test runs do not reinstall.
# Prints the Node and npm versions first (useful in CI logs).
# The pinned stripe, cloudevents and @octokit/webhooks-methods declare Node >= 20 in
# "engines" but pass every interop test on Node 18 (docs/testing.md): npm warns (EBADENGINE)
# and --engine-strict=false keeps a user's `engine-strict=true` npmrc from failing on that.
# Usage: cmake -DNODE=<node> -DNPM=<npm> -DDIR=<dir> -P npm_ci.cmake
execute_process(COMMAND ${NODE} --version OUTPUT_VARIABLE node_version
  OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${NPM} --version OUTPUT_VARIABLE npm_version
  OUTPUT_STRIP_TRAILING_WHITESPACE)
message(STATUS "interop: node ${node_version} (${NODE}), npm ${npm_version} (${NPM})")
set(stamp ${DIR}/node_modules/.hookd-npm-ci-stamp)
if(EXISTS ${stamp} AND ${stamp} IS_NEWER_THAN ${DIR}/package-lock.json)
  message(STATUS "npm packages up to date in ${DIR}")
  return()
endif()
execute_process(COMMAND ${NPM} ci --no-audit --no-fund --engine-strict=false
  WORKING_DIRECTORY ${DIR} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "npm ci failed in ${DIR} (status ${status})")
endif()
file(TOUCH ${stamp})
