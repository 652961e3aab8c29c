/* The POSIX platform layer, over loopback only: addresses, batched
 * datagrams with kernel timestamps, streams, options, error mapping,
 * clocks and threads. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers/tmpdir.h"
#include "platform/platform.h"

#define SEC INT64_C(1000000000)
#define NDGRAM 32

/* ---- helpers --------------------------------------------------------- */

static itg__addr resolve(const char *host, uint16_t port, int passive) {
  itg__addr a;
  assert_int_equal(itg__addr_resolve(host, port, passive, &a), 0);
  return a;
}

/* A socket of a's family bound to a (port 0: the kernel picks). */
static itg__sock bound(const itg__addr *a, int dgram) {
  itg__sock s;
  assert_int_equal(itg__sock_open(a, dgram, &s), 0);
  assert_int_equal(itg__sock_bind(s, a), 0);
  return s;
}

static itg__addr local_of(itg__sock s) {
  itg__addr a;
  assert_int_equal(itg__sock_local(s, &a), 0);
  return a;
}

static int int_opt(itg__sock s, int level, int name) {
  int v = -1;
  socklen_t len = sizeof v;
  assert_int_equal(getsockopt(s, level, name, &v, &len), 0);
  return v;
}

/* Whether kernel receive timestamps are on: nanosecond ones, or where
 * those are refused (qemu-user), microsecond ones. */
static int rx_timestamps_on(itg__sock s) {
  int v = 0;
  socklen_t len = sizeof v;
  if (getsockopt(s, SOL_SOCKET, SO_TIMESTAMPNS, &v, &len) == 0 && v == 1)
    return 1;
  return int_opt(s, SOL_SOCKET, SO_TIMESTAMP) == 1;
}

/* Same family, port and host bytes. */
static void assert_same_addr(const itg__addr *a, const itg__addr *b) {
  assert_int_equal(a->ss.ss_family, b->ss.ss_family);
  assert_int_equal(itg__addr_port(a), itg__addr_port(b));
  if (a->ss.ss_family == AF_INET)
    assert_memory_equal(&((const struct sockaddr_in *)&a->ss)->sin_addr,
                        &((const struct sockaddr_in *)&b->ss)->sin_addr, 4);
  else
    assert_memory_equal(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr,
                        &((const struct sockaddr_in6 *)&b->ss)->sin6_addr, 16);
}

/* Datagram i: length 10 + 3 i, bytes (i * 7 + j) & 0xff. */
static size_t fill_dgram(uint8_t *buf, int i) {
  size_t len = 10 + 3 * (size_t)i;
  for (size_t j = 0; j < len; j++)
    buf[j] = (uint8_t)(i * 7 + j);
  return len;
}

/* Receives exactly n datagrams into d, waiting for readiness between
 * batches (bounded: 5 s per wait). */
static void recv_all(itg__sock s, itg__dgram *d, int n) {
  int got = 0;
  while (got < n) {
    assert_int_equal(itg__sock_wait_readable(s, 5 * SEC), 1);
    int r = itg__recv_batch(s, d + got, n - got);
    assert_true(r >= 0);
    got += r;
  }
}

/* ---- addresses ------------------------------------------------------- */

static void test_resolve_and_format(void **state) {
  char buf[64];
  (void)state;

  itg__addr a = resolve("127.0.0.1", 9, 0);
  assert_int_equal(a.ss.ss_family, AF_INET);
  assert_int_equal(a.len, sizeof(struct sockaddr_in));
  assert_int_equal(itg__addr_port(&a), 9);
  itg__addr_format(&a, buf, sizeof buf);
  assert_string_equal(buf, "127.0.0.1:9");

  a = resolve("::1", 9, 0);
  assert_int_equal(a.ss.ss_family, AF_INET6);
  assert_int_equal(a.len, sizeof(struct sockaddr_in6));
  itg__addr_format(&a, buf, sizeof buf);
  assert_string_equal(buf, "[::1]:9");

  a = resolve("localhost", 65535, 0);
  assert_int_equal(itg__addr_port(&a), 65535);
  assert_true(a.ss.ss_family == AF_INET || a.ss.ss_family == AF_INET6);

  a = resolve("::1", 9, 0);
  itg__addr_set_port(&a, 4321);
  assert_int_equal(itg__addr_port(&a), 4321);
  itg__addr_format(&a, buf, sizeof buf);
  assert_string_equal(buf, "[::1]:4321");
  a = resolve("127.0.0.1", 9, 0);
  itg__addr_set_port(&a, 65000);
  itg__addr_format(&a, buf, sizeof buf);
  assert_string_equal(buf, "127.0.0.1:65000");
  memset(&a, 0, sizeof a);
  a.ss.ss_family = AF_UNIX;
  itg__addr_set_port(&a, 7);
  assert_int_equal(itg__addr_port(&a), 0);
  itg__addr_format(&a, buf, sizeof buf);
  assert_string_equal(buf, "?");

  /* Truncated to len - 1 and terminated. */
  a = resolve("127.0.0.1", 9, 0);
  itg__addr_format(&a, buf, 5);
  assert_string_equal(buf, "127.");
  buf[0] = 'x';
  itg__addr_format(&a, buf, 0);
  assert_int_equal(buf[0], 'x');
}

