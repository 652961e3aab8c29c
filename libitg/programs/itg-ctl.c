/* itg-ctl: runs an experiment file over agents (itg-agent, itg-send
 * --daemon) on other machines: connects to each with the shared token,
 * measures its clock, gives it the flows it sends with their receivers'
 * addresses, starts all of them at one instant, follows them, and prints
 * how each ended, with the QoS report of the receivers' logs it fetched. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "itg.h"
#include "programs/cli.h"
#include "programs/report.h"
#include "programs/run_report.h"

#define PROG "itg-ctl"
#define AGENTS_FILE_MAX (1 << 20)
#define SECOND_NS INT64_C(1000000000)

static const char usage_text[] =
    "usage: itg-ctl --token-file FILE (--agent NAME=HOST[:PORT] ... | "
    "--agents FILE)\n"
    "               [options] EXPERIMENT\n";

static const char help_text[] =
    "\n"
    "Runs the flows of an experiment file (itg-send's script lines, with\n"
    "'@' placements: see README, \"Experiment files\") on agents (itg-agent,\n"
    "itg-send --daemon): the agents, in the order given, are the job's\n"
    "places 0, 1, ... and their names its host names, so -a @NAME and -a @N\n"
    "both name an agent's receiver. Every flow leaves at one instant, each\n"
    "agent's clock measured; the report tells how each flow ended.\n"
    "\n"
    "  --agent NAME=HOST[:PORT]  an agent (port default 9003); repeatable\n"
    "  --agents FILE          agents, one NAME=HOST[:PORT] a line ('#'\n"
    "                         comments)\n"
    "  --token-file FILE      the agents' shared token (the file's bytes,\n"
    "                         trailing white space left out)\n"
    "  -L, --logs DIR         fetch each flow's receiver log into\n"
    "                         DIR/flow-N.itglog (made if missing; the\n"
    "                         flow's -x names it run-T-flow-N.itglog at its\n"
    "                         agent, T new for each run) and add their QoS\n"
    "                         report, one-way delays corrected for the\n"
    "                         agents' clock offsets\n"
    "  --json                 print the report as JSON\n"
    "  --no-clock-correction  report one-way delays as logged\n"
    "  --margin MS            from the clocks' measure to the start: every\n"
    "                         agent's flows are set up within it (default\n"
    "                         1000)\n"
    "  --grace MS             how long past the flows' planned end they are\n"
    "                         waited for, then stopped (default 10000)\n"
    "  --timeout MS           an agent that does not answer within this is\n"
    "                         given up (default 5000)\n"
    "  --rounds N             clock exchanges an agent (default 20)\n"
    "  --progress             the agents' counters every second on stderr\n"
    "                         (the default on a terminal)\n"
    "  --no-progress          none\n"
    "  -h, --help             show this help\n"
    "  --version              show the version\n"
    "\n"
    "An agent that cannot be reached, refuses the token or dies is named\n"
    "and its flows reported as not run; the others go on.\n"
    "Exit status: 0 every flow ran and every agent answered; 1 a flow or\n"
    "an agent failed (the report of the others is printed); 2 a wrong\n"
    "option, agent list, token file or experiment.\n";

/* One agent: where it is, and what became of it. */
typedef struct agent {
  char name[ITG_HOST_MAX];
  char host[ITG_HOST_MAX];
  uint16_t port;
  itg_remote *r;        /* NULL: not connected, or given up */
  int rc;               /* why it failed (0 none) */
  char error[600];      /* and the sentence ("" none) */
  int lost;             /* its connection broke after it was set up */
  int reported;         /* its last answer came after its flows ended */
  int ended;            /* its flows have ended (or it sends none) */
  uint16_t recv_port;
  int64_t offset_ns;    /* its wall clock less ours */
  int64_t rtt_ns;       /* of the exchange the offset comes from */
  itg_remote_status st; /* its last answer */
  size_t *sends;        /* the flows it sends, in the order given */
  size_t nsends;
  unsigned receives;
  uint64_t records;     /* records of the logs fetched from it */
} agent;

/* One flow: its line as sent, and how it ended. */
typedef struct flow {
  itg__cli_run_flow row;
  char error[700];
  char addr[ITG_HOST_MAX]; /* where it was sent */
  char *line;              /* the line the sender agent gets */
  int64_t delay_ns;
  int64_t end_ns;          /* its planned end past the start; 0 none */
  char log_path[ITG_PATH_MAX + 32]; /* its fetched receiver log ("") */
  char remote_log[64];     /* its receiver log's name at its agent */
} flow;

