/* A fresh temporary directory for a test, made and removed the same way on
 * every platform (libuv's file calls, in the system's temporary
 * directory). */
#ifndef ITG_TEST_TMPDIR_H
#define ITG_TEST_TMPDIR_H

#include <stddef.h>

/* Makes a new directory named <tag> plus six random characters in the
 * system's temporary directory (TMPDIR, TEMP, ...) and writes its path to
 * buf (len bytes). Returns 0, or a negative libuv error. */
int tmpdir_make(char *buf, size_t len, const char *tag);

/* Removes the directory dir and the files in it (not subdirectories).
 * Returns 0, or a negative libuv error. */
int tmpdir_remove(const char *dir);

#endif
