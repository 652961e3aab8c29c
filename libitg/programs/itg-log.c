/* itg-log: the log server (D-ITG's ITGLog). Writes each client's session
 * to a file of its own in DIR until SIGINT or SIGTERM, one line per session
 * opened, refused or closed on stderr. */
#include <stdio.h>
#include <string.h>

#include "itg.h"
#include "programs/cli.h"

static const char prog[] = "itg-log";

static const char usage_text[] =
    "usage: itg-log [-p PORT] [-a ADDR] [-d DIR] [-A CIDR]... [-k TOKEN]\n"
    "               [--max-clients N] [--peer-clients N] [--handshake MS]\n"
    "               [-h|--help] [--version]\n";

static const char help_text[] =
    "\n"
    "Collects the logs that itg-send (-L) and itg-recv (asked with -X) ship,\n"
    "one file per session in DIR, until SIGINT or SIGTERM. A session whose\n"
    "client did not leave is kept with the suffix .incomplete.\n"
    "D-ITG's ITGSend (-L ADDR UDP|TCP) and ITGRecv (asked by ITGSend -X)\n"
    "are served too, on port 9001, where they look for ITGLog: their\n"
    "sessions are D-ITG logs (itg-dec and ITGDec read them), named by the\n"
    "last part of the name they ask for; the records a UDP session lost\n"
    "are counted by the jumps in each flow's sequence numbers.\n"
    "\n"
    "  -p PORT        TCP and UDP port (default 9001; 0: ports the system\n"
    "                 picks, TCP and UDP each its own)\n"
    "  -a ADDR        address to listen on (default: every address)\n"
    "  -d DIR         where the files go (default: the current directory)\n"
    "  -A CIDR        also accept clients from this network (loopback always)\n"
    "  -k TOKEN, --token TOKEN  clients must present this token\n"
    "  --max-clients N  clients at once (default 1024)\n"
    "  --peer-clients N  clients at once from one address (default 256)\n"
    "  --handshake MS  a client that has not registered within MS is closed\n"
    "                 (default 10000)\n"
    "The limit on open descriptors is raised to the hard limit at start.\n"
    "\n"
    "Once listening it prints one line on stdout, the ports it bound:\n"
    "  itg-log: listening tcp=PORT udp=PORT\n";

static const char *role_name(uint32_t role) {
  return role == ITG_LOG_ROLE_RECEIVER ? "receiver"
         : role == ITG_LOG_ROLE_SENDER ? "sender"
                                       : "client";
}