typedef struct options {
  agent *agents;
  int nagents;
  const char *token_file;
  const char *logs;
  const char *experiment;
  int json;
  int correct;
  int progress; /* -1: on a terminal */
  int rounds;
  int64_t margin_ns, grace_ns, timeout_ns;
} options;

static atomic_int interrupted;

static void on_signal(void *user, int signum) {
  (void)user;
  (void)signum;
  atomic_store(&interrupted, 1);
}

/* ---- the agents ----------------------------------------------------------- */

/* Adds the agent spec "NAME=HOST[:PORT]" (or "NAME HOST[:PORT]" in a
 * file). Returns 0, or writes why not into why. */
static int add_agent(options *o, const char *spec, char *why, size_t len) {
  const char *sep = spec + strcspn(spec, "= \t");
  size_t nlen = (size_t)(sep - spec), digits = strspn(spec, "0123456789");
  agent *a, *grown;
  if (nlen == 0 || *sep == '\0' || nlen >= ITG_HOST_MAX ||
      memchr(spec, '@', nlen) != NULL || memchr(spec, '"', nlen) != NULL ||
      memchr(spec, '#', nlen) != NULL || digits == nlen) {
    snprintf(why, len,
             "'%.300s': not NAME=HOST[:PORT] (a name holds no '@', '\"', "
             "'#' or white space, and is not a number)",
             spec);
    return -1;
  }
  for (int i = 0; i < o->nagents; i++)
    if (strlen(o->agents[i].name) == nlen &&
        memcmp(o->agents[i].name, spec, nlen) == 0) {
      snprintf(why, len, "agent '%.*s' given twice", (int)nlen, spec);
      return -1;
    }
  if (o->nagents == ITG_EXPERIMENT_RANKS_MAX) {
    snprintf(why, len, "more than %d agents", ITG_EXPERIMENT_RANKS_MAX);
    return -1;
  }
  grown = realloc(o->agents, ((size_t)o->nagents + 1) * sizeof *grown);
  if (grown == NULL) {
    snprintf(why, len, "out of memory");
    return -1;
  }
  o->agents = grown;
  a = &o->agents[o->nagents];
  memset(a, 0, sizeof *a);
  memcpy(a->name, spec, nlen);
  while (*sep == '=' || *sep == ' ' || *sep == '\t')
    sep++;
  a->port = ITG_REMOTE_DEFAULT_PORT;
  if (itg_parse_host_port(sep, a->host, sizeof a->host, &a->port) != 0) {
    snprintf(why, len, "agent %s: '%.300s' is not HOST[:PORT]", a->name, sep);
    return -1;
  }
  o->nagents++;
  return 0;
}

/* Reads the agents of a file, one a line. Returns 0 or the exit status. */
static int read_agents(options *o, const char *path) {
  char line[1024], why[700], msg[1500];
  unsigned n = 0;
  long size = 0;
  FILE *f = fopen(path, "r");
  if (f != NULL && fseek(f, 0, SEEK_END) == 0)
    size = ftell(f);
  if (f == NULL || size < 0 || size > AGENTS_FILE_MAX ||
      fseek(f, 0, SEEK_SET) != 0) {
    snprintf(msg, sizeof msg, "--agents %.512s: %s", path,
             f == NULL ? "cannot be opened" : "not a file of at most 1 MiB");
    if (f != NULL)
      fclose(f);
    return itg__cli_bad_usage(PROG, msg, usage_text);
  }
  while (fgets(line, sizeof line, f) != NULL) {
    char *p = line, *end;
    n++;
    if (strchr(line, '\n') == NULL && !feof(f)) {
      snprintf(why, sizeof why, "longer than %zu bytes", sizeof line - 2);
      goto bad;
    }
    p[strcspn(p, "#\r\n")] = '\0';
    while (*p == ' ' || *p == '\t')
      p++;
    end = p + strlen(p);
    while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
      *--end = '\0';
    if (*p != '\0' && add_agent(o, p, why, sizeof why) != 0)
      goto bad;
  }
  fclose(f);
  return 0;
bad:
  snprintf(msg, sizeof msg, "--agents %.512s: line %u: %s", path, n, why);
  fclose(f);
  return itg__cli_bad_usage(PROG, msg, usage_text);
}

/* ---- the command line ----------------------------------------------------- */

