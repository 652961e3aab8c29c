/* Temporary directories for tests (see tmpdir.h). */
#include "tmpdir.h"

#include <stdio.h>
#include <string.h>
#include <uv.h>

int tmpdir_make(char *buf, size_t len, const char *tag) {
  char base[512], tmpl[600];
  size_t n = sizeof base;
  uv_fs_t req;
  int rc;

  rc = uv_os_tmpdir(base, &n);
  if (rc != 0)
    return rc;
  snprintf(tmpl, sizeof tmpl, "%s/%sXXXXXX", base, tag);
  rc = uv_fs_mkdtemp(NULL, &req, tmpl, NULL);
  if (rc == 0) {
    if (strlen(req.path) < len)
      snprintf(buf, len, "%s", req.path);
    else
      rc = UV_ENAMETOOLONG;
  }
  uv_fs_req_cleanup(&req);
  return rc;
}

int tmpdir_remove(const char *dir) {
  char path[1024];
  uv_fs_t req;
  uv_dirent_t ent;
  int rc;

  rc = uv_fs_scandir(NULL, &req, dir, 0, NULL);
  if (rc < 0) {
    uv_fs_req_cleanup(&req);
    return rc;
  }
  rc = 0;
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    uv_fs_t un;
    int r;
    snprintf(path, sizeof path, "%s/%s", dir, ent.name);
    r = uv_fs_unlink(NULL, &un, path, NULL);
    uv_fs_req_cleanup(&un);
    if (r < 0 && rc == 0)
      rc = r;
  }
  uv_fs_req_cleanup(&req);
  if (rc == 0) {
    rc = uv_fs_rmdir(NULL, &req, dir, NULL);
    uv_fs_req_cleanup(&req);
  }
  return rc;
}
