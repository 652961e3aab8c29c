/* A hash map from 32-bit flow ids to pointers (open addressing), shared by
 * the statistics and the interval series. */
#ifndef ITG_IDMAP_H
#define ITG_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct itg__idmap_slot {
  uint32_t id;
  void *value; /* NULL: free slot */
} itg__idmap_slot;

typedef struct itg__idmap {
  itg__idmap_slot *slots;
  size_t cap; /* a power of two, or 0 */
  size_t used;
} itg__idmap;

/* Sets up an empty map (no allocation). */
void itg__idmap_init(itg__idmap *m);

/* Frees the table (not the values). */
void itg__idmap_free(itg__idmap *m);

/* Returns the value stored for id, or NULL. */
void *itg__idmap_get(const itg__idmap *m, uint32_t id);

/* Stores value (not NULL) for an id not yet in the map. Returns 0 or
 * ITG_ENOMEM. */
int itg__idmap_put(itg__idmap *m, uint32_t id, void *value);

#endif
