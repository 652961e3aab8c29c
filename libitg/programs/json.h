/* The JSON the programs write for --json and --json-stream: a writer that
 * puts members out as they come (a run's intervals go out as they are
 * taken, never held), pretty-printed (two spaces an indent) or on one
 * line, and the "start" object every program's document begins with. */
#ifndef ITG_PROGRAMS_JSON_H
#define ITG_PROGRAMS_JSON_H

#include <stdint.h>
#include <stdio.h>

#define ITG__JSON_DEPTH 16

typedef struct itg__json {
  FILE *out;
  int pretty;
  int depth;
  char close[ITG__JSON_DEPTH]; /* '}' or ']' of each open level */
  int any[ITG__JSON_DEPTH];    /* a member was written at that level */
} itg__json;

/* Sets up a writer of one value (a document, or one line of a stream). */
void itg__json_init(itg__json *j, FILE *out, int pretty);

/* Opens an object ('{') or an array ('['); key names it inside an object,
 * NULL inside an array or at the top. */
void itg__json_open(itg__json *j, const char *key, char brace);

/* Closes the innermost open object or array; at the top, ends the value
 * with a newline and flushes. */
void itg__json_close(itg__json *j);

/* Members: a string (escaped), an integer, a number (NaN and infinities
 * written as 0, which JSON cannot hold). */
void itg__json_str(itg__json *j, const char *key, const char *v);
void itg__json_u64(itg__json *j, const char *key, uint64_t v);
void itg__json_i64(itg__json *j, const char *key, int64_t v);
void itg__json_num(itg__json *j, const char *key, double v);

/* A member whose value is the JSON text `text` (e.g. itg_stats_json's
 * report), re-indented to the writer's form. */
void itg__json_text(itg__json *j, const char *key, const char *text);

/* Writes the members every "start" has, into the object open now:
 * program, version, host, time (UTC, ISO 8601), timestamp (seconds since
 * the epoch) and command (the arguments). */
void itg__json_start(itg__json *j, const char *prog, int argc, char **argv);

/* A run's events in the form asked for: ITG__JSON_DOC, one pretty document
 * {"start", "intervals", "end", "error", "errors"} on stdout, written as
 * the run goes; ITG__JSON_STREAM, a line a event on stdout,
 * {"event": "start"|"interval"|"error"|"end", "data": ...}. */
enum { ITG__JSON_OFF, ITG__JSON_DOC, ITG__JSON_STREAM };

#define ITG__JSON_ERRORS 32 /* errors a document keeps; more are counted */

typedef struct itg__json_run {
  itg__json j;
  int mode;
  int begun;        /* DOC: the document is open */
  int in_intervals; /* DOC: "intervals" is open */
  char *errors[ITG__JSON_ERRORS];
  unsigned nerrors, errors_more;
} itg__json_run;

/* Sets up a run's events (mode ITG__JSON_OFF: none are written). */
void itg__json_run_init(itg__json_run *r, int mode);

/* Opens the object of event "start", "interval" or "end" (returned, for
 * its members), which itg__json_event_end closes. Events go in that order:
 * one start, intervals, one end. */
itg__json *itg__json_event(itg__json_run *r, const char *event);
void itg__json_event_end(itg__json_run *r);

/* An event whose object is the JSON text `text`, whole. */
void itg__json_event_text(itg__json_run *r, const char *event,
                          const char *text);

/* An error of the run: a line of its own in a stream, kept for "errors"
 * in a document. */
void itg__json_run_error(itg__json_run *r, const char *msg);

/* An error of the run said both ways: "PROG: msg" on stderr
 * (itg__cli_error) and itg__json_run_error. */
void itg__json_run_say(itg__json_run *r, const char *prog, const char *msg);

/* Ends a document begun (after the end event): "error" (the first),
 * "errors", and the closing brace; frees what the run holds. A run that
 * wrote nothing writes nothing (a failure before the start: stderr says
 * it). Called again, does nothing. */
void itg__json_run_finish(itg__json_run *r);

#endif
