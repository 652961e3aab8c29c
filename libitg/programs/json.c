/* The programs' JSON writer (see json.h). */
#include "programs/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "itg.h"
#include "programs/cli.h"

void itg__json_init(itg__json *j, FILE *out, int pretty) {
  memset(j, 0, sizeof *j);
  j->out = out;
  j->pretty = pretty;
}

static void newline(itg__json *j) {
  if (j->pretty)
    fprintf(j->out, "\n%*s", 2 * j->depth, "");
}

static void put_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", out);
    else if (c == '\t')
      fputs("\\t", out);
    else if (c < 0x20 || c == 0x7f)
      fprintf(out, "\\u%04x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

/* The separator and key before a member. */
static void member(itg__json *j, const char *key) {
  if (j->depth > 0) {
    if (j->any[j->depth])
      fputc(',', j->out);
    j->any[j->depth] = 1;
    newline(j);
  }
  if (key != NULL) {
    put_string(j->out, key);
    fputs(j->pretty ? ": " : ":", j->out);
  }
}

void itg__json_open(itg__json *j, const char *key, char brace) {
  member(j, key);
  fputc(brace, j->out);
  if (j->depth + 1 < ITG__JSON_DEPTH) {
    j->depth++;
    j->close[j->depth] = brace == '{' ? '}' : ']';
    j->any[j->depth] = 0;
  }
}

void itg__json_close(itg__json *j) {
  int had = j->any[j->depth];
  char c = j->close[j->depth];
  j->depth--;
  if (had)
    newline(j);
  fputc(c, j->out);
  if (j->depth == 0) {
    fputc('\n', j->out);
    fflush(j->out);
  }
}

void itg__json_str(itg__json *j, const char *key, const char *v) {
  member(j, key);
  put_string(j->out, v);
}

void itg__json_u64(itg__json *j, const char *key, uint64_t v) {
  member(j, key);
  fprintf(j->out, "%llu", (unsigned long long)v);
}

void itg__json_i64(itg__json *j, const char *key, int64_t v) {
  member(j, key);
  fprintf(j->out, "%lld", (long long)v);
}

void itg__json_num(itg__json *j, const char *key, double v) {
  member(j, key);
  fprintf(j->out, "%.15g", isfinite(v) ? v : 0.0);
}

void itg__json_text(itg__json *j, const char *key, const char *text) {
  int in_str = 0, depth0 = j->depth;
  member(j, key);
  for (const char *p = text; *p != '\0'; p++) {
    char c = *p;
    if (in_str) {
      fputc(c, j->out);
      if (c == '\\' && p[1] != '\0')
        fputc(*++p, j->out);
      else if (c == '"')
        in_str = 0;
      continue;
    }
    switch (c) {
    case '"':
      in_str = 1;
      fputc(c, j->out);
      break;
    case '{':
    case '[':
      fputc(c, j->out);
      j->depth++;
      if (p[1] != '}' && p[1] != ']')
        newline(j);
      break;
    case '}':
    case ']':
      j->depth--;
      if (p[-1] != '{' && p[-1] != '[')
        newline(j);
      fputc(c, j->out);
      break;
    case ',':
      fputc(c, j->out);
      newline(j);
      break;
    case ':':
      fputs(j->pretty ? ": " : ":", j->out);
      break;
    case ' ':
    case '\n':
    case '\t':
    case '\r':
      break;
    default:
      fputc(c, j->out);
    }
  }
  j->depth = depth0;
}

/* Writes the UTC time of `secs` since the epoch as ISO 8601 (the civil
 * calendar from a day count, so that no C library's gmtime is needed). */
static void iso_time(int64_t secs, char *buf, size_t len) {
  int64_t days = secs / 86400, rem = secs % 86400;
  int64_t z, era, doe, yoe, y, doy, mp, d, m;
  if (rem < 0) {
    rem += 86400;
    days--;
  }
  z = days + 719468;
  era = (z >= 0 ? z : z - 146096) / 146097;
  doe = z - era * 146097;
  yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = yoe + era * 400;
  doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  snprintf(buf, len, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
           (long long)(y + (m <= 2)), (long long)m, (long long)d,
           (long long)(rem / 3600), (long long)(rem / 60 % 60),
           (long long)(rem % 60));
}

void itg__json_start(itg__json *j, const char *prog, int argc, char **argv) {
  char host[256], iso[40];
  size_t hlen = sizeof host;
  int64_t now = itg_clock_real_ns();
  if (uv_os_gethostname(host, &hlen) != 0)
    host[0] = '\0';
  iso_time(now / 1000000000, iso, sizeof iso);
  itg__json_str(j, "program", prog);
  itg__json_str(j, "version", itg_version_string());
  itg__json_str(j, "host", host);
  itg__json_str(j, "time", iso);
  itg__json_num(j, "timestamp", (double)now / 1e9);
  itg__json_open(j, "command", '[');
  for (int i = 0; i < argc; i++)
    itg__json_str(j, NULL, argv[i]);
  itg__json_close(j);
}

void itg__json_run_init(itg__json_run *r, int mode) {
  memset(r, 0, sizeof *r);
  r->mode = mode;
}

/* Begins event `event` up to its value, whose key it returns: "data" in
 * a stream, the event's own name in a document (NULL for an interval, an
 * item of "intervals"). */
static const char *event_key(itg__json_run *r, const char *event) {
  itg__json *j = &r->j;
  if (r->mode == ITG__JSON_STREAM) {
    itg__json_init(j, stdout, 0);
    itg__json_open(j, NULL, '{');
    itg__json_str(j, "event", event);
    return "data";
  }
  if (!r->begun) {
    itg__json_init(j, stdout, 1);
    itg__json_open(j, NULL, '{');
    r->begun = 1;
  }
  if (strcmp(event, "interval") == 0) {
    if (!r->in_intervals) {
      itg__json_open(j, "intervals", '[');
      r->in_intervals = 1;
    }
    return NULL;
  }
  if (strcmp(event, "end") == 0 && !r->in_intervals) {
    /* A document has its intervals even when none were asked for. */
    itg__json_open(j, "intervals", '[');
    r->in_intervals = 1;
  }
  if (r->in_intervals && strcmp(event, "end") == 0) {
    itg__json_close(j);
    r->in_intervals = 0;
  }
  return event;
}

itg__json *itg__json_event(itg__json_run *r, const char *event) {
  itg__json_open(&r->j, event_key(r, event), '{');
  return &r->j;
}

void itg__json_event_end(itg__json_run *r) {
  itg__json_close(&r->j);
  if (r->mode == ITG__JSON_STREAM)
    itg__json_close(&r->j);
  else
    fflush(r->j.out);
}

void itg__json_event_text(itg__json_run *r, const char *event,
                          const char *text) {
  itg__json_text(&r->j, event_key(r, event), text);
  if (r->mode == ITG__JSON_STREAM)
    itg__json_close(&r->j);
}

void itg__json_run_error(itg__json_run *r, const char *msg) {
  itg__json j;
  if (r->mode == ITG__JSON_STREAM) {
    itg__json_init(&j, stdout, 0);
    itg__json_open(&j, NULL, '{');
    itg__json_str(&j, "event", "error");
    itg__json_str(&j, "data", msg);
    itg__json_close(&j);
    return;
  }
  if (r->mode != ITG__JSON_DOC)
    return;
  if (r->nerrors < ITG__JSON_ERRORS &&
      (r->errors[r->nerrors] = strdup(msg)) != NULL)
    r->nerrors++;
  else
    r->errors_more++;
}

void itg__json_run_say(itg__json_run *r, const char *prog, const char *msg) {
  itg__cli_error(prog, msg);
  itg__json_run_error(r, msg);
}

void itg__json_run_finish(itg__json_run *r) {
  itg__json *j = &r->j;
  if (r->mode == ITG__JSON_DOC && r->begun) {
    if (r->nerrors > 0)
      itg__json_str(j, "error", r->errors[0]);
    itg__json_open(j, "errors", '[');
    for (unsigned i = 0; i < r->nerrors; i++)
      itg__json_str(j, NULL, r->errors[i]);
    itg__json_close(j);
    if (r->errors_more > 0)
      itg__json_u64(j, "errors_omitted", r->errors_more);
    itg__json_close(j);
    r->begun = 0;
  }
  for (unsigned i = 0; i < r->nerrors; i++)
    free(r->errors[i]);
  r->nerrors = 0;
}
