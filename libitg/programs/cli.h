/* What the command-line programs share: messages, usage errors, version
 * lines, turning SIGINT / SIGTERM into a call the program chooses, and the
 * run of the daemons (itg-recv, itg-log). Programs use the public API
 * only (itg.h), so that they link against the shared library too. */
#ifndef ITG_PROGRAMS_CLI_H
#define ITG_PROGRAMS_CLI_H

#include <stdio.h>
#include <uv.h>

/* Exit statuses shared by the programs. */
#define ITG__CLI_EXIT_OK 0
#define ITG__CLI_EXIT_FAIL 1
#define ITG__CLI_EXIT_USAGE 2

/* Prints "PROG: MESSAGE" on stderr. */
void itg__cli_error(const char *prog, const char *msg);

/* Prints "PROG: MESSAGE" and the short usage on stderr. Returns
 * ITG__CLI_EXIT_USAGE, for `return itg__cli_bad_usage(...)`. */
int itg__cli_bad_usage(const char *prog, const char *msg, const char *usage);

/* Copies option opt's text value v into the fixed field dst[len]. Returns
 * 0, or (too long: reported with the usage) ITG__CLI_EXIT_USAGE. */
int itg__cli_copy_value(const char *prog, const char *usage, const char *opt,
                        const char *v, char *dst, size_t len);

/* Reads the value v of --cpu, a CPU number (0 to 4095), into *cpu.
 * Returns 0, or (not such a number: reported with the usage)
 * ITG__CLI_EXIT_USAGE. */
int itg__cli_cpu(const char *prog, const char *usage, const char *v,
                 int *cpu);

/* Reads the value v of option opt, a report interval in seconds (0.1 to
 * 3600; 0: no reports), into *ns. Returns 0, or (not such a value:
 * reported with the usage) ITG__CLI_EXIT_USAGE. */
int itg__cli_interval(const char *prog, const char *usage, const char *opt,
                      const char *v, int64_t *ns);

/* Returns 1 when stdout is a terminal (a person watches: progress lines
 * are welcome), 0 for a pipe or a file. */
int itg__cli_stdout_is_terminal(void);

/* Reads a token file (--token-file: a token on the command line would
 * show in ps) into buf[0..cap): the file's bytes, its trailing spaces,
 * tabs, CRs and LFs left out (a file written by echo ends with a newline). Returns 0 with
 * *len set, or prints "PROG: --token-file PATH: REASON" (cannot be read,
 * empty, longer than cap bytes) and returns ITG__CLI_EXIT_USAGE. */
int itg__cli_read_token(const char *prog, const char *path,
                        unsigned char *buf, size_t cap, size_t *len);

/* Prints "PROG (libitg VERSION)" on stdout. */
void itg__cli_print_version(const char *prog);

/* Returns 1 if word is "--help" (or "-h" when short_h is set). */
int itg__cli_is_help(const char *word, int short_h);

/* Answers the words itg-send and itg-recv treat alike: --help (and -h when
 * short_h is set) prints usage and help on stdout, --version the version
 * line. Returns ITG__CLI_EXIT_OK when word was one of them, else -1. */
int itg__cli_info(const char *prog, const char *word, int short_h,
                  const char *usage, const char *help);

/* Fetches the value of option argv[*i] into *out, advancing *i. Returns 0,
 * or prints "PROG: OPTION: missing value" with the usage and returns
 * ITG__CLI_EXIT_USAGE. */
int itg__cli_value(const char *prog, const char *usage, int argc,
                   char **argv, int *i, const char **out);

/* Calls fn(user, signum) on a thread of its own for every SIGINT and
 * SIGTERM the process receives between start and stop. */
typedef struct itg__cli_sigwatch {
  uv_loop_t loop;
  uv_signal_t sigint;
  uv_signal_t sigterm;
  uv_async_t quit;
  uv_thread_t thread;
  void (*fn)(void *user, int signum);
  void *user;
} itg__cli_sigwatch;

/* Starts watching. Returns 0, or -1 if the watch could not be set up
 * (the signals then keep their default action). */
int itg__cli_sigwatch_start(itg__cli_sigwatch *w,
                            void (*fn)(void *user, int signum), void *user);

/* Stops watching and joins the thread. */
void itg__cli_sigwatch_stop(itg__cli_sigwatch *w);

/* A port a daemon bound, for its listening line. */
typedef struct itg__cli_port {
  const char *name; /* "sig", "tcp", "udp" */
  unsigned port;
} itg__cli_port;

#define ITG__CLI_PORTS_MAX 4

/* What a daemon does at each step of itg__cli_daemon_main; server is
 * what create made. */
typedef struct itg__cli_daemon {
  const char *prog;
  /* Returns 0, or an error (reported as "out of memory"). */
  int (*create)(const void *cfg, void **server);
  void (*destroy)(void *server);
  /* Returns 0 once serving, or an error, which start_failed explains in
   * msg[0..len). */
  int (*start)(void *server);
  void (*start_failed)(const void *cfg, int rc, char *msg, size_t len);
  /* Fills ports[0..ITG__CLI_PORTS_MAX) with the ports bound; returns how
   * many. */
  size_t (*ports)(void *server, itg__cli_port *ports);
  /* Stops serving; returns 0 or an error that summary reports. */
  int (*stop)(void *server);
  /* Prints the counters at exit; returns the exit status. */
  int (*summary)(void *server, int stop_rc);
  /* Optional (NULL: the listening line on stdout): announces the ports
   * bound instead. */
  void (*listening)(void *server, const itg__cli_port *ports, size_t n);
  /* Optional (NULL or tick_ns 0: none): called every tick_ns while
   * serving, on the thread that waits for the signal. */
  void (*tick)(void *server);
  int64_t tick_ns;
} itg__cli_daemon;

/* The one run of a daemon, once its options are read: raises the limit on
 * descriptors (one per connection), creates the server, watches for
 * SIGINT and SIGTERM (first, so that a signal during start-up is not
 * lost), starts it, prints "PROG: listening NAME=PORT..." on stdout
 * (flushed, for a script that started it on port 0), waits for a signal,
 * stops it, prints its summary and frees it; ticks in between if asked.
 * Returns the exit status. */
int itg__cli_daemon_main(const itg__cli_daemon *d, const void *cfg);

#endif
