/* Shared program helpers (see cli.h). */
#include "programs/cli.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "itg.h"

void itg__cli_error(const char *prog, const char *msg) {
  fprintf(stderr, "%s: %s\n", prog, msg);
}

int itg__cli_bad_usage(const char *prog, const char *msg, const char *usage) {
  itg__cli_error(prog, msg);
  fputs(usage, stderr);
  return ITG__CLI_EXIT_USAGE;
}

int itg__cli_copy_value(const char *prog, const char *usage, const char *opt,
                        const char *v, char *dst, size_t len) {
  char msg[128];
  if (strlen(v) >= len) {
    snprintf(msg, sizeof msg, "%s: value too long", opt);
    return itg__cli_bad_usage(prog, msg, usage);
  }
  strcpy(dst, v);
  return 0;
}

int itg__cli_cpu(const char *prog, const char *usage, const char *v,
                 int *cpu) {
  char msg[128];
  int64_t n;
  if (itg_parse_i64(v, 0, 4095, &n) != 0) {
    snprintf(msg, sizeof msg, "--cpu: '%.64s' is not a CPU number", v);
    return itg__cli_bad_usage(prog, msg, usage);
  }
  *cpu = (int)n;
  return 0;
}

int itg__cli_interval(const char *prog, const char *usage, const char *opt,
                      const char *v, int64_t *ns) {
  char msg[160];
  double secs;
  if (itg_parse_double(v, &secs) != 0 || !(secs == 0 || (secs >= 0.1 &&
                                                         secs <= 3600))) {
    snprintf(msg, sizeof msg, "%s: '%.64s' is not a report interval in "
             "seconds (0.1 to 3600, or 0 for none)", opt, v);
    return itg__cli_bad_usage(prog, msg, usage);
  }
  *ns = (int64_t)(secs * 1e9 + 0.5);
  return 0;
}

int itg__cli_stdout_is_terminal(void) {
  return uv_guess_handle(1) == UV_TTY;
}

