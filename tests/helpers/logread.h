/* A whole log file read into memory, for the tests that check what a
 * sender or receiver logged. */
#ifndef ITG_TEST_LOGREAD_H
#define ITG_TEST_LOGREAD_H

#include <stddef.h>

#include "itg/log.h"

/* Reads every record of the log file at path into a malloc'd array (the
 * caller frees it) and sets *n to their count. Returns NULL, *n 0, if the
 * file cannot be opened or read to its end, or memory runs out. */
itg_logrec *logread_all(const char *path, size_t *n);

#endif
