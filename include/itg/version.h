/* libitg version. The Makefile reads these three lines to name the shared
 * library (soname libitg.so.MAJOR) and the pkg-config file. */
#ifndef ITG_VERSION_H
#define ITG_VERSION_H

#define ITG_VERSION_MAJOR 0
#define ITG_VERSION_MINOR 1
#define ITG_VERSION_PATCH 0

#define ITG__STR2(x) #x
#define ITG__STR(x) ITG__STR2(x)
#define ITG_VERSION_STRING                                                     \
  ITG__STR(ITG_VERSION_MAJOR) "." ITG__STR(ITG_VERSION_MINOR) "."              \
  ITG__STR(ITG_VERSION_PATCH)

#endif
