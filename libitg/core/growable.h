/* The growable public structs (include/itg/common.h): the checks and
 * copies between a caller's layout, of the size its first member gives,
 * and the library's own. */
#ifndef ITG_CORE_GROWABLE_H
#define ITG_CORE_GROWABLE_H

#include <stddef.h>

/* Returns 1 when `size` is one a caller's layout of a struct whose
 * library layout is `full` bytes may have: from sizeof(size_t) (the
 * struct_size member alone) to `full`. */
int itg__struct_size_ok(size_t size, size_t full);

/* Copies the caller's struct src (its size in its first member,
 * struct_size) over *dst, the library's layout of `full` bytes already
 * holding the defaults, so that the fields the caller's layout lacks keep
 * them; dst's struct_size becomes `full`. Returns 0, or ITG_EINVAL (src
 * NULL, or its size below sizeof(size_t) or above `full`) with a message
 * naming `type` in err (if not NULL; always terminated when errlen > 0),
 * dst untouched. */
int itg__struct_in(void *dst, size_t full, const void *src, const char *type,
                   char *err, size_t errlen);

/* Writes the first `size` bytes of the library's struct src (`full`
 * bytes) into the caller's dst and sets dst's struct_size to `size`.
 * Returns 0, or ITG_EINVAL (dst NULL, or size below sizeof(size_t) or
 * above `full`), dst untouched. */
int itg__struct_out(void *dst, size_t size, const void *src, size_t full);

/* Takes the caller's configuration src of struct `type` into *dst: the
 * defaults of type##_init, then what the caller's layout holds. */
#define ITG__CFG_IN(dst, src, type, err, errlen)                               \
  (type##_init(dst), itg__struct_in((dst), sizeof *(dst), (src), #type, (err), \
                                    (errlen)))

#endif
