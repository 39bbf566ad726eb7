# Helpers that keep every folder's CMakeLists.txt short.

# The layering is enforced by include paths (docs/architecture.md, "Folders and dependency
# direction"). A library does not see src/ as a whole: it sees a directory of its own,
# build/layers/<target>/, holding links to its own folder and to the folders of the hookd
# libraries it lists in DEPS (and theirs, transitively). An include against the arrows,
# e.g. `#include "inbound/receiver.hpp"` in src/api, fails with "No such file or directory".
# include/ (hookd/..., the core's public face) is visible to everyone.
# A folder given as "store/sqlite" shows that subfolder only; a folder whose parent is also
# shown ("store") shows the parent's own headers, not its other subfolders.

# build/layers/manifest.txt lists each library with the folders it sees (read by the
# `layering` test, tests/layering/layering_test.sh).
file(REMOVE ${PROJECT_BINARY_DIR}/layers/manifest.txt)

# _hookd_link_folder(LAYER FOLDER): makes src/FOLDER's headers visible under LAYER/FOLDER.
function(_hookd_link_folder layer folder)
  set(source ${PROJECT_SOURCE_DIR}/src/${folder})
  file(GLOB children LIST_DIRECTORIES true ${source}/*)
  set(has_subfolders FALSE)
  foreach(child ${children})
    if(IS_DIRECTORY ${child})
      set(has_subfolders TRUE)
    endif()
  endforeach()
  if(NOT has_subfolders)
    # A leaf folder: one link to the folder, so new headers need no reconfigure.
    get_filename_component(parent ${layer}/${folder} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${source} ${layer}/${folder} SYMBOLIC)
    return()
  endif()
  # A folder with subfolders: link its own headers one by one (subfolders only when listed
  # themselves); CONFIGURE_DEPENDS re-runs cmake when a header is added or removed.
  file(MAKE_DIRECTORY ${layer}/${folder})
  file(GLOB headers CONFIGURE_DEPENDS ${source}/*.hpp ${source}/*.h)
  foreach(header ${headers})
    get_filename_component(leaf ${header} NAME)
    file(CREATE_LINK ${header} ${layer}/${folder}/${leaf} SYMBOLIC)
  endforeach()
endfunction()

# hookd_library(NAME SOURCES ... DEPS ... [FOLDER f]): a static library for one src/ folder
# (FOLDER defaults to NAME without "hookd_": hookd_api -> api).
function(hookd_library name)
  cmake_parse_arguments(ARG "" "FOLDER" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_FOLDER)
    string(REGEX REPLACE "^hookd_" "" ARG_FOLDER ${name})
  endif()
  add_library(${name} STATIC ${ARG_SOURCES})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})

  set(folders ${ARG_FOLDER})
  foreach(dep ${ARG_DEPS})
    if(TARGET ${dep})
      get_target_property(dep_folders ${dep} HOOKD_FOLDERS)
      if(dep_folders)
        list(APPEND folders ${dep_folders})
      endif()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES folders)
  list(SORT folders)
  set_target_properties(${name} PROPERTIES HOOKD_FOLDERS "${folders}")
  list(JOIN folders " " folder_words)
  file(APPEND ${PROJECT_BINARY_DIR}/layers/manifest.txt "${name}: ${folder_words}\n")

  set(layer ${PROJECT_BINARY_DIR}/layers/${name})
  file(REMOVE_RECURSE ${layer})
  foreach(folder ${folders})
    _hookd_link_folder(${layer} ${folder})
  endforeach()
  target_include_directories(${name} PRIVATE ${layer} ${PROJECT_SOURCE_DIR}/include)
endfunction()

# hookd_sees_all(TARGET): tests, benchmarks and the hookd executable may include anything.
function(hookd_sees_all target)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src
    ${PROJECT_SOURCE_DIR}/include)
endfunction()

# hookd_test(NAME SOURCES ... DEPS ... [LABELS ...] [PROPERTIES ...]): a GoogleTest binary
# whose cases are registered with ctest one by one, with extra ctest PROPERTIES if given.
# Label "unit" tests also run in the sanitizer build, which builds only them (target
# hookd_unit_tests, tests/CMakeLists.txt).
# Test code itself is compiled at -O1 in Release: it spends its time in the libraries (-O3),
# and -O3 on GoogleTest-heavy files costs about a third more compile time (CI budget).
function(hookd_test_code target)
  target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-O1>)
endfunction()

function(hookd_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS;PROPERTIES" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  hookd_test_code(${name})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  hookd_sees_all(${name})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} hookd_store_sqlite hookd_store_postgres
    GTest::gtest GTest::gmock GTest::gtest_main)
  gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}" ${ARG_PROPERTIES}
    DISCOVERY_TIMEOUT 60)
  if("unit" IN_LIST ARG_LABELS)
    set_property(GLOBAL APPEND PROPERTY HOOKD_UNIT_TEST_TARGETS ${name})
  endif()
endfunction()