static void test_resolve_wildcard(void **state) {
  char buf[64];
  (void)state;
  for (int k = 0; k < 2; k++) {
    itg__addr a = resolve(k == 0 ? NULL : "", 5000, 1);
    /* This machine has IPv6: the wildcard is the dual-stack ::. */
    assert_int_equal(a.ss.ss_family, AF_INET6);
    assert_int_equal(itg__addr_port(&a), 5000);
    itg__addr_format(&a, buf, sizeof buf);
    assert_string_equal(buf, "[::]:5000");
  }
}

static void test_resolve_bad(void **state) {
  itg__addr a;
  (void)state;
  /* An empty label: refused by the resolver without asking any server. */
  assert_int_equal(itg__addr_resolve("bad..host", 9, 0, &a), ITG_EADDR);
  assert_int_equal(itg__addr_resolve("bad..host", 9, 1, &a), ITG_EADDR);
  /* No destination. */
  assert_int_equal(itg__addr_resolve(NULL, 9, 0, &a), ITG_EADDR);
  assert_int_equal(itg__addr_resolve("", 9, 0, &a), ITG_EADDR);
}

/* ---- datagrams ------------------------------------------------------- */

/* 32 distinct datagrams from tx to rx in one batch; all arrive, intact,
 * from tx's address, with kernel timestamps near the wall clock. Not
 * necessarily in order: Linux turns its early (queueing) stamps on a
 * moment after the first socket asks for them, and stamps a datagram that
 * missed them when it is read, later than the next ones. */
static void batch_round_trip(const char *host) {
  static uint8_t out[NDGRAM][256], in[NDGRAM][256];
  itg__dgram sd[NDGRAM], rd[NDGRAM];
  itg__addr peers[NDGRAM];
  itg__addr any = resolve(host, 0, 1);
  itg__sock rx = bound(&any, 1), tx = bound(&any, 1);
  itg__addr rx_addr = local_of(rx), tx_addr = local_of(tx);
  int sent = 0;

  assert_int_equal(itg__sock_set_rx_timestamps(rx), 0);
  for (int i = 0; i < NDGRAM; i++) {
    sd[i] = (itg__dgram){.buf = out[i], .len = fill_dgram(out[i], i),
                         .peer = &rx_addr};
    rd[i] = (itg__dgram){.buf = in[i], .cap = sizeof in[i], .peer = &peers[i]};
  }
  int64_t t0 = itg__real_ns();
  while (sent < NDGRAM) {
    int r = itg__send_batch(tx, sd + sent, NDGRAM - sent);
    assert_true(r > 0);
    sent += r;
  }
  recv_all(rx, rd, NDGRAM);
  int64_t t1 = itg__real_ns();

  for (int i = 0; i < NDGRAM; i++) {
    assert_int_equal(rd[i].len, sd[i].len);
    assert_memory_equal(rd[i].buf, out[i], sd[i].len);
    assert_same_addr(&peers[i], &tx_addr);
    assert_true(rd[i].rx_ns >= t0 - 5 * SEC && rd[i].rx_ns <= t1 + 5 * SEC);
  }
  /* Nothing left: returns at once with 0. */
  assert_int_equal(itg__recv_batch(rx, rd, NDGRAM), 0);
  assert_int_equal(itg__sock_wait_readable(rx, 0), 0);
  itg__sock_close(tx);
  itg__sock_close(rx);
}

static void test_batch_v4(void **state) {
  (void)state;
  batch_round_trip("127.0.0.1");
}

