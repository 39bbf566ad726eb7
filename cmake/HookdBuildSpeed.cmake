# Build speed: ccache and unity builds (docs/testing.md, "Build speed").

# ccache as the compiler launcher of every build tree (Release, ASan, TSan), when it is
# installed (scripts/install-deps.sh installs it); without it the build runs the compiler
# directly. HOOKD_CCACHE=OFF turns it off.
#
# Settings, passed through the environment so no user-wide ccache.conf is touched:
# - base_dir = the source tree: the compile lines' absolute paths (every -I, the sources) are
#   hashed relative to it, so a second clone at another path hits the first clone's entries;
# - hash_dir off: the working directory stays out of the hash too (Debug trees' -g would put
#   it in). The cost: a cached object's debug info may name the first clone's directory;
# - max_size: a bounded cache (default 5 GiB) in the user's cache directory (ccache's own
#   default, ~/.cache/ccache, or CCACHE_DIR).
# docs/testing.md ("Build speed") has the figures.
option(HOOKD_CCACHE "Compile through ccache when it is installed" ON)
set(HOOKD_CCACHE_MAXSIZE "5G" CACHE STRING "ccache's size bound")

find_program(HOOKD_CCACHE_PROGRAM ccache)
if(HOOKD_CCACHE AND HOOKD_CCACHE_PROGRAM)
  set(launcher /usr/bin/env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1
    CCACHE_MAXSIZE=${HOOKD_CCACHE_MAXSIZE} ${HOOKD_CCACHE_PROGRAM})
  set(CMAKE_C_COMPILER_LAUNCHER ${launcher})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${launcher})
  message(STATUS "hookd: compiling through ${HOOKD_CCACHE_PROGRAM} (max ${HOOKD_CCACHE_MAXSIZE})")
else()
  message(STATUS "hookd: compiling without ccache")
endif()

# Unity builds: each target's sources are compiled in batches of HOOKD_UNITY_BATCH files, one
# translation unit each, so the heavy headers (Asio/Beast, nlohmann::json, CLI11, GoogleTest)
# are parsed and their inline functions optimised once per batch instead of once per file: the
# cold build of both trees takes about half the CPU time (docs/testing.md, "Build speed").
# Names in a file's anonymous namespace must therefore be unique within its target.
# HOOKD_UNITY_BUILD=OFF compiles file by file (quicker for a one-file change).
option(HOOKD_UNITY_BUILD "Compile each target in batches of files (unity build)" ON)
set(HOOKD_UNITY_BATCH 8 CACHE STRING "Files per unity batch")
if(HOOKD_UNITY_BUILD)
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE ${HOOKD_UNITY_BATCH})
  # GCC sees only the batch file as the main file, so a class in a .cpp that uses a type from
  # that .cpp's anonymous namespace looks like a header's; that warning is wrong here.
  add_compile_options(-Wno-subobject-linkage)
endif()
