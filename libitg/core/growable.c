/* Growable public structs: one size check and one copy each way, shared by
 * every entry point that takes or fills such a struct. */
#include "core/growable.h"

#include <stdio.h>
#include <string.h>

#include "itg/common.h"

int itg__struct_size_ok(size_t size, size_t full) {
  return size >= sizeof(size_t) && size <= full;
}

int itg__struct_in(void *dst, size_t full, const void *src, const char *type,
                   char *err, size_t errlen) {
  size_t size;

  if (src == NULL) {
    if (err != NULL && errlen > 0)
      snprintf(err, errlen, "no %s", type);
    return ITG_EINVAL;
  }
  memcpy(&size, src, sizeof size);
  if (!itg__struct_size_ok(size, full)) {
    if (err != NULL && errlen > 0)
      snprintf(err, errlen,
               "%s: size %zu is not one this library knows (%zu to %zu): "
               "fill it with %s_init",
               type, size, sizeof(size_t), full, type);
    return ITG_EINVAL;
  }
  memcpy(dst, src, size);
  memcpy(dst, &full, sizeof full);
  return 0;
}

int itg__struct_out(void *dst, size_t size, const void *src, size_t full) {
  if (dst == NULL || !itg__struct_size_ok(size, full))
    return ITG_EINVAL;
  memcpy(dst, src, size);
  memcpy(dst, &size, sizeof size);
  return 0;
}
