/* Script lines of flow options: words split at white space, comments and
 * double quotes, then applied as options. */
#include "core/flow_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int itg_flow_parse_line(itg_flow_cfg *cfg, const char *line, char *err,
                        size_t errlen) {
  const char *p = line;
  const char **words;
  char *buf, *out;
  size_t len;
  int n = 0, rc;
  errlen = itg__err_begin(err, errlen);
  if (cfg == NULL || line == NULL) {
    itg__err_set(err, errlen, "invalid arguments");
    return ITG_EINVAL;
  }
  len = strlen(line);
  if (len > (size_t)INT32_MAX) {
    itg__err_set(err, errlen, "line too long");
    return ITG_EINVAL;
  }
  /* Each word takes at least one character and a separator, so a line of
   * len characters holds at most (len + 1) / 2 words, and their text with
   * terminators at most len + 1 bytes. */
  buf = malloc(len + 1);
  if (buf == NULL)
    goto out_nomem;
  words = malloc(((len + 1) / 2 + 1) * sizeof *words);
  if (words == NULL)
    goto out_free_buf;
  out = buf;
  for (;;) {
    while (*p != '\0' && isspace((unsigned char)*p))
      p++;
    if (*p == '\0' || *p == '#')
      break;
    words[n++] = out;
    while (*p != '\0' && !isspace((unsigned char)*p) && *p != '#') {
      if (*p != '"') {
        *out++ = *p++;
        continue;
      }
      p++;
      while (*p != '\0' && *p != '"')
        *out++ = *p++;
      if (*p == '\0') {
        itg__err_set(err, errlen, "unterminated quote in word %d", n);
        rc = ITG_EINVAL;
        goto out_free_words;
      }
      p++;
    }
    *out++ = '\0';
  }
  rc = n == 0 ? 0 : itg_flow_parse_args(cfg, n, words, err, errlen);
  if (rc == 0)
    rc = n;
out_free_words:
  free(words);
  free(buf);
  return rc;
out_free_buf:
  free(buf);
out_nomem:
  itg__err_set(err, errlen, "out of memory");
  return ITG_ENOMEM;
}