/* Returns 0, -1 (help or version printed) or the exit status. */
static int parse_args(int argc, char **argv, options *o) {
  o->correct = 1;
  o->progress = -1;
  o->rounds = 20;
  o->margin_ns = 1000 * INT64_C(1000000);
  o->grace_ns = 10 * SECOND_NS;
  o->timeout_ns = 5 * SECOND_NS;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    char why[700];
    int64_t ns;
    uint64_t n;
    int rc;
    if (itg__cli_info(PROG, a, 1, usage_text, help_text) == 0)
      return -1;
    if (a[0] != '-') {
      if (o->experiment != NULL)
        return itg__cli_bad_usage(PROG, "one experiment file only",
                                  usage_text);
      o->experiment = a;
      continue;
    }
    if (strcmp(a, "--json") == 0) {
      o->json = 1;
      continue;
    }
    if (strcmp(a, "--no-clock-correction") == 0) {
      o->correct = 0;
      continue;
    }
    if (strcmp(a, "--progress") == 0 || strcmp(a, "--no-progress") == 0) {
      o->progress = a[2] == 'p';
      continue;
    }
    if ((rc = itg__cli_value(PROG, usage_text, argc, argv, &i, &v)) != 0)
      return rc;
    if (strcmp(a, "--agent") == 0) {
      if (add_agent(o, v, why, sizeof why) != 0)
        return itg__cli_bad_usage(PROG, why, usage_text);
    } else if (strcmp(a, "--agents") == 0) {
      if ((rc = read_agents(o, v)) != 0)
        return rc;
    } else if (strcmp(a, "--token-file") == 0) {
      o->token_file = v;
    } else if (strcmp(a, "-L") == 0 || strcmp(a, "--logs") == 0) {
      o->logs = v;
    } else if (strcmp(a, "--margin") == 0 && itg_parse_ms(v, &ns) == 0 &&
               ns > 0 && ns <= 3600 * SECOND_NS) {
      o->margin_ns = ns;
    } else if (strcmp(a, "--grace") == 0 && itg_parse_ms(v, &ns) == 0 &&
               ns <= 3600 * SECOND_NS) {
      o->grace_ns = ns;
    } else if (strcmp(a, "--timeout") == 0 && itg_parse_ms(v, &ns) == 0 &&
               ns > 0 && ns <= 3600 * SECOND_NS) {
      o->timeout_ns = ns;
    } else if (strcmp(a, "--rounds") == 0 &&
               itg_parse_u64(v, 1, 1000, &n) == 0) {
      o->rounds = (int)n;
    } else {
      snprintf(why, sizeof why, "%s %.256s: %s", a, v,
               "not an option, or a value out of its range");
      return itg__cli_bad_usage(PROG, why, usage_text);
    }
  }
  if (o->experiment == NULL)
    return itg__cli_bad_usage(PROG, "no experiment file", usage_text);
  if (o->nagents == 0)
    return itg__cli_bad_usage(PROG, "no agent: give --agent or --agents",
                              usage_text);
  if (o->token_file == NULL)
    return itg__cli_bad_usage(PROG, "no --token-file", usage_text);
  if (o->progress < 0)
    o->progress = uv_guess_handle(2) == UV_TTY;
  return 0;
}

/* ---- the plan --------------------------------------------------------------- */

/* Places the experiment on the agents and writes each flow's line: its
 * options, then (for a receiver that is an agent) that agent's address
 * and receiver port, and with -L its receiver log. The ports are known
 * once the agents are connected: the lines are written then. Returns 0
 * or the exit status. */
static int plan(const options *o, const itg_experiment *e, flow *fl,
                int *snd, int *rcv) {
  size_t n = itg_experiment_count(e);
  const char **hosts = malloc((size_t)o->nagents * sizeof *hosts);
  itg_experiment_job job;
  char err[512];
  /* Names the receiver logs of this run apart from those of the runs
   * before it: an agent keeps every log it wrote and never replaces one,
   * so a name used again would fetch an earlier run's log. */
  uint64_t run = (uint64_t)itg_clock_real_ns();
  int rc;
  if (hosts == NULL) {
    itg__cli_error(PROG, "out of memory");
    return ITG__CLI_EXIT_FAIL;
  }
  for (int i = 0; i < o->nagents; i++)
    hosts[i] = o->agents[i].name;
  itg_experiment_job_init(&job);
  job.nranks = o->nagents;
  job.hosts = hosts;
  rc = itg_experiment_place(e, &job, snd, rcv, n, err, sizeof err);
  free(hosts);
  if (rc != 0) {
    char msg[700];
    snprintf(msg, sizeof msg, "%s: %s", o->experiment, err);
    itg__cli_error(PROG, msg);
    return ITG__CLI_EXIT_USAGE;
  }
  for (size_t i = 0; i < n; i++) {
    itg_experiment_flow at;
    itg_flow_cfg cfg;
    flow *f = &fl[i];
    itg_experiment_flow_at(e, i, &at);
    itg_experiment_flow_cfg(e, i, &cfg);
    f->row.flow_id = (uint32_t)i + 1;
    f->row.line = at.line;
    f->row.sender = snd[i];
    f->row.receiver = rcv[i];
    f->row.port = rcv[i] < 0 ? cfg.sig_port : 0;
    f->row.error = f->error;
    f->row.receiver_addr = f->addr;
    snprintf(f->addr, sizeof f->addr, "%s",
             rcv[i] < 0 ? cfg.dst_host : o->agents[rcv[i]].host);
    f->delay_ns = cfg.start_delay_ns;
    f->end_ns = cfg.duration_ns > 0 ? cfg.start_delay_ns + cfg.duration_ns : 0;
    snprintf(f->remote_log, sizeof f->remote_log, "run-%016llx-flow-%u.itglog",
             (unsigned long long)run, (unsigned)f->row.flow_id);
  }
  return 0;
}

