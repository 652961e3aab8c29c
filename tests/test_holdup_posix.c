/* A sending thread held up while it works rather than while it waits:
 * the sender logs to a named pipe that nobody reads for a while, so the
 * log's writer blocks, the log ring fills, and the sending thread waits
 * for room in it right after a send. Once the pipe is read again, the
 * default catch-up (law) paces the departures that hold-up delayed
 * instead of sending them at once. POSIX only: a named pipe whose buffer
 * can be made small. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "helpers/logread.h"
#include "helpers/tmpdir.h"
#include "itg/log.h"
#include "itg/receiver.h"
#include "itg/sender.h"

#define SEC INT64_C(1000000000)
#define WAIT (30 * SEC)

enum {
  PACKETS = 1000,
  IDT_US = 1000,
  STALL_MS = 100,  /* how long the pipe goes unread once the ring is full */
  FULL_WAIT_MS = 20000 /* longest wait for the ring to fill */
};

/* Copies the pipe, once the test lets it be read, to a regular file. */
typedef struct drain {
  int fd;
  FILE *out;
  int failed;
} drain;

static void drain_main(void *arg) {
  drain *d = arg;
  char buf[4096];
  ssize_t n;
  if (fcntl(d->fd, F_SETFL, 0) != 0) {
    d->failed = 1;
    return;
  }
  while ((n = read(d->fd, buf, sizeof buf)) > 0)
    if (fwrite(buf, 1, (size_t)n, d->out) != (size_t)n)
      d->failed = 1;
  if (n < 0)
    d->failed = 1;
}

static itg_receiver *start_receiver(void) {
  itg_receiver_cfg cfg;
  itg_receiver *r;
  itg_receiver_cfg_init(&cfg);
  strcpy(cfg.bind_host, "127.0.0.1");
  cfg.sig_port = 0;
  assert_int_equal(itg_receiver_new(&cfg, &r), 0);
  assert_int_equal(itg_receiver_start(r), 0);
  return r;
}

/* Waits until the logger's producers have found its ring full. */
static void wait_ring_full(itg_logger *l) {
  itg_logger_stats st;
  int ms;
  for (ms = 0; ms < FULL_WAIT_MS; ms++) {
    assert_int_equal(itg_logger_get_stats(l, &st), 0);
    if (st.full_waits > 0)
      return;
    uv_sleep(1);
  }
  fail_msg("the log ring never filled");
}

/* The departures' send times from a log file, in the order they left. */
static size_t departures(const char *path, int64_t *tx, size_t max) {
  size_t all, i, n = 0;
  itg_logrec *v = logread_all(path, &all);
  assert_non_null(v);
  for (i = 0; i < all; i++)
    if ((v[i].flags & ITG_REC_TX) && !(v[i].flags & ITG_REC_FLOW_END) &&
        n < max)
      tx[n++] = v[i].tx_ns;
  free(v);
  return n;
}

/* The pipe goes unread for STALL_MS once the ring is full, so the sending
 * thread stands still that long after a send, owing about a hundred
 * departures of its 1 000 pkt/s flow. Sent at once, they would leave
 * microseconds apart; paced, no gap is shorter than 0.8 of the IDT less
 * the machine's ordinary lateness. */
static void test_log_holdup_paced(void **state) {
  char dir[1024], fifo[1100], copy[1100], line[256], err[256] = "";
  itg_receiver *r = start_receiver();
  itg_logger_cfg lcfg;
  itg_logger *l;
  itg_sender_cfg cfg;
  itg_sender *s;
  itg_flow_cfg c;
  itg_flow_result res;
  itg_logger_stats st;
  uv_thread_t th;
  drain d;
  int64_t *tx = malloc(PACKETS * sizeof *tx), longest = 0;
  size_t n, i, short_gaps = 0;
  (void)state;
  assert_non_null(tx);
  assert_int_equal(tmpdir_make(dir, sizeof dir, "itg-holdup-"), 0);
  snprintf(fifo, sizeof fifo, "%s/send.pipe", dir);
  snprintf(copy, sizeof copy, "%s/send.log", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  /* Opened for reading first, so that the logger's open for writing
   * does not wait; a page of buffer, so that a few hundred records fill
   * it and the writer blocks. */
  d.fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  assert_true(d.fd >= 0);
  assert_true(fcntl(d.fd, F_SETPIPE_SZ, 4096) > 0);
  d.out = fopen(copy, "wb");
  assert_non_null(d.out);
  d.failed = 0;

  itg_logger_cfg_init(&lcfg);
  lcfg.path = fifo;
  lcfg.lanes = 2;
  lcfg.capacity = 16;
  lcfg.batch = 8;
  lcfg.flush_ms = 1;
  assert_int_equal(itg_logger_new(&lcfg, &l), 0);

  itg_flow_cfg_init(&c);
  snprintf(line, sizeof line, "-a 127.0.0.1 -Sdp %u -C %d -c 64 -z %d",
           (unsigned)itg_receiver_port(r), 1000000 / IDT_US, PACKETS);
  if (itg_flow_parse_line(&c, line, err, sizeof err) <= 0)
    fail_msg("%s: %s", line, err);
  itg_sender_cfg_init(&cfg);
  cfg.logger = l;
  assert_int_equal(itg_sender_new(&cfg, &s), 0);
  assert_int_equal(itg_sender_add_flow(s, &c, NULL, 0), 0);
  assert_int_equal(itg_sender_start(s), 0);

  wait_ring_full(l);
  uv_sleep(STALL_MS);
  assert_int_equal(uv_thread_create(&th, drain_main, &d), 0);
  assert_int_equal(itg_sender_wait(s, WAIT), 0);
  assert_int_equal(itg_sender_flow_result(s, 0, &res), 0);
  itg_sender_free(s);
  assert_int_equal(itg_logger_close_stats(l, &st), 0);
  assert_int_equal(uv_thread_join(&th), 0);
  close(d.fd);
  assert_int_equal(fclose(d.out), 0);
  assert_int_equal(d.failed, 0);
  assert_int_equal(itg_receiver_stop(r), 0);
  itg_receiver_free(r);

  assert_int_equal(res.status, 0);
  assert_int_equal(res.packets, PACKETS);
  assert_true(st.full_waits > 0);
  assert_int_equal(st.lost, 0);
  n = departures(copy, tx, PACKETS);
  assert_int_equal(n, PACKETS);
  for (i = 1; i < n; i++) {
    int64_t gap = tx[i] - tx[i - 1];
    if (gap > longest)
      longest = gap;
    short_gaps += gap < IDT_US * 1000 / 2;
  }
  print_message("longest gap %.1f ms, %zu gaps under half the IDT, "
                "%llu departures moved\n",
                (double)longest / 1e6, short_gaps,
                (unsigned long long)res.shifted);
  assert_true(longest >= STALL_MS * INT64_C(1000000) / 2);
  assert_true(short_gaps <= 2);
  assert_true(res.shifted >= 50);
  free(tx);
  assert_int_equal(tmpdir_remove(dir), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_log_holdup_paced),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
