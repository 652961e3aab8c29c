/* A hash map from 32-bit flow ids to pointers (open addressing), and the
 * insertion into an array kept in id order, shared by the statistics and
 * the interval series. */
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

/* Stores a new zeroed object of size bytes for an id not yet in the map.
 * Returns the object (the caller frees it), or NULL when out of memory. */
void *itg__idmap_put_new(itg__idmap *m, uint32_t id, size_t size);

/* Inserts a copy of *item (size bytes) into base[0..*n), an array kept in
 * ascending order of the id that id_of reads from an element and with room
 * for one more; increments *n. */
void itg__id_insert(void *base, size_t *n, size_t size, const void *item,
                    uint32_t (*id_of)(const void *elem));

#endif