/* Writes flow i's line for its sender agent. Returns 0 or ITG_ENOMEM. */
static int write_line(const options *o, const itg_experiment *e, size_t i,
                      flow *f) {
  const char *text = itg_experiment_flow_text(e, i);
  size_t len = strlen(text) + ITG_HOST_MAX + 80;
  char *line = malloc(len);
  itg_flow_cfg cfg;
  int k;
  if (line == NULL)
    return ITG_ENOMEM;
  itg_experiment_flow_cfg(e, i, &cfg);
  k = snprintf(line, len, "%s", text);
  if (f->row.receiver >= 0) {
    const agent *r = &o->agents[f->row.receiver];
    /* Several flows may reach one agent: D-ITG's default data port would
     * serve one of them, so its receiver picks one for each. */
    k += snprintf(line + k, len - (size_t)k, " -a %s -Sdp %u%s", r->host,
                  (unsigned)r->recv_port,
                  cfg.dst_port == ITG_DEFAULT_DATA_PORT ? " -rp 0" : "");
    f->row.port = r->recv_port;
    if (o->logs != NULL)
      snprintf(line + k, len - (size_t)k, " -x %s", f->remote_log);
  }
  f->line = line;
  return 0;
}

/* ---- talking to the agents -------------------------------------------------- */

/* Says what agent a failed at: err, or rc's sentence. */
static void fail(agent *a, int rc, const char *what, const char *err) {
  a->rc = rc;
  snprintf(a->error, sizeof a->error, "%s: %.500s", what,
           err != NULL && err[0] != '\0' ? err : itg_strerror(rc));
}

/* Whether rc says the connection itself broke (not an answer). */
static int broken(int rc) {
  return rc == ITG_ECLOSED || rc == ITG_ETIMEDOUT || rc == ITG_EIO ||
         rc == ITG_ESOCKET;
}

/* Gives up on agent a after a failed call: a connection that broke once
 * set up makes it lost (dead, cut off); one never set up, failed. */
static void give_up(agent *a, int rc, const char *what, const char *err) {
  a->lost = a->r != NULL && broken(rc);
  fail(a, rc, what, err);
  itg_remote_close(a->r);
  a->r = NULL;
}

static void connect_all(const options *o, const unsigned char *token,
                        size_t token_len) {
  for (int i = 0; i < o->nagents && !atomic_load(&interrupted); i++) {
    agent *a = &o->agents[i];
    char err[512] = "";
    int rc = itg_remote_connect(a->host, a->port, token, token_len,
                                o->timeout_ns, &a->r, err, sizeof err);
    if (rc == 0)
      rc = itg_remote_clock(a->r, o->rounds, &a->offset_ns, &a->rtt_ns);
    if (rc != 0) {
      give_up(a, rc, "connect", err);
      a->lost = 0;
      continue;
    }
    a->recv_port = itg_remote_receiver_port(a->r);
  }
}

/* Marks flow f as not run, for the reason agent a gives. */
static void not_run(flow *f, const char *role, int place, const agent *a) {
  f->row.reported = 1;
  f->row.status = a->rc != 0 ? a->rc : ITG_ESTATE;
  snprintf(f->error, sizeof f->error, "not run: its %s agent %d (%s): %.400s",
           role, place, a->name, a->error);
}

/* Gives each agent that can send its flows, to leave at the local wall
 * instant at_ns; an agent set up after it is named (its flows left at
 * once, out of step). Returns 0 or ITG_ENOMEM. */
