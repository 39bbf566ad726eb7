# Runs `npm ci` in DIR unless node_modules already matches package-lock.json (a stamp file
# newer than the lock), so repeated test runs do not reinstall.
# Usage: cmake -DNPM=<npm> -DDIR=<dir> -P npm_ci.cmake
set(stamp ${DIR}/node_modules/.hookd-npm-ci-stamp)
if(EXISTS ${stamp} AND ${stamp} IS_NEWER_THAN ${DIR}/package-lock.json)
  message(STATUS "npm packages up to date in ${DIR}")
  return()
endif()
execute_process(COMMAND ${NPM} ci --no-audit --no-fund
  WORKING_DIRECTORY ${DIR} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "npm ci failed in ${DIR} (status ${status})")
endif()
file(TOUCH ${stamp})
