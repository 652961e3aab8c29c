/* A small file system that fills up: a tmpfs of a given size mounted on a
 * directory (Linux, as root). Tests of what a full disk does use it and
 * skip themselves where it cannot be had. */
#ifndef ITG_TEST_SMALLFS_H
#define ITG_TEST_SMALLFS_H

#include <stddef.h>

/* Mounts a tmpfs of `bytes` on the existing directory dir. Returns 0, or
 * -1 with the reason in why (len bytes) where it cannot: not Linux, not
 * root. */
int smallfs_mount(const char *dir, size_t bytes, char *why, size_t len);

/* Unmounts what smallfs_mount mounted on dir. Returns 0 or -1. */
int smallfs_unmount(const char *dir);

#endif
