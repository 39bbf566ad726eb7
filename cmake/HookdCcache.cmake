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
