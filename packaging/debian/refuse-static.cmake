# CPack runs this before it packages (CPACK_PRE_BUILD_SCRIPTS), when the build linked the
# static archives of sqlite3 and libyaml: a Debian package must use the system's libraries.
message(FATAL_ERROR "zlbench: this build embeds sqlite3 and libyaml (ZL_STATIC_DEPS); "
  "Debian policy wants the system's: configure the package's build with -DZL_STATIC_DEPS=OFF")