static void test_batch_v6(void **state) {
  (void)state;
  batch_round_trip("::1");
}

/* More datagrams than one system call takes, on a connected socket (no
 * per-datagram peer), and without timestamps: rx_ns stays 0. */
static void test_batch_large_connected(void **state) {
  enum { N = 150 };
  static uint8_t out[N][4], in[N][4];
  static itg__dgram sd[N], rd[N];
  itg__addr lo = resolve("127.0.0.1", 0, 1);
  itg__sock rx = bound(&lo, 1), tx = bound(&lo, 1);
  itg__addr rx_addr = local_of(rx);
  int sent = 0;
  (void)state;

  assert_int_equal(itg__sock_connect(tx, &rx_addr, SEC), 0);
  /* Room for all of them at once, whatever the default. */
  assert_int_equal(itg__sock_set_bufs(rx, 0, 1 << 20), 0);
  for (int i = 0; i < N; i++) {
    memcpy(out[i], &i, sizeof i);
    sd[i] = (itg__dgram){.buf = out[i], .len = sizeof i};
    rd[i] = (itg__dgram){.buf = in[i], .cap = sizeof in[i], .rx_ns = -1};
  }
  while (sent < N) {
    int r = itg__send_batch(tx, sd + sent, N - sent);
    assert_true(r > 0);
    sent += r;
  }
  recv_all(rx, rd, N);
  for (int i = 0; i < N; i++) {
    assert_int_equal(rd[i].len, sizeof i);
    assert_memory_equal(in[i], &i, sizeof i);
    assert_int_equal(rd[i].rx_ns, 0);
  }
  assert_int_equal(itg__send_batch(tx, sd, 0), 0);
  assert_int_equal(itg__recv_batch(rx, rd, 0), 0);
  itg__sock_close(tx);
  itg__sock_close(rx);
}

/* A datagram longer than the buffer is cut to the buffer. */
static void test_recv_truncates(void **state) {
  uint8_t out[100], in[16];
  itg__addr lo = resolve("127.0.0.1", 0, 1);
  itg__sock rx = bound(&lo, 1), tx = bound(&lo, 1);
  itg__addr rx_addr = local_of(rx);
  itg__dgram sd = {.buf = out, .len = fill_dgram(out, 30), .peer = &rx_addr};
  itg__dgram rd = {.buf = in, .cap = sizeof in};
  (void)state;

  assert_int_equal(itg__send_batch(tx, &sd, 1), 1);
  recv_all(rx, &rd, 1);
  assert_int_equal(rd.len, sizeof in);
  assert_memory_equal(in, out, sizeof in);
  itg__sock_close(tx);
  itg__sock_close(rx);
}

/* The wildcard socket is dual-stack: it hears IPv4 senders, as
 * IPv4-mapped addresses. */
static void test_wildcard_dual_stack(void **state) {
  uint8_t out[8] = "dual", in[8];
  itg__addr any = resolve(NULL, 0, 1);
  itg__addr lo = resolve("127.0.0.1", 0, 1);
  itg__sock rx = bound(&any, 1), tx = bound(&lo, 1);
  itg__addr rx_local = local_of(rx), tx_local = local_of(tx);
  itg__addr to = resolve("127.0.0.1", itg__addr_port(&rx_local), 0);
  itg__addr from;
  itg__dgram sd = {.buf = out, .len = 4, .peer = &to};
  itg__dgram rd = {.buf = in, .cap = sizeof in, .peer = &from};
  char buf[64], want[64];
  (void)state;

  assert_int_equal(rx_local.ss.ss_family, AF_INET6);
  assert_int_equal(itg__send_batch(tx, &sd, 1), 1);
  recv_all(rx, &rd, 1);
  assert_int_equal(rd.len, 4);
  assert_memory_equal(in, "dual", 4);
  assert_int_equal(from.ss.ss_family, AF_INET6);
  assert_true(IN6_IS_ADDR_V4MAPPED(
      &((const struct sockaddr_in6 *)&from.ss)->sin6_addr));
  itg__addr_format(&from, buf, sizeof buf);
  snprintf(want, sizeof want, "[::ffff:127.0.0.1]:%u",
           (unsigned)itg__addr_port(&tx_local));
  assert_string_equal(buf, want);
  itg__sock_close(tx);
  itg__sock_close(rx);
}

