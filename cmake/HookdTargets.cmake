# Helpers that keep every folder's CMakeLists.txt short.

# hookd_library(NAME SOURCES ... DEPS ...): a static library for one src/ folder.
function(hookd_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# hookd_test(NAME SOURCES ... DEPS ... [LABELS ...] [PROPERTIES ...]): a GoogleTest binary
# whose cases are registered with ctest one by one, with extra ctest PROPERTIES if given.
# Label "unit" tests also run in the sanitizer build.
function(hookd_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS;PROPERTIES" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}" ${ARG_PROPERTIES}
    DISCOVERY_TIMEOUT 60)
endfunction()