static int start_all(const options *o, const itg_experiment *e, flow *fl,
                     int64_t at_ns) {
  for (int i = 0; i < o->nagents; i++) {
    agent *a = &o->agents[i];
    const char **lines;
    size_t k = 0;
    char err[600] = "";
    int rc;
    if (a->r == NULL || a->nsends == 0) {
      a->ended = 1;
      continue;
    }
    lines = malloc(a->nsends * sizeof *lines);
    if (lines == NULL)
      return ITG_ENOMEM;
    for (size_t j = 0; j < a->nsends; j++) {
      flow *f = &fl[a->sends[j]];
      if (f->row.receiver >= 0 && o->agents[f->row.receiver].r == NULL) {
        not_run(f, "receiver", f->row.receiver, &o->agents[f->row.receiver]);
        continue;
      }
      if (write_line(o, e, a->sends[j], f) != 0) {
        free(lines);
        return ITG_ENOMEM;
      }
      a->sends[k] = a->sends[j];
      lines[k++] = f->line;
    }
    a->nsends = k;
    rc = k == 0 ? 0
                : itg_remote_start(a->r, lines, k, at_ns + a->offset_ns, err,
                                   sizeof err);
    free(lines);
    if (rc != 0) {
      /* Refused, it may still receive: only a broken connection ends it. */
      if (broken(rc))
        give_up(a, rc, "its flows refused", err);
      else
        fail(a, rc, "its flows refused", err);
      for (size_t j = 0; j < k; j++)
        not_run(&fl[a->sends[j]], "sender", i, a);
    } else if (k > 0 && itg_clock_real_ns() > at_ns) {
      char msg[400];
      snprintf(msg, sizeof msg,
               "agent %d (%s) was set up after the start instant: its flows "
               "left late (a larger --margin avoids it)",
               i, a->name);
      itg__cli_error(PROG, msg);
    }
    a->ended = k == 0 || rc != 0;
  }
  return 0;
}

/* Takes agent a's flows' results from its last answer. */
static void take_results(agent *a, flow *fl) {
  for (size_t j = 0; j < a->nsends && j < a->st.flows; j++) {
    flow *f = &fl[a->sends[j]];
    itg_flow_result res;
    if (itg_remote_flow_result(a->r, j, &res) != 0)
      continue;
    f->row.reported = res.ended;
    f->row.status = res.status;
    snprintf(f->error, sizeof f->error, "%s", res.error);
    f->row.data_port = res.data_port;
    f->row.packets = res.packets;
    f->row.bytes = res.bytes;
    f->row.received = res.received;
    f->row.first_tx_ns = res.first_tx_ns != 0 ? res.first_tx_ns - a->offset_ns
                                              : 0;
    f->row.last_tx_ns = res.last_tx_ns != 0 ? res.last_tx_ns - a->offset_ns : 0;
  }
}

/* Asks every agent still there for its state, waiting up to wait_ns at
 * the first one whose flows run (their end wakes it at once). */
static void poll_all(const options *o, flow *fl, int64_t wait_ns) {
  for (int i = 0; i < o->nagents; i++) {
    agent *a = &o->agents[i];
    int rc;
    if (a->r == NULL)
      continue;
    if (a->ended) {
      rc = itg_remote_status(a->r, &a->st);
    } else {
      rc = itg_remote_results(a->r, wait_ns, &a->st);
      wait_ns = 0;
      if (rc == 0)
        a->ended = 1;
      else if (rc == ITG_ETIMEDOUT)
        rc = 0; /* still running: a broken connection says so next */
    }
    if (rc != 0) {
      give_up(a, rc, "connection lost", NULL);
      continue;
    }
    a->reported = a->ended;
    take_results(a, fl);
  }
}

static int all_ended(const options *o) {
  for (int i = 0; i < o->nagents; i++)
    if (o->agents[i].r != NULL && !o->agents[i].ended)
      return 0;
  return 1;
}

static void show_progress(const options *o, int64_t since_ns) {
  fprintf(stderr, "%s: %6.1f s:", PROG, (double)since_ns / 1e9);
  for (int i = 0; i < o->nagents; i++) {
    const agent *a = &o->agents[i];
    uint64_t sent = 0;
    if (a->r == NULL) {
      fprintf(stderr, "  %s given up;", a->name);
      continue;
    }
    for (uint32_t j = 0; j < a->st.flows; j++) {
      itg_flow_result res;
      if (itg_remote_flow_result(a->r, j, &res) == 0)
        sent += res.packets;
    }
    fprintf(stderr, "  %s %s, %llu sent, %llu received;", a->name,
            itg_remote_state_name(a->st.state), (unsigned long long)sent,
            (unsigned long long)a->st.rx_packets);
  }
  fputc('\n', stderr);
}