static void test_bind_twice(void **state) {
  (void)state;
  for (int dgram = 0; dgram < 2; dgram++) {
    itg__addr lo = resolve("127.0.0.1", 0, 1);
    itg__sock a = bound(&lo, dgram), b;
    itg__addr taken = local_of(a);
    if (!dgram)
      assert_int_equal(listen(a, 1), 0);
    assert_int_equal(itg__sock_open(&taken, dgram, &b), 0);
    assert_int_equal(itg__sock_bind(b, &taken), ITG_EADDRINUSE);
    itg__sock_close(b);
    itg__sock_close(a);
  }
}

/* ---- streams --------------------------------------------------------- */

static void test_connect_refused(void **state) {
  (void)state;
  for (int v6 = 0; v6 < 2; v6++) {
    /* A port bound but not listening refuses, and stays ours. */
    itg__addr lo = resolve(v6 ? "::1" : "127.0.0.1", 0, 1);
    itg__sock holder = bound(&lo, 0), c;
    itg__addr closed = local_of(holder);
    assert_int_equal(itg__sock_open(&closed, 0, &c), 0);
    assert_int_equal(itg__sock_connect(c, &closed, 5 * SEC), ITG_ECONNREFUSED);
    itg__sock_close(c);
    itg__sock_close(holder);
  }
}

/* Sends all of buf, blocking. */
static void send_all(itg__sock s, const char *buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    int r = itg__stream_send(s, (const uint8_t *)buf + done, len - done);
    assert_true(r > 0);
    done += (size_t)r;
  }
}

/* Receives exactly len bytes, blocking. */
static void recv_exact(itg__sock s, char *buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    int r = itg__stream_recv(s, (uint8_t *)buf + done, len - done);
    assert_true(r > 0);
    done += (size_t)r;
  }
}

static void stream_round_trip(const char *host) {
  char buf[16];
  itg__addr lo = resolve(host, 0, 1);
  itg__sock lst = bound(&lo, 0), c, srv;
  itg__addr where = local_of(lst);
  int r = ITG_EINVAL;

  assert_int_equal(listen(lst, 4), 0);
  assert_int_equal(itg__sock_open(&where, 0, &c), 0);
  assert_int_equal(itg__sock_connect(c, &where, 5 * SEC), 0);
  /* The socket's blocking mode is as it was. */
  assert_int_equal(fcntl(c, F_GETFL) & O_NONBLOCK, 0);
  srv = accept(lst, NULL, NULL);
  assert_true(srv >= 0);

  send_all(c, "ping", 4);
  recv_exact(srv, buf, 4);
  assert_memory_equal(buf, "ping", 4);
  send_all(srv, "pong!", 5);
  recv_exact(c, buf, 5);
  assert_memory_equal(buf, "pong!", 5);

  /* Nothing to read on a non-blocking socket: 0; an empty read: 0. */
  assert_int_equal(itg__sock_set_nonblock(srv, 1), 0);
  assert_int_equal(itg__stream_recv(srv, (uint8_t *)buf, sizeof buf), 0);
  assert_int_equal(itg__stream_recv(srv, (uint8_t *)buf, 0), 0);
  assert_int_equal(itg__sock_set_nonblock(srv, 0), 0);

  /* The client goes: the server reads ECLOSED, and its writes end in
   * ECLOSED too (no SIGPIPE). The first write may still be accepted. */
  itg__sock_close(c);
  assert_int_equal(itg__sock_wait_readable(srv, 5 * SEC), 1);
  assert_int_equal(itg__stream_recv(srv, (uint8_t *)buf, sizeof buf),
                   ITG_ECLOSED);
  for (int i = 0; i < 100; i++) {
    r = itg__stream_send(srv, (const uint8_t *)"x", 1);
    if (r < 0)
      break;
    assert_int_equal(r, 1);
  }
  assert_int_equal(r, ITG_ECLOSED);
  itg__sock_close(srv);
  itg__sock_close(lst);
}

static void test_stream_v4(void **state) {
  (void)state;
  stream_round_trip("127.0.0.1");
}

static void test_stream_v6(void **state) {
  (void)state;
  stream_round_trip("::1");
}

/* ---- options --------------------------------------------------------- */

