/* quickstart: a receiver and a sender in one program on loopback, then the
 * QoS report of what the receiver logged.
 *
 *   cc quickstart.c $(pkg-config --cflags --libs libitg) -o quickstart
 *   ./quickstart [LOGFILE]
 *
 * or, to carry libitg (and libuv) inside the program:
 *
 *   cc quickstart.c $(pkg-config --cflags --libs libitg-static) -o quickstart
 */
#include <itg.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what, int rc) {
  fprintf(stderr, "quickstart: %s: %s (%s)\n", what, itg_strerror(rc),
          itg_err_name(rc));
  return 1;
}

int main(int argc, char **argv) {
  const char *log = argc > 1 ? argv[1] : "quickstart.itglog";
  itg_receiver_cfg rcfg;
  itg_receiver *rx;
  itg_sender_cfg scfg;
  itg_sender *tx;
  itg_flow_cfg flow;
  itg_stats *stats;
  itg_flow_stats total;
  itg_decode_status st; /* what reading the log met */
  char err[256];
  int rc;

  /* A receiver on a free signaling port, logging every packet to `log`. */
  itg_receiver_cfg_init(&rcfg);
  rcfg.sig_port = 0;
  snprintf(rcfg.log_path, sizeof rcfg.log_path, "%s", log);
  if ((rc = itg_receiver_new(&rcfg, &rx)) != 0)
    return fail("receiver", rc);
  if ((rc = itg_receiver_start(rx)) != 0)
    return fail("receiver start", rc);

  /* One flow described with itg-send's words: 1 000 packets/s of 64 bytes
   * for 2 seconds, over UDP, to a data port the receiver picks (-rp 0). */
  itg_flow_cfg_init(&flow);
  if (itg_flow_parse_line(&flow, "-a 127.0.0.1 -rp 0 -T UDP -C 1000 -c 64 -t 2000",
                          err, sizeof err) < 0) {
    fprintf(stderr, "quickstart: %s\n", err);
    return 1;
  }
  flow.sig_port = itg_receiver_port(rx);

  itg_sender_cfg_init(&scfg);
  if ((rc = itg_sender_new(&scfg, &tx)) != 0)
    return fail("sender", rc);
  if (itg_sender_add_flow(tx, &flow, err, sizeof err) != 0) {
    fprintf(stderr, "quickstart: %s\n", err);
    return 1;
  }
  rc = itg_sender_run(tx); /* blocks until the flow has ended */
  itg_sender_free(tx);
  itg_receiver_stop(rx); /* flushes the log */
  itg_receiver_free(rx);
  if (rc != 0)
    return fail("sending", rc);

  /* Decode the receiver's log into per-flow and total statistics. */
  if ((rc = itg_stats_new(&stats)) != 0)
    return fail("stats", rc);
  rc = itg_decode_files(&log, 1, stats, NULL, &st);
  if (rc == 0)
    rc = itg_stats_total(stats, ITG_STATS_MAIN, &total);
  itg_stats_free(stats);
  if (rc != 0)
    return fail("decoding", rc);

  printf("packets %llu, lost %llu (%.2f %%), bitrate %.1f kbit/s\n",
         (unsigned long long)total.packets, (unsigned long long)total.lost,
         total.loss_pct, total.bitrate_kbps);
  printf("one-way delay: avg %.1f us, p99 %.1f us, jitter %.1f us\n",
         total.delay_avg_ns / 1e3, total.delay_p99_ns / 1e3,
         total.jitter_avg_ns / 1e3);
  return total.packets == 2000 && total.lost == 0 ? 0 : 1;
}