/* Follows the flows from the start at_ns until all have ended, the
 * planned end and the grace have passed (then they are stopped), or a
 * signal came (likewise); an agent whose flows do not end within the
 * timeout once stopped is given up. */
static void follow(const options *o, flow *fl, size_t n, int64_t at_ns) {
  int64_t planned = 0, deadline, stopped = 0;
  for (size_t i = 0; i < n; i++) {
    if (fl[i].end_ns == 0) {
      planned = -1;
      break;
    }
    if (fl[i].end_ns > planned)
      planned = fl[i].end_ns;
  }
  deadline = planned < 0 ? INT64_MAX : at_ns + planned + o->grace_ns;
  while (!all_ended(o)) {
    int64_t now = itg_clock_real_ns();
    if (stopped == 0 && (atomic_load(&interrupted) || now >= deadline)) {
      for (int i = 0; i < o->nagents; i++)
        if (o->agents[i].r != NULL && !o->agents[i].ended)
          itg_remote_stop(o->agents[i].r);
      stopped = now;
    }
    for (int i = 0; stopped != 0 && now - stopped > o->timeout_ns &&
                    i < o->nagents;
         i++)
      if (o->agents[i].r != NULL && !o->agents[i].ended)
        give_up(&o->agents[i], ITG_ETIMEDOUT,
                "its flows did not end when told to stop", NULL);
    poll_all(o, fl, SECOND_NS);
    if (o->progress)
      show_progress(o, itg_clock_real_ns() - at_ns);
  }
  poll_all(o, fl, 0);
}

/* ---- the logs ----------------------------------------------------------------- */

static int to_file(const void *data, size_t len, void *user) {
  return fwrite(data, 1, len, user) == len ? 0 : ITG_EIO;
}

/* Fetches each flow's receiver log from its receiver agent into DIR. */
static void fetch_logs(const options *o, flow *fl, size_t n) {
  uv_fs_t req;
  uv_fs_mkdir(NULL, &req, o->logs, 0755, NULL);
  uv_fs_req_cleanup(&req);
  for (size_t i = 0; i < n; i++) {
    flow *f = &fl[i];
    agent *r = f->row.receiver >= 0 ? &o->agents[f->row.receiver] : NULL;
    char msg[1200];
    FILE *out;
    int rc;
    if (r == NULL || r->r == NULL || f->line == NULL || f->row.packets == 0)
      continue;
    snprintf(f->log_path, sizeof f->log_path, "%s/flow-%u.itglog", o->logs,
             (unsigned)f->row.flow_id);
    out = fopen(f->log_path, "wb");
    rc = out != NULL
             ? itg_remote_fetch_log(r->r, f->remote_log, to_file, out)
             : ITG_EIO;
    if (out != NULL && fclose(out) != 0 && rc == 0)
      rc = ITG_EIO;
    if (rc == 0)
      continue;
    snprintf(msg, sizeof msg, "flow %u: its receiver log from agent %d (%s) "
             "into %s: %s", (unsigned)f->row.flow_id, f->row.receiver,
             r->name, f->log_path, itg_strerror(rc));
    itg__cli_error(PROG, msg);
    f->log_path[0] = '\0';
    if (rc != ITG_ENOENT && rc != ITG_EIO)
      give_up(r, rc, "connection lost", NULL);
  }
}

/* The decoding's view of the fetched files: file k is flow flow_of[k]'s
 * receiver log. */
typedef struct shift {
  const options *o;
  const flow *fl;
  const size_t *flow_of;
  int correct;
} shift;

/* Gives each record its flow's number in this run (an agent numbers its
 * own flows from 1) and, with the correction, moves its stamps into this
 * host's time base: a packet's send time by its sender agent's offset,
 * every other stamp by its receiver's. */
static void to_local(itg_logrec *recs, size_t n, size_t file, void *user) {
  const shift *sh = user;
  const flow *f = &sh->fl[sh->flow_of[file]];
  int64_t own = sh->o->agents[f->row.receiver].offset_ns;
  int64_t tx = sh->o->agents[f->row.sender].offset_ns;
  for (size_t i = 0; i < n; i++) {
    itg_logrec *rec = &recs[i];
    int packet_rx = (rec->flags & ITG_REC_RX) &&
                    !(rec->flags & (ITG_REC_FLOW_END | ITG_REC_GAP));
    rec->flow_id = f->row.flow_id;
    if (!sh->correct)
      continue;
    rec->tx_ns -= rec->tx_ns != 0 ? (packet_rx ? tx : own) : 0;
    rec->rx_ns -= rec->rx_ns != 0 ? own : 0;
  }
}

