/* Flow-id hash map (see idmap.h). */
#include "core/idmap.h"

#include <stdlib.h>
#include <string.h>

#include "itg/common.h"

/* Spreads consecutive ids over the table (a multiplicative hash). */
static size_t slot_of(uint32_t id, size_t cap) {
  return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15u) >> 32) & (cap - 1);
}

void itg__idmap_init(itg__idmap *m) {
  m->slots = NULL;
  m->cap = 0;
  m->used = 0;
}

void itg__idmap_free(itg__idmap *m) {
  free(m->slots);
  itg__idmap_init(m);
}

void *itg__idmap_get(const itg__idmap *m, uint32_t id) {
  if (m->cap == 0)
    return NULL;
  for (size_t i = slot_of(id, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (m->slots[i].value == NULL)
      return NULL;
    if (m->slots[i].id == id)
      return m->slots[i].value;
  }
}

/* Places an entry in a table known to have room and not to hold id. */
static void place(itg__idmap_slot *slots, size_t cap, uint32_t id,
                  void *value) {
  size_t i = slot_of(id, cap);
  while (slots[i].value != NULL)
    i = (i + 1) & (cap - 1);
  slots[i].id = id;
  slots[i].value = value;
}

int itg__idmap_put(itg__idmap *m, uint32_t id, void *value) {
  if ((m->used + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    itg__idmap_slot *slots = calloc(cap, sizeof *slots);
    if (slots == NULL)
      return ITG_ENOMEM;
    for (size_t i = 0; i < m->cap; i++)
      if (m->slots[i].value != NULL)
        place(slots, cap, m->slots[i].id, m->slots[i].value);
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
  }
  place(m->slots, m->cap, id, value);
  m->used++;
  return 0;
}

void *itg__idmap_put_new(itg__idmap *m, uint32_t id, size_t size) {
  void *value = calloc(1, size);
  if (value != NULL && itg__idmap_put(m, id, value) != 0) {
    free(value);
    value = NULL;
  }
  return value;
}

void itg__id_insert(void *base, size_t *n, size_t size, const void *item,
                    uint32_t (*id_of)(const void *elem)) {
  unsigned char *b = base;
  uint32_t id = id_of(item);
  size_t lo = 0, hi = *n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (id_of(b + mid * size) < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  memmove(b + (lo + 1) * size, b + lo * size, (*n - lo) * size);
  memcpy(b + lo * size, item, size);
  (*n)++;
}
