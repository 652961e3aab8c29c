/* What the fuzz harnesses share: the libFuzzer entry point each defines,
 * a check that aborts (so both libFuzzer and the corpus replay report it)
 * and a scratch file for the readers that take a path. */
#ifndef ITG_FUZZ_H
#define ITG_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property every input must keep: a failure is a finding. */
#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__,     \
              #cond);                                                          \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* Writes data to an in-memory file and returns a path that opens it
 * (valid until the next call); aborts if the system cannot. */
const char *fuzz_file(const uint8_t *data, size_t size);

#endif