/* Decodes the fetched logs into stats, counting each agent's records.
 * Returns what itg_decode_files_map gives, or ITG_ENOENT (no log). */
static int decode(const options *o, const flow *fl, size_t n,
                  itg_stats *stats) {
  const char **paths = malloc((n + 1) * sizeof *paths);
  size_t *flow_of = malloc((n + 1) * sizeof *flow_of);
  itg_decode_status *st = calloc(n + 1, sizeof *st);
  shift sh = {o, fl, flow_of, o->correct};
  itg_decode_map map = {to_local, &sh};
  size_t files = 0;
  int rc = ITG_ENOMEM;
  if (paths == NULL || flow_of == NULL || st == NULL)
    goto out;
  for (size_t i = 0; i < n; i++)
    if (fl[i].log_path[0] != '\0') {
      paths[files] = fl[i].log_path;
      flow_of[files++] = i;
    }
  rc = ITG_ENOENT;
  if (files > 0)
    rc = itg_decode_files_map_size(paths, files, &map, stats, NULL, st,
                                   sizeof *st);
  for (size_t k = 0; k < files; k++)
    o->agents[fl[flow_of[k]].row.receiver].records += st[k].records;
out:
  free(paths);
  free(flow_of);
  free(st);
  return rc;
}

/* ---- the report ----------------------------------------------------------------- */

/* The spread of the first departures of the flows that start at once, and
 * the largest offset error of their senders (half a round trip). */
static void skew(const options *o, const flow *fl, size_t n,
                 itg__cli_run *run) {
  int64_t lo = 0, hi = 0, unc = 0;
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    const itg__cli_run_flow *f = &fl[i].row;
    int64_t u = o->agents[f->sender].rtt_ns / 2;
    if (f->first_tx_ns == 0 || fl[i].delay_ns != 0)
      continue;
    if (!any || f->first_tx_ns < lo)
      lo = f->first_tx_ns;
    if (!any || f->first_tx_ns > hi)
      hi = f->first_tx_ns;
    if (u > unc)
      unc = u;
    any = 1;
  }
  run->start_skew_ns = hi - lo;
  run->skew_uncertainty_ns = unc;
}

/* Prints the report. Returns the exit status. */
static int report(const options *o, const flow *fl, size_t n,
                  int64_t at_ns) {
  itg__cli_run_place *place = calloc((size_t)o->nagents, sizeof *place);
  itg__cli_run_flow *rows = calloc(n + 1, sizeof *rows);
  itg__cli_run run;
  itg_stats *stats = NULL;
  char *json = NULL;
  int rc = place == NULL || rows == NULL ? ITG_ENOMEM : itg_stats_new(&stats);
  int drc = ITG_ENOENT, status;
  if (rc == 0 && o->logs != NULL)
    drc = decode(o, fl, n, stats);
  if (rc == 0 && o->json && drc != ITG_ENOENT)
    json = itg__cli_stats_json(stats, &rc);
  if (rc != 0) {
    itg__cli_error(PROG, itg_strerror(rc));
    status = ITG__CLI_EXIT_FAIL;
    goto out;
  }
  for (int i = 0; i < o->nagents; i++) {
    const agent *a = &o->agents[i];
    itg__cli_run_place *p = &place[i];
    p->host = a->name;
    p->addr = a->host;
    p->port = a->recv_port;
    p->sends = (unsigned)a->nsends;
    p->receives = a->receives;
    p->offset_ns = a->offset_ns;
    p->uncertainty_ns = a->rtt_ns / 2;
    p->records = a->records;
    p->malformed = a->st.rx_malformed;
    p->reported = a->reported || (a->rc != 0 && !a->lost);
    p->silent = a->lost;
    p->error = a->lost ? "" : a->error;
    p->log_path = o->logs != NULL ? o->logs : "";
    p->spill_path = "";
  }
  for (size_t i = 0; i < n; i++)
    rows[i] = fl[i].row;
  run.prog = PROG;
  run.word = "agent";
  run.places = o->nagents;
  run.place = place;
  run.flows = n;
  run.flow = rows;
  run.start_ns = at_ns;
  run.correct = o->correct;
  skew(o, fl, n, &run);
  for (int i = 0; i < o->nagents; i++)
    if (o->agents[i].lost) {
      char msg[800];
      snprintf(msg, sizeof msg, "agent %d (%s): %.500s", i, o->agents[i].name,
               o->agents[i].error);
      itg__cli_error(PROG, msg);
    }
  itg__cli_run_tell_failures(&run);
  if (drc != 0 && drc != ITG_ENOENT) {
    char msg[200];
    snprintf(msg, sizeof msg, "decoding the fetched logs: %s",
             itg_strerror(drc));
    itg__cli_error(PROG, msg);
  }
  if (o->json) {
    itg__cli_run_print_json(&run, json != NULL ? json : "null");
  } else {
    itg__cli_run_print_text(&run);
    if (drc != ITG_ENOENT)
      itg__cli_report_text(stats);
  }
  status = itg__cli_run_failed_places(&run) > 0 ||
                   itg__cli_run_failed_flows(&run) > 0
               ? ITG__CLI_EXIT_FAIL
               : ITG__CLI_EXIT_OK;
out:
  free(json);
  itg_stats_free(stats);
  free(place);
  free(rows);
  return status;
}

