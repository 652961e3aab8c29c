/* The agent daemon (itg/remote.h) from the command line: its options, its
 * token read from a file, and its run as a daemon (programs/cli.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itg.h"
#include "programs/agent_cli.h"
#include "programs/cli.h"

static const char usage_fmt[] =
    "usage: %s --token-file FILE [--listen ADDR:PORT] [--allow LIST]...\n"
    "       [--auth-timeout MS] [--max-conns N] [-Sp PORT] [-a ADDR]\n"
    "       [--log-dir DIR] [--recv-log NAME] [-l NAME]\n"
    "       [-L ADDR[:PORT] [TCP|UDP]] [-h|--help] [--version]\n";

static const char help_text[] =
    "\n"
    "Runs the agent: a receiver, and a sender that starts the flows a\n"
    "client (itg-ctl, or the C, Python and Java APIs) gives it, at the\n"
    "instant it asks. A client must come from an allowed network and prove\n"
    "within the authentication timeout that it holds the token (an\n"
    "HMAC-SHA256 challenge and response: the token never crosses the\n"
    "network); no one else can make the agent send a packet. Runs until\n"
    "SIGINT or SIGTERM.\n"
    "\n"
    "  --token-file FILE  the shared token: FILE's bytes, white space at\n"
    "                 the end removed, 1 to 256 bytes (required: a token on\n"
    "                 the command line would show in the process list).\n"
    "                 Make it long and random, e.g.\n"
    "                 head -c 32 /dev/urandom | base64 > FILE\n"
    "  --listen ADDR:PORT  the control port (default 127.0.0.1:9003; port\n"
    "                 0: one the system picks; [::]:PORT or 0.0.0.0:PORT to\n"
    "                 take clients from other hosts)\n"
    "  --allow LIST   the networks clients may come from, ADDR[/PREFIX]\n"
    "                 separated by commas; repeatable, at most 16 in all.\n"
    "                 Default: loopback only; given, the list replaces\n"
    "                 loopback (name 127.0.0.1 to keep it)\n"
    "  --auth-timeout MS  a client that has not proved it holds the token\n"
    "                 within MS is dropped (default 5000)\n"
    "  --max-conns N  control connections at once (default 8); one client\n"
    "                 controls the agent at a time, another is told it is\n"
    "                 busy\n"
    "  -Sp PORT, --sig-port PORT  the receiver's signaling port (default\n"
    "                 9000; 0: one the system picks)\n"
    "  -a ADDR        the receiver's address (default: every address)\n"
    "  --log-dir DIR  where the logs go, and the only place a client may\n"
    "                 fetch a log from (default: the current directory)\n"
    "  --recv-log NAME  the receiver log of the flows that name none (-x)\n"
    "  -l NAME        the sender log of the flows a client starts\n"
    "  -L ADDR[:PORT] [TCP|UDP]  ship the sender log to the log server\n"
    "                 itg-log at ADDR (port 9001, TCP) instead; -l names it\n"
    "A client may fetch the logs the agent wrote (those named above and\n"
    "the flows' -x logs), never another file.\n"
    "\n"
    "Once listening it prints one line on stdout, the ports it bound:\n"
    "  PROG: listening ctl=PORT sig=PORT\n";

typedef struct agent_run {
  itg_agent *agent;
  char err[256]; /* why the start failed, for start_failed */
} agent_run;

static const char *prog_name;
static agent_run *the_run;
static char usage_text[512];

/* Adds the networks of list to cfg.allow. */
static int add_allow(const char *list, itg_agent_cfg *cfg, char *msg,
                     size_t len) {
  char bad[64];
  uint32_t n = 0;
  int rc = itg_logserver_net_list_parse(
      list, cfg->allow + cfg->allow_count,
      ITG_AGENT_MAX_NETS - cfg->allow_count, &n, bad, sizeof bad);
  if (rc == ITG_ELIMIT)
    snprintf(msg, len, "--allow: more than %u networks", ITG_AGENT_MAX_NETS);
  else if (rc != 0)
    snprintf(msg, len, "--allow: '%s' is not a network ADDR[/PREFIX]", bad);
  else
    cfg->allow_count += n;
  return rc;
}

/* Reads --listen's ADDR[:PORT], where PORT may be 0 (the system's
 * pick), which itg_parse_host_port, made for servers to reach, refuses. */
static int parse_listen(const char *v, itg_agent_cfg *cfg) {
  char word[ITG_HOST_MAX + 8];
  size_t n = strlen(v);
  int any = n >= 2 && strcmp(v + n - 2, ":0") == 0;
  if (n >= sizeof word)
    return -1;
  memcpy(word, v, n + 1);
  if (any)
    word[n - 1] = '1';
  cfg->listen_port = ITG_REMOTE_DEFAULT_PORT;
  if (itg_parse_host_port(word, cfg->listen_host, sizeof cfg->listen_host,
                          &cfg->listen_port) != 0)
    return -1;
  if (any)
    cfg->listen_port = 0;
  return 0;
}

static int number(const char *opt, const char *v, uint64_t min, uint64_t max,
                  uint64_t *out, char *msg, size_t len) {
  if (itg_parse_u64(v, min, max, out) == 0)
    return 0;
  snprintf(msg, len, "%s: '%.64s' is not a number in %llu..%llu", opt, v,
           (unsigned long long)min, (unsigned long long)max);
  return -1;
}