static void on_session(const itg_log_session_event *ev, void *user) {
  const char *t = ev->transport == ITG_LOG_UDP ? "UDP" : "TCP";
  (void)user;
  switch (ev->kind) {
  case ITG_LOG_SESSION_OPENED:
    fprintf(stderr, "%s: session %u from %s (%s %s, %s): %s\n", prog,
            ev->session, ev->peer, ev->host, role_name(ev->role), t, ev->file);
    break;
  case ITG_LOG_SESSION_REFUSED:
    fprintf(stderr, "%s: client %s refused: %s\n", prog,
            ev->peer[0] ? ev->peer : "?", ev->message);
    break;
  case ITG_LOG_SESSION_CLOSED:
    fprintf(stderr, "%s: session %u %s: %s, %llu records, %llu missing\n",
            prog, ev->session, ev->complete ? "closed" : "ended incomplete",
            ev->file[0] ? ev->file : "(no file: nothing written)",
            (unsigned long long)ev->records,
            (unsigned long long)ev->missing);
    if (ev->status != 0)
      fprintf(stderr, "%s: session %u: %s%s\n", prog, ev->session,
              ev->message, ev->transport == ITG_LOG_TCP
                               ? "; the client keeps the records not written"
                               : "");
    break;
  }
}

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, itg_logserver_cfg *cfg) {
  char msg[160];
  const char *v;
  int i, rc;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    uint64_t n;
    rc = itg__cli_info(prog, a, 1, usage_text, help_text);
    if (rc >= 0)
      return rc;
    if (strcmp(a, "-p") != 0 && strcmp(a, "-a") != 0 && strcmp(a, "-d") != 0 &&
        strcmp(a, "-A") != 0 && strcmp(a, "-k") != 0 &&
        strcmp(a, "--token") != 0 && strcmp(a, "--max-clients") != 0 &&
        strcmp(a, "--peer-clients") != 0 && strcmp(a, "--handshake") != 0) {
      snprintf(msg, sizeof msg, "unknown option '%.64s'", a);
      return itg__cli_bad_usage(prog, msg, usage_text);
    }
    rc = itg__cli_value(prog, usage_text, argc, argv, &i, &v);
    if (rc != 0)
      return rc;
    if (strcmp(a, "-a") == 0)
      rc = itg__cli_copy_value(prog, usage_text, a, v, cfg->bind_host, sizeof cfg->bind_host);
    else if (strcmp(a, "-d") == 0)
      rc = itg__cli_copy_value(prog, usage_text, a, v, cfg->dir, sizeof cfg->dir);
    else if (strcmp(a, "-k") == 0 || strcmp(a, "--token") == 0)
      rc = itg__cli_copy_value(prog, usage_text, a, v, cfg->token, sizeof cfg->token);
    else if (strcmp(a, "-A") == 0) {
      if (itg_logserver_cfg_allow(cfg, v) != 0) {
        snprintf(msg, sizeof msg, "-A: '%.64s' is not a network (or too many)",
                 v);
        return itg__cli_bad_usage(prog, msg, usage_text);
      }
    } else if (strcmp(a, "--max-clients") == 0 ||
               strcmp(a, "--peer-clients") == 0) {
      if (itg_parse_u64(v, 1, 1000000, &n) != 0) {
        snprintf(msg, sizeof msg, "%s: '%.64s' is not a count in 1..1000000",
                 a, v);
        return itg__cli_bad_usage(prog, msg, usage_text);
      }
      if (strcmp(a, "--max-clients") == 0)
        cfg->max_clients = (uint32_t)n;
      else
        cfg->max_peer_clients = (uint32_t)n;
    } else if (strcmp(a, "--handshake") == 0) {
      if (itg_parse_u64(v, 1, 86400000, &n) != 0) {
        snprintf(msg, sizeof msg, "%s: '%.64s' is not a time in 1..86400000 "
                 "ms", a, v);
        return itg__cli_bad_usage(prog, msg, usage_text);
      }
      cfg->handshake_ms = (uint32_t)n;
    } else if (itg_parse_port(v, &cfg->port) != 0) {
      snprintf(msg, sizeof msg, "%s: '%.64s' is not a port", a, v);
      return itg__cli_bad_usage(prog, msg, usage_text);
    }
    if (rc != 0)
      return rc;
  }
  return -1;
}

static int create(const void *cfg, void **server) {
  return itg_logserver_new(cfg, (itg_logserver **)server);
}

static void destroy(void *server) { itg_logserver_free(server); }

static int start(void *server) { return itg_logserver_start(server); }

static void start_failed(const void *c, int rc, char *msg, size_t len) {
  const itg_logserver_cfg *cfg = c;
  snprintf(msg, len, "cannot start on %.100s port %u (dir %.100s): %s",
           cfg->bind_host[0] ? cfg->bind_host : "every address",
           (unsigned)cfg->port, cfg->dir[0] ? cfg->dir : ".",
           itg_strerror(rc));
}

static size_t ports(void *server, itg__cli_port *out) {
  out[0].name = "tcp";
  out[0].port = itg_logserver_port(server);
  out[1].name = "udp";
  out[1].port = itg_logserver_udp_port(server);
  return 2;
}

static int stop(void *server) { return itg_logserver_stop(server); }

/* Stopping fails only for a NULL server; a session's failures are told by
 * its own event. */
static int summary(void *server, int stop_rc) {
  itg_logserver_stats st;
  (void)stop_rc;
  itg_logserver_get_stats(server, &st);
  fprintf(stderr, "%s: %llu sessions (%llu incomplete), %llu refused, %llu "
          "records, %llu missing, %llu clients closed unregistered\n", prog,
          (unsigned long long)st.sessions_total,
          (unsigned long long)st.incomplete, (unsigned long long)st.refused,
          (unsigned long long)st.records, (unsigned long long)st.missing,
          (unsigned long long)st.expired);
  return ITG__CLI_EXIT_OK;
}

static const itg__cli_daemon daemon_steps = {
    prog, create, destroy, start, start_failed, ports, stop, summary, NULL,
    NULL, 0,
};

int main(int argc, char **argv) {
  itg_logserver_cfg cfg;
  int status;
  itg_logserver_cfg_init(&cfg);
  cfg.on_session = on_session;
  status = parse_args(argc, argv, &cfg);
  if (status >= 0)
    return status;
  return itg__cli_daemon_main(&daemon_steps, &cfg);
}
