/* The error table's two lookups and the version queries. */
#include "itg/common.h"
#include "itg/version.h"

const char *itg_strerror(int err) {
  switch (err) {
  case ITG_OK:
    return "success";
#define ITG__ERRNO_MSG(name, value, msg)                                       \
  case value:                                                                  \
    return msg;
    ITG_ERRNO_MAP(ITG__ERRNO_MSG)
#undef ITG__ERRNO_MSG
  }
  return "unknown error";
}

const char *itg_err_name(int err) {
  switch (err) {
  case ITG_OK:
    return "OK";
#define ITG__ERRNO_NAME(name, value, msg)                                      \
  case value:                                                                  \
    return #name;
    ITG_ERRNO_MAP(ITG__ERRNO_NAME)
#undef ITG__ERRNO_NAME
  }
  return "UNKNOWN";
}

const char *itg_version_string(void) { return ITG_VERSION_STRING; }

unsigned itg_version_number(void) {
  return ITG_VERSION_MAJOR * 10000u + ITG_VERSION_MINOR * 100u +
         ITG_VERSION_PATCH;
}

unsigned itg_version_hex(void) { return ITG_VERSION_HEX; }