static void options_on(const char *host) {
  itg__addr lo = resolve(host, 0, 1);
  int v6 = lo.ss.ss_family == AF_INET6;
  itg__sock u, t;

  assert_int_equal(itg__sock_open(&lo, 1, &u), 0);
  assert_int_equal(itg__sock_open(&lo, 0, &t), 0);

  assert_int_equal(itg__sock_set_tos(u, 0xb8), 0);
  assert_int_equal(v6 ? int_opt(u, IPPROTO_IPV6, IPV6_TCLASS)
                      : int_opt(u, IPPROTO_IP, IP_TOS),
                   0xb8);
  assert_int_equal(itg__sock_set_ttl(u, 17), 0);
  assert_int_equal(v6 ? int_opt(u, IPPROTO_IPV6, IPV6_UNICAST_HOPS)
                      : int_opt(u, IPPROTO_IP, IP_TTL),
                   17);
  if (v6) {
    /* The IPv4 side of the dual-stack socket is marked as well. */
    assert_int_equal(int_opt(u, IPPROTO_IP, IP_TOS), 0xb8);
    assert_int_equal(int_opt(u, IPPROTO_IP, IP_TTL), 17);
  }
  assert_int_equal(itg__sock_set_tos(u, 256), ITG_EINVAL);
  assert_int_equal(itg__sock_set_tos(u, -1), ITG_EINVAL);
  assert_int_equal(itg__sock_set_ttl(u, 0), ITG_EINVAL);
  assert_int_equal(itg__sock_set_ttl(u, 256), ITG_EINVAL);

  /* 128 KiB is below the default system cap, so root or not it holds
   * (Linux reports twice the size asked for). */
  assert_int_equal(itg__sock_set_bufs(u, 128 * 1024, 128 * 1024), 0);
  int snd = int_opt(u, SOL_SOCKET, SO_SNDBUF);
  int rcv = int_opt(u, SOL_SOCKET, SO_RCVBUF);
  assert_true(snd >= 128 * 1024);
  assert_true(rcv >= 128 * 1024);
  assert_int_equal(itg__sock_set_bufs(u, 0, -1), 0);
  assert_int_equal(int_opt(u, SOL_SOCKET, SO_SNDBUF), snd);
  assert_int_equal(int_opt(u, SOL_SOCKET, SO_RCVBUF), rcv);

  assert_int_equal(itg__sock_set_nonblock(u, 1), 0);
  assert_int_not_equal(fcntl(u, F_GETFL) & O_NONBLOCK, 0);
  assert_int_equal(itg__sock_set_nonblock(u, 0), 0);
  assert_int_equal(fcntl(u, F_GETFL) & O_NONBLOCK, 0);

  assert_int_equal(itg__sock_set_rx_timestamps(u), 0);
  assert_true(rx_timestamps_on(u));

  assert_int_equal(itg__sock_set_nodelay(t, 1), 0);
  assert_int_equal(int_opt(t, IPPROTO_TCP, TCP_NODELAY), 1);
  assert_int_equal(itg__sock_set_nodelay(t, 0), 0);
  assert_int_equal(int_opt(t, IPPROTO_TCP, TCP_NODELAY), 0);
  assert_int_equal(itg__sock_set_nodelay(u, 1), ITG_ENOTSUP);
  assert_int_equal(itg__sock_set_tos(t, 0x20), 0);
  assert_int_equal(itg__sock_set_ttl(t, 64), 0);

  /* Sockets are close-on-exec, and IPv6 ones dual-stack. */
  assert_int_not_equal(fcntl(u, F_GETFD) & FD_CLOEXEC, 0);
  if (v6)
    assert_int_equal(int_opt(u, IPPROTO_IPV6, IPV6_V6ONLY), 0);

  itg__sock_close(t);
  itg__sock_close(u);
}

static void test_options_v4(void **state) {
  (void)state;
  options_on("127.0.0.1");
}

static void test_options_v6(void **state) {
  (void)state;
  options_on("::1");
}

static void test_open_bad_family(void **state) {
  itg__addr a;
  itg__sock s = ITG__BAD_SOCK;
  (void)state;
  memset(&a, 0, sizeof a);
  a.ss.ss_family = AF_UNIX;
  assert_int_equal(itg__sock_open(&a, 1, &s), ITG_EINVAL);
  assert_int_equal(s, ITG__BAD_SOCK);
  itg__sock_close(ITG__BAD_SOCK);
}