/* Reads the options. Returns -1 to run, or the exit status. */
static int parse_args(int argc, char **argv, itg_agent_cfg *cfg) {
  char msg[320];
  const char *token_file = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    uint64_t x;
    int rc = itg__cli_info(prog_name, a, 1, usage_text, help_text);
    if (rc >= 0)
      return rc;
    rc = itg__cli_value(prog_name, usage_text, argc, argv, &i, &v);
    if (rc != 0)
      return rc;
    msg[0] = '\0';
    if (strcmp(a, "--token-file") == 0) {
      token_file = v;
    } else if (strcmp(a, "--listen") == 0) {
      if (parse_listen(v, cfg) != 0)
        snprintf(msg, sizeof msg, "--listen: '%.64s' is not ADDR[:PORT]", v);
    } else if (strcmp(a, "--allow") == 0) {
      add_allow(v, cfg, msg, sizeof msg);
    } else if (strcmp(a, "--auth-timeout") == 0) {
      if (number(a, v, 1, 600000, &x, msg, sizeof msg) == 0)
        cfg->auth_timeout_ms = (uint32_t)x;
    } else if (strcmp(a, "--max-conns") == 0) {
      if (number(a, v, 1, 1024, &x, msg, sizeof msg) == 0)
        cfg->max_conns = (uint32_t)x;
    } else if (strcmp(a, "-Sp") == 0 || strcmp(a, "--sig-port") == 0) {
      if (number(a, v, 0, 65535, &x, msg, sizeof msg) == 0)
        cfg->recv_port = (uint16_t)x;
    } else if (strcmp(a, "-a") == 0) {
      rc = itg__cli_copy_value(prog_name, usage_text, a, v, cfg->recv_host,
                               sizeof cfg->recv_host);
    } else if (strcmp(a, "--log-dir") == 0) {
      rc = itg__cli_copy_value(prog_name, usage_text, a, v, cfg->log_dir,
                               sizeof cfg->log_dir);
    } else if (strcmp(a, "--recv-log") == 0) {
      rc = itg__cli_copy_value(prog_name, usage_text, a, v, cfg->recv_log,
                               sizeof cfg->recv_log);
    } else if (strcmp(a, "-l") == 0) {
      rc = itg__cli_copy_value(prog_name, usage_text, a, v, cfg->send_log,
                               sizeof cfg->send_log);
    } else if (strcmp(a, "-L") == 0) {
      cfg->log_server_port = ITG_DEFAULT_LOG_PORT;
      if (itg_parse_host_port(v, cfg->log_server, sizeof cfg->log_server,
                              &cfg->log_server_port) != 0)
        snprintf(msg, sizeof msg, "-L: '%.64s' is not ADDR[:PORT]", v);
      else if (i + 1 < argc && (strcmp(argv[i + 1], "TCP") == 0 ||
                                strcmp(argv[i + 1], "UDP") == 0))
        cfg->log_transport =
            strcmp(argv[++i], "UDP") == 0 ? ITG_LOG_UDP : ITG_LOG_TCP;
    } else {
      snprintf(msg, sizeof msg, "unknown option '%.64s'", a);
    }
    if (rc != 0)
      return rc;
    if (msg[0] != '\0')
      return itg__cli_bad_usage(prog_name, msg, usage_text);
  }
  if (token_file == NULL)
    return itg__cli_bad_usage(prog_name, "--token-file is required",
                              usage_text);
  if (itg__cli_read_token(prog_name, token_file, cfg->token,
                          sizeof cfg->token, &cfg->token_len) != 0)
    return ITG__CLI_EXIT_USAGE;
  return -1;
}

static int create(const void *cfg, void **server) {
  agent_run *run = calloc(1, sizeof *run);
  int rc;
  if (run == NULL)
    return ITG_ENOMEM;
  rc = itg_agent_new(cfg, &run->agent, run->err, sizeof run->err);
  if (rc < 0) {
    itg__cli_error(prog_name, run->err);
    free(run);
    return rc;
  }
  *server = the_run = run;
  return 0;
}

static void destroy(void *server) {
  agent_run *run = server;
  itg_agent_free(run->agent);
  free(run);
}

static int start(void *server) {
  agent_run *run = server;
  return itg_agent_start(run->agent, run->err, sizeof run->err);
}

static void start_failed(const void *cfg, int rc, char *msg, size_t len) {
  (void)cfg;
  snprintf(msg, len, "cannot start: %s",
           the_run->err[0] != '\0' ? the_run->err : itg_strerror(rc));
}

static size_t ports(void *server, itg__cli_port *out) {
  agent_run *run = server;
  out[0].name = "ctl";
  out[0].port = itg_agent_port(run->agent);
  out[1].name = "sig";
  out[1].port = itg_agent_receiver_port(run->agent);
  return 2;
}

static int stop(void *server) {
  agent_run *run = server;
  return itg_agent_stop(run->agent);
}

static int summary(void *server, int stop_rc) {
  (void)server;
  return stop_rc < 0 ? ITG__CLI_EXIT_FAIL : ITG__CLI_EXIT_OK;
}

int itg__agent_cli_main(const char *prog, int argc, char **argv) {
  static const itg__cli_daemon steps_proto = {
      NULL, create, destroy, start, start_failed, ports, stop, summary,
      NULL, NULL, 0,
  };
  itg__cli_daemon steps = steps_proto;
  itg_agent_cfg cfg;
  int status;
  prog_name = prog;
  steps.prog = prog;
  snprintf(usage_text, sizeof usage_text, usage_fmt, prog);
  itg_agent_cfg_init(&cfg);
  status = parse_args(argc, argv, &cfg);
  if (status >= 0)
    return status;
  return itg__cli_daemon_main(&steps, &cfg);
}
