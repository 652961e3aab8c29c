/* libitg version. The Makefile reads these three lines to name the shared
 * library (soname libitg.so.MAJOR) and the pkg-config file. */
#ifndef ITG_VERSION_H
#define ITG_VERSION_H

#define ITG_VERSION_MAJOR 1
#define ITG_VERSION_MINOR 0
#define ITG_VERSION_PATCH 0

/* The version as one number that grows with each release, for #if tests:
 * (MAJOR << 16) | (MINOR << 8) | PATCH; itg_version_hex() gives the
 * library's at run time. */
#define ITG_VERSION_HEX                                                        \
  ((ITG_VERSION_MAJOR << 16) | (ITG_VERSION_MINOR << 8) | ITG_VERSION_PATCH)

#define ITG__STR2(x) #x
#define ITG__STR(x) ITG__STR2(x)
#define ITG_VERSION_STRING                                                     \
  ITG__STR(ITG_VERSION_MAJOR) "." ITG__STR(ITG_VERSION_MINOR) "."              \
  ITG__STR(ITG_VERSION_PATCH)

#endif
