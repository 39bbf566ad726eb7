# `make install` / `cmake --install build [--prefix P]` (DESTDIR staging): the daemon, its
# systemd unit, man page and configs, and the C++ library under include/hookd (libhookd.a +
# hookd.pc), so an application can sign and verify webhooks without the daemon
# (examples/verify). Every path follows the prefix given at install time. Tested by
# tests/install/install_test.sh (ctest install_smoke). docs/operations.md, "Install as a
# service".

# The unit's TimeoutStopSec is the shutdown grace plus 15 s: systemd must not SIGKILL hookd
# while it finishes or releases in-flight work within its grace.
set(HOOKD_SHUTDOWN_GRACE_SECONDS 30 CACHE STRING "server.shutdown_grace set by the systemd unit")
math(EXPR HOOKD_TIMEOUT_STOP_SECONDS "${HOOKD_SHUTDOWN_GRACE_SECONDS} + 15")

install(TARGETS hookd RUNTIME DESTINATION bin)
# The library is hookd_core (pure: signing, retry policy, ids; OpenSSL only) under its
# public name.
install(FILES $<TARGET_FILE:hookd_core> DESTINATION lib RENAME libhookd.a)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/hookd DESTINATION include)
install(FILES ${PROJECT_SOURCE_DIR}/examples/hookd.toml DESTINATION share/doc/hookd/examples)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/sources ${PROJECT_SOURCE_DIR}/examples/verify
  DESTINATION share/doc/hookd/examples)

# What depends on the install-time prefix: the unit's and hookd.pc's paths, the configuration
# (installed once: an upgrade never overwrites a file an operator edited) and hookd(1),
# written from the binary's own --help. The configuration directory is /etc for the prefix
# /usr, else PREFIX/etc (as GNU's conventions).
install(CODE "
  set(HOOKD_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(HOOKD_BINDIR \"\${HOOKD_PREFIX}/bin\")
  set(HOOKD_PC_LIBDIR \"\${HOOKD_PREFIX}/lib\")
  set(HOOKD_PC_INCLUDEDIR \"\${HOOKD_PREFIX}/include\")
  if(HOOKD_PREFIX STREQUAL \"/usr\")
    set(HOOKD_SYSCONFDIR \"/etc\")
  else()
    set(HOOKD_SYSCONFDIR \"\${HOOKD_PREFIX}/etc\")
  endif()
  set(HOOKD_SHUTDOWN_GRACE_SECONDS ${HOOKD_SHUTDOWN_GRACE_SECONDS})
  set(HOOKD_TIMEOUT_STOP_SECONDS ${HOOKD_TIMEOUT_STOP_SECONDS})
  set(PROJECT_VERSION ${PROJECT_VERSION})
  set(staged \"${PROJECT_BINARY_DIR}/deploy\")
  configure_file(\"${PROJECT_SOURCE_DIR}/deploy/hookd.service.in\" \"\${staged}/hookd.service\" @ONLY)
  configure_file(\"${PROJECT_SOURCE_DIR}/deploy/hookd.pc.in\" \"\${staged}/hookd.pc\" @ONLY)
  file(INSTALL \"\${staged}/hookd.service\" DESTINATION \"\${HOOKD_PREFIX}/lib/systemd/system\")
  file(INSTALL \"\${staged}/hookd.pc\" DESTINATION \"\${HOOKD_PREFIX}/lib/pkgconfig\")

  if(EXISTS \"\$ENV{DESTDIR}\${HOOKD_SYSCONFDIR}/hookd/hookd.toml\")
    message(STATUS \"Kept (not overwritten): \$ENV{DESTDIR}\${HOOKD_SYSCONFDIR}/hookd/hookd.toml\")
  else()
    file(INSTALL \"${PROJECT_SOURCE_DIR}/deploy/hookd.toml\" DESTINATION \"\${HOOKD_SYSCONFDIR}/hookd\")
  endif()

  execute_process(COMMAND bash \"${PROJECT_SOURCE_DIR}/deploy/make-man.sh\" \"$<TARGET_FILE:hookd>\"
      \"\${staged}/hookd.1\" \"${PROJECT_VERSION}\" RESULT_VARIABLE man_result)
  if(NOT man_result EQUAL 0)
    message(FATAL_ERROR \"writing hookd.1 failed\")
  endif()
  file(INSTALL \"\${staged}/hookd.1\" DESTINATION \"\${HOOKD_PREFIX}/share/man/man1\")
")
