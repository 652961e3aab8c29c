/* A whole log file read into memory (helpers/logread.h). */
#include "logread.h"

#include <stdlib.h>

itg_logrec *logread_all(const char *path, size_t *n) {
  itg_logreader *lr;
  itg_logrec *v = NULL;
  size_t cap = 0;
  int rc;
  *n = 0;
  if (itg_logreader_open(path, &lr) != 0)
    return NULL;
  for (;;) {
    if (*n == cap) {
      itg_logrec *more;
      cap = cap ? cap * 2 : 1024;
      more = realloc(v, cap * sizeof *v);
      if (more == NULL) {
        rc = ITG_ENOMEM;
        break;
      }
      v = more;
    }
    rc = itg_logreader_next(lr, &v[*n]);
    if (rc != 1)
      break;
    (*n)++;
  }
  itg_logreader_close(lr);
  if (rc != 0) {
    free(v);
    *n = 0;
    return NULL;
  }
  return v;
}