static void test_last_error_map(void **state) {
  static const struct {
    int errno_value, code;
  } map[] = {{EAGAIN, 0},
             {EWOULDBLOCK, 0},
             {ENOBUFS, 0},
             {ECONNREFUSED, ITG_ECONNREFUSED},
             {EADDRINUSE, ITG_EADDRINUSE},
             {EADDRNOTAVAIL, ITG_EADDR},
             {ETIMEDOUT, ITG_ETIMEDOUT},
             {ECONNRESET, ITG_ECLOSED},
             {EPIPE, ITG_ECLOSED},
             {EACCES, ITG_EPERM},
             {EMSGSIZE, ITG_ERANGE},
             {EMFILE, ITG_ELIMIT},
             {ENOTCONN, ITG_ESTATE},
             {ENOPROTOOPT, ITG_ENOTSUP},
             {EBADF, ITG_ESOCKET}};
  (void)state;
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    errno = map[i].errno_value;
    assert_int_equal(itg__sock_last_error(), map[i].code);
  }
}

/* ---- clocks and threads ---------------------------------------------- */

static void test_sleep_until(void **state) {
  (void)state;
  for (int i = 0; i < 50; i++) {
    int64_t deadline = (int64_t)uv_hrtime() + 50000 * (i % 5);
    itg__sleep_until(deadline);
    assert_true((int64_t)uv_hrtime() >= deadline);
  }
  /* Past and non-positive deadlines return. */
  itg__sleep_until((int64_t)uv_hrtime() - SEC);
  itg__sleep_until(0);
  itg__sleep_until(INT64_MIN);
  itg__cpu_relax();
  itg__yield();
}

/* The timer slack is per thread: a thread that sleeps through the layer
 * gets 1 ns, whichever thread ran the process set-up. */
static void *slack_of_sleeper(void *arg) {
  (void)arg;
  /* A new thread inherits its creator's slack: start from the default. */
  if (prctl(PR_SET_TIMERSLACK, 50000UL, 0UL, 0UL, 0UL) != 0)
    return (void *)(intptr_t)-1;
  itg__sleep_until((int64_t)uv_hrtime() + 1000);
  return (void *)(intptr_t)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
}

static void test_timer_slack(void **state) {
  pthread_t th;
  void *slack;
  (void)state;
  assert_int_equal(itg__platform_init(), 0);
  assert_int_equal(itg__platform_init(), 0);
  assert_int_equal(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), 1);
  assert_int_equal(pthread_create(&th, NULL, slack_of_sleeper, NULL), 0);
  assert_int_equal(pthread_join(th, &slack), 0);
  assert_int_equal((intptr_t)slack, 1);
}

static void *pin_thread(void *arg) {
  cpu_set_t set;
  int *ok = arg;
  *ok = itg__thread_pin(0) == 0 &&
        pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0 &&
        CPU_COUNT(&set) == 1 && CPU_ISSET(0, &set);
  return NULL;
}