/* ---- the run ------------------------------------------------------------------ */

/* Runs the experiment on the agents. Returns the exit status. */
static int run(options *o, const itg_experiment *e, const unsigned char *token,
               size_t token_len) {
  size_t n = itg_experiment_count(e);
  flow *fl = calloc(n, sizeof *fl);
  int *snd = malloc(n * sizeof *snd), *rcv = malloc(n * sizeof *rcv);
  itg__cli_sigwatch w;
  int watching = 0, status;
  int64_t at_ns = 0;
  status = ITG__CLI_EXIT_FAIL;
  if (fl == NULL || snd == NULL || rcv == NULL) {
    itg__cli_error(PROG, "out of memory");
    goto out;
  }
  if ((status = plan(o, e, fl, snd, rcv)) != 0)
    goto out;
  for (size_t i = 0; i < n; i++) {
    agent *a = &o->agents[snd[i]];
    size_t *grown = realloc(a->sends, (a->nsends + 1) * sizeof *grown);
    if (grown == NULL) {
      itg__cli_error(PROG, "out of memory");
      status = ITG__CLI_EXIT_FAIL;
      goto out;
    }
    a->sends = grown;
    a->sends[a->nsends++] = i;
    if (rcv[i] >= 0)
      o->agents[rcv[i]].receives++;
  }
  watching = itg__cli_sigwatch_start(&w, on_signal, NULL) == 0;
  connect_all(o, token, token_len);
  for (size_t i = 0; i < n; i++)
    if (o->agents[snd[i]].r == NULL)
      not_run(&fl[i], "sender", snd[i], &o->agents[snd[i]]);
  at_ns = itg_clock_real_ns() + o->margin_ns;
  if (start_all(o, e, fl, at_ns) != 0) {
    itg__cli_error(PROG, "out of memory");
    status = ITG__CLI_EXIT_FAIL;
    goto out_stop;
  }
  follow(o, fl, n, at_ns);
  if (o->logs != NULL)
    fetch_logs(o, fl, n);
  status = report(o, fl, n, at_ns);
out_stop:
  if (watching)
    itg__cli_sigwatch_stop(&w);
out:
  for (int i = 0; i < o->nagents; i++) {
    itg_remote_close(o->agents[i].r);
    o->agents[i].r = NULL;
  }
  for (size_t i = 0; fl != NULL && i < n; i++)
    free(fl[i].line);
  free(fl);
  free(snd);
  free(rcv);
  return status;
}

int main(int argc, char **argv) {
  options o;
  itg_experiment *e = NULL;
  unsigned char token[ITG_REMOTE_TOKEN_MAX];
  size_t token_len = 0;
  char err[512];
  int status;
  memset(&o, 0, sizeof o);
  status = parse_args(argc, argv, &o);
  if (status == 0)
    status = itg__cli_read_token(PROG, o.token_file, token, sizeof token,
                                 &token_len);
  if (status == 0 && itg_experiment_read(o.experiment, &e, err, sizeof err) !=
                         0) {
    char msg[700];
    snprintf(msg, sizeof msg, "%s: %s", o.experiment, err);
    itg__cli_error(PROG, msg);
    status = ITG__CLI_EXIT_USAGE;
  }
  if (status == 0)
    status = run(&o, e, token, token_len);
  memset(token, 0, sizeof token);
  itg_experiment_free(e);
  for (int i = 0; i < o.nagents; i++)
    free(o.agents[i].sends);
  free(o.agents);
  fflush(stdout);
  return status < 0 ? ITG__CLI_EXIT_OK : status;
}