/* The white space a token file may end with. */
static int blank(int c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int itg__cli_read_token(const char *prog, const char *path,
                        unsigned char *buf, size_t cap, size_t *len) {
  char msg[700];
  const char *why = NULL;
  FILE *f = fopen(path, "rb");
  size_t n = 0;
  if (f == NULL) {
    why = strerror(errno);
  } else {
    int c;
    n = fread(buf, 1, cap, f);
    /* What the buffer did not take may only be the trailing white space. */
    while (n == cap && (c = fgetc(f)) != EOF && why == NULL)
      if (!blank(c))
        why = "longer than a token may be";
    if (ferror(f))
      why = "cannot be read";
    fclose(f);
  }
  while (why == NULL && n > 0 && blank(buf[n - 1]))
    n--;
  if (why == NULL && n == 0)
    why = "empty";
  if (why != NULL) {
    snprintf(msg, sizeof msg, "--token-file %.512s: %s", path, why);
    itg__cli_error(prog, msg);
    return ITG__CLI_EXIT_USAGE;
  }
  *len = n;
  return 0;
}

void itg__cli_print_version(const char *prog) {
  printf("%s (libitg %s)\n", prog, itg_version_string());
}

int itg__cli_is_help(const char *word, int short_h) {
  return strcmp(word, "--help") == 0 || (short_h && strcmp(word, "-h") == 0);
}

int itg__cli_info(const char *prog, const char *word, int short_h,
                  const char *usage, const char *help) {
  if (itg__cli_is_help(word, short_h)) {
    fputs(usage, stdout);
    fputs(help, stdout);
    return ITG__CLI_EXIT_OK;
  }
  if (strcmp(word, "--version") == 0) {
    itg__cli_print_version(prog);
    return ITG__CLI_EXIT_OK;
  }
  return -1;
}

int itg__cli_value(const char *prog, const char *usage, int argc,
                   char **argv, int *i, const char **out) {
  char msg[128];
  if (*i + 1 >= argc) {
    snprintf(msg, sizeof msg, "%.64s: missing value", argv[*i]);
    return itg__cli_bad_usage(prog, msg, usage);
  }
  *out = argv[++*i];
  return 0;
}

static void on_signal(uv_signal_t *h, int signum) {
  itg__cli_sigwatch *w = h->data;
  w->fn(w->user, signum);
}

/* Closing the handles lets the watch loop, and so its thread, end. */
static void on_quit(uv_async_t *a) {
  itg__cli_sigwatch *w = a->data;
  uv_close((uv_handle_t *)&w->sigint, NULL);
  uv_close((uv_handle_t *)&w->sigterm, NULL);
  uv_close((uv_handle_t *)&w->quit, NULL);
}

static void watch_main(void *arg) {
  itg__cli_sigwatch *w = arg;
  uv_run(&w->loop, UV_RUN_DEFAULT);
}

int itg__cli_sigwatch_start(itg__cli_sigwatch *w,
                            void (*fn)(void *user, int signum), void *user) {
  memset(w, 0, sizeof *w);
  w->fn = fn;
  w->user = user;
  if (uv_loop_init(&w->loop) != 0)
    return -1;
  uv_signal_init(&w->loop, &w->sigint);
  uv_signal_init(&w->loop, &w->sigterm);
  uv_async_init(&w->loop, &w->quit, on_quit);
  w->sigint.data = w->sigterm.data = w->quit.data = w;
  if (uv_signal_start(&w->sigint, on_signal, SIGINT) != 0 ||
      uv_signal_start(&w->sigterm, on_signal, SIGTERM) != 0 ||
      uv_thread_create(&w->thread, watch_main, w) != 0) {
    on_quit(&w->quit);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    uv_loop_close(&w->loop);
    return -1;
  }
  return 0;
}

void itg__cli_sigwatch_stop(itg__cli_sigwatch *w) {
  uv_async_send(&w->quit);
  uv_thread_join(&w->thread);
  uv_loop_close(&w->loop);
}

/* A signal asked the daemon to stop. */
typedef struct quit_flag {
  uv_mutex_t lock;
  uv_cond_t cond;
  int set;
} quit_flag;

static void post_quit(void *user, int signum) {
  quit_flag *q = user;
  (void)signum;
  uv_mutex_lock(&q->lock);
  q->set = 1;
  uv_cond_signal(&q->cond);
  uv_mutex_unlock(&q->lock);
}

/* Waits for the signal, calling d->tick every d->tick_ns meanwhile (on
 * instants a whole number of ticks from the first, so reports do not
 * drift). */
static void wait_quit(const itg__cli_daemon *d, void *server, quit_flag *q) {
  int ticking = d->tick != NULL && d->tick_ns > 0;
  uint64_t next = uv_hrtime() + (uint64_t)d->tick_ns;
  uv_mutex_lock(&q->lock);
  while (!q->set) {
    uint64_t now = uv_hrtime();
    if (!ticking) {
      uv_cond_wait(&q->cond, &q->lock);
    } else if (now < next) {
      (void)uv_cond_timedwait(&q->cond, &q->lock, next - now);
    } else {
      uv_mutex_unlock(&q->lock);
      d->tick(server);
      uv_mutex_lock(&q->lock);
      while (next <= now)
        next += (uint64_t)d->tick_ns;
    }
  }
  uv_mutex_unlock(&q->lock);
}

/* Tells the ports the daemon bound: the line a script waits for, or the
 * daemon's own announcement. */
static void print_listening(const itg__cli_daemon *d, void *server) {
  itg__cli_port ports[ITG__CLI_PORTS_MAX];
  size_t n = d->ports(server, ports);
  if (d->listening != NULL) {
    d->listening(server, ports, n);
    return;
  }
  printf("%s: listening", d->prog);
  for (size_t i = 0; i < n; i++)
    printf(" %s=%u", ports[i].name, ports[i].port);
  printf("\n");
  fflush(stdout);
}

/* Starts the server, waits for a signal and stops it. Returns the exit
 * status. */
static int serve(const itg__cli_daemon *d, const void *cfg, void *server) {
  itg__cli_sigwatch w;
  quit_flag quit;
  char msg[256];
  int rc;
  quit.set = 0;
  if (uv_mutex_init(&quit.lock) != 0) {
    itg__cli_error(d->prog, "out of memory");
    return ITG__CLI_EXIT_FAIL;
  }
  if (uv_cond_init(&quit.cond) != 0) {
    itg__cli_error(d->prog, "out of memory");
    rc = ITG__CLI_EXIT_FAIL;
    goto out_destroy_lock;
  }
  if (itg__cli_sigwatch_start(&w, post_quit, &quit) != 0) {
    itg__cli_error(d->prog, "cannot watch for signals");
    rc = ITG__CLI_EXIT_FAIL;
    goto out_destroy_cond;
  }
  rc = d->start(server);
  if (rc < 0) {
    d->start_failed(cfg, rc, msg, sizeof msg);
    itg__cli_error(d->prog, msg);
    itg__cli_sigwatch_stop(&w);
    rc = ITG__CLI_EXIT_FAIL;
    goto out_destroy_cond;
  }
  print_listening(d, server);
  wait_quit(d, server, &quit);
  rc = d->stop(server);
  itg__cli_sigwatch_stop(&w);
  rc = d->summary(server, rc);
out_destroy_cond:
  uv_cond_destroy(&quit.cond);
out_destroy_lock:
  uv_mutex_destroy(&quit.lock);
  return rc;
}

int itg__cli_daemon_main(const itg__cli_daemon *d, const void *cfg) {
  void *server;
  int status;
  itg_fd_limit_raise();
  if (d->create(cfg, &server) != 0) {
    itg__cli_error(d->prog, "out of memory");
    return ITG__CLI_EXIT_FAIL;
  }
  status = serve(d, cfg, server);
  d->destroy(server);
  return status;
}