static void test_thread_pin(void **state) {
  pthread_t th;
  int ok = 0;
  (void)state;
  /* In a thread of its own, so the test process keeps its CPUs. */
  assert_int_equal(pthread_create(&th, NULL, pin_thread, &ok), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
  assert_true(ok);
  assert_int_equal(itg__thread_pin(-1), ITG_EINVAL);
  assert_int_equal(itg__thread_pin(CPU_SETSIZE), ITG_EINVAL);
  /* CPU_SETSIZE - 1 exists on no machine this runs on. */
  assert_int_equal(itg__thread_pin(CPU_SETSIZE - 1), ITG_EINVAL);
}

static void *boost_thread(void *arg) {
  int *result = arg;
  int rc = itg__thread_boost();
  int nice_now = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
  /* Either raised, or refused for want of privilege. */
  *result = (rc == 0 && nice_now <= -10) || rc == ITG_EPERM;
  return NULL;
}

static void test_thread_boost(void **state) {
  pthread_t th;
  int ok = 0;
  (void)state;
  assert_int_equal(pthread_create(&th, NULL, boost_thread, &ok), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
  assert_true(ok);
}

/* Writes with write(2), as libuv does, to a socket whose peer is gone,
 * from a thread that has blocked SIGPIPE; returns the errno. */
static void *write_to_closed(void *arg) {
  int *sv = arg;
  int err = 0;
  itg__thread_block_sigpipe();
  close(sv[1]);
  if (write(sv[0], "x", 1) < 0)
    err = errno;
  return (void *)(intptr_t)err;
}

/* With SIGPIPE's default disposition (it would end the process), such a
 * write fails with EPIPE instead; the other threads' masks are left as
 * they were. */
static void test_block_sigpipe(void **state) {
  struct sigaction sa;
  sigset_t mask;
  pthread_t t;
  void *res;
  int sv[2];
  (void)state;
  assert_int_equal(sigaction(SIGPIPE, NULL, &sa), 0);
  assert_true(sa.sa_handler == SIG_DFL);
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  assert_int_equal(pthread_create(&t, NULL, write_to_closed, sv), 0);
  assert_int_equal(pthread_join(t, &res), 0);
  assert_int_equal((intptr_t)res, EPIPE);
  close(sv[0]);
  assert_int_equal(pthread_sigmask(SIG_BLOCK, NULL, &mask), 0);
  assert_false(sigismember(&mask, SIGPIPE));
}

/* The soft limit on descriptors goes up to the hard one. */
static void test_fd_limit(void **state) {
  struct rlimit rl, low;
  (void)state;
  assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
  low = rl;
  low.rlim_cur = rl.rlim_max < 256 ? rl.rlim_max : 256;
  assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
  assert_int_equal(itg__fd_limit(), low.rlim_cur);
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= UINT32_MAX)
    assert_int_equal(itg_fd_limit_raise(), rl.rlim_max);
  else
    itg_fd_limit_raise();
  assert_int_equal(getrlimit(RLIMIT_NOFILE, &low), 0);
  assert_true(low.rlim_cur >= rl.rlim_cur);
}

/* itg__file_create makes a new file and nothing else: an existing file,
 * a link to one and a dangling link are all "taken", and none is
 * touched. */
static void test_file_create(void **state) {
  char dir[256], path[512], target[512], text[16];
  FILE *f;
  int fd;
  (void)state;
  assert_int_equal(tmpdir_make(dir, sizeof dir, "itg-file-"), 0);
  snprintf(target, sizeof target, "%s/target", dir);
  fd = open(target, O_WRONLY | O_CREAT, 0644);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "keep", 4), 4);
  close(fd);

  assert_int_equal(itg__file_create(target, &f), ITG_EBUSY);
  snprintf(path, sizeof path, "%s/link", dir);
  assert_int_equal(symlink(target, path), 0);
  assert_int_equal(itg__file_create(path, &f), ITG_EBUSY);
  snprintf(path, sizeof path, "%s/dangling", dir);
  assert_int_equal(symlink("missing", path), 0);
  assert_int_equal(itg__file_create(path, &f), ITG_EBUSY);
  snprintf(path, sizeof path, "%s/missing", dir);
  assert_int_equal(access(path, F_OK), -1);
  fd = open(target, O_RDONLY);
  assert_int_equal(read(fd, text, sizeof text), 4);
  close(fd);
  assert_memory_equal(text, "keep", 4);

  snprintf(path, sizeof path, "%s/new", dir);
  assert_int_equal(itg__file_create(path, &f), 0);
  assert_int_equal(fputs("x", f) >= 0, 1);
  assert_int_equal(fcntl(fileno(f), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  assert_int_equal(fclose(f), 0);
  snprintf(path, sizeof path, "%s/no-dir/new", dir);
  assert_int_equal(itg__file_create(path, &f), ITG_ENOENT);

  assert_int_equal(tmpdir_remove(dir), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resolve_and_format),
      cmocka_unit_test(test_resolve_wildcard),
      cmocka_unit_test(test_resolve_bad),
      cmocka_unit_test(test_batch_v4),
      cmocka_unit_test(test_batch_v6),
      cmocka_unit_test(test_batch_large_connected),
      cmocka_unit_test(test_recv_truncates),
      cmocka_unit_test(test_wildcard_dual_stack),
      cmocka_unit_test(test_bind_twice),
      cmocka_unit_test(test_connect_refused),
      cmocka_unit_test(test_stream_v4),
      cmocka_unit_test(test_stream_v6),
      cmocka_unit_test(test_options_v4),
      cmocka_unit_test(test_options_v6),
      cmocka_unit_test(test_open_bad_family),
      cmocka_unit_test(test_last_error_map),
      cmocka_unit_test(test_sleep_until),
      cmocka_unit_test(test_timer_slack),
      cmocka_unit_test(test_block_sigpipe),
      cmocka_unit_test(test_fd_limit),
      cmocka_unit_test(test_thread_pin),
      cmocka_unit_test(test_thread_boost),
      cmocka_unit_test(test_file_create),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
