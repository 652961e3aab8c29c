/* blaster: the ceiling, how many UDP datagrams per second a bare loop puts
 * on loopback on this machine, with nothing else to do: no pacing, no
 * timestamps, no log. Paced and with D-ITG's header, the one sender that
 * feeds every receiver the benchmark compares.
 *
 *   blaster send PORT SECONDS SIZE BATCH [--rate PPS] [--ditg FLOWID]
 *                                          prints "sent N pps R"
 *   blaster sink PORT SECONDS [--stamps]   prints "sink received N"
 *
 * The sender sends SIZE-byte datagrams to 127.0.0.1:PORT for SECONDS, one
 * send() at a time when BATCH is 1, otherwise up to BATCH at a time with
 * sendmmsg(). Every payload is zeros: one size and one first word, as a
 * single flow looks on the wire. With --ditg, each payload starts with
 * D-ITG's data header (big endian: FLOWID, the sequence number from 1,
 * the send time as seconds of the UTC day and microseconds, read once per
 * call), so that a receiver with a D-ITG flow of that id open on PORT
 * (ITGRecv, itg-recv) takes and logs every datagram. With --rate, the
 * datagrams follow an absolute schedule, datagram k at start + k / PPS:
 * the sender sleeps (clock_nanosleep, TIMER_ABSTIME) until the next one is
 * due, then sends every datagram due by then, at most BATCH a call.
 *
 * The sink reads 127.0.0.1:PORT for SECONDS, or until SIGINT or SIGTERM,
 * and says how many datagrams it got; without it the kernel would answer
 * the sender with port-unreachable errors. With --stamps it also asks the
 * kernel for what a receiver that logs each datagram needs of it: its
 * receive time (SO_TIMESTAMPNS) and its source address, read from each
 * datagram's header; the kernel's price of these is then part of the
 * sink's rate. Like wiretap, it shares no code with libitg. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 1024
#define MAX_SIZE 65507
#define DITG_HDR 16
/* Each datagram of a batch has its own payload when it carries a header. */
#define DITG_BUF 2048
#define MAX_RATE 100000000
#define SINK_BATCH 256
/* The sink reads into buffers this long: longer datagrams are counted all
 * the same, truncated. */
#define SINK_BUF 2048

static double monotonic_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void usage(void) {
  fprintf(stderr, "usage: blaster send PORT SECONDS SIZE BATCH [--rate PPS] [--ditg FLOWID]\n"
                  "       blaster sink PORT SECONDS [--stamps]\n");
  exit(2);
}

static void fail(const char *what) {
  fprintf(stderr, "blaster: %s: %s\n", what, strerror(errno));
  exit(1);
}

static long number(const char *s, long lo, long hi) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) {
    fprintf(stderr, "blaster: %s is not a number in %ld..%ld\n", s, lo, hi);
    exit(2);
  }
  return v;
}

static double seconds_arg(const char *s) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || !(v > 0 && v <= 3600)) {
    fprintf(stderr, "blaster: SECONDS: %s is not a duration in (0, 3600]\n", s);
    exit(2);
  }
  return v;
}

static volatile sig_atomic_t stop_sink;

static void on_stop(int sig) {
  (void)sig;
  stop_sink = 1;
}

/* Room for one SCM_TIMESTAMPNS control message. */
typedef union {
  struct cmsghdr align;
  char buf[CMSG_SPACE(sizeof(struct timespec))];
} stamp_buf;

static int sink(int fd, const struct sockaddr_in *to, double seconds, int stamps) {
  static char bufs[SINK_BATCH][SINK_BUF];
  static struct iovec iov[SINK_BATCH];
  static struct mmsghdr msgs[SINK_BATCH];
  static struct sockaddr_in from[SINK_BATCH];
  static stamp_buf ctrl[SINK_BATCH];
  /* A deep queue, so that the sink's own pauses do not show as loss. */
  int rcvbuf = 1 << 26;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) < 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  /* Wakes the loop now and then to look at the clock. */
  struct timeval tick = {.tv_usec = 100000};
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof tick) < 0)
    fail("SO_RCVTIMEO");
  int on = 1;
  if (stamps && setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) < 0)
    fail("SO_TIMESTAMPNS");
  if (bind(fd, (const struct sockaddr *)to, sizeof *to) < 0)
    fail("bind");
  for (int i = 0; i < SINK_BATCH; i++) {
    iov[i] = (struct iovec){.iov_base = bufs[i], .iov_len = SINK_BUF};
    msgs[i].msg_hdr = (struct msghdr){.msg_iov = &iov[i], .msg_iovlen = 1};
  }
  /* Without SA_RESTART, a signal cuts the wait short. */
  struct sigaction sa = {.sa_handler = on_stop};
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  unsigned long long got = 0, stamped = 0;
  double end = monotonic_s() + seconds;
  while (!stop_sink && monotonic_s() < end) {
    if (stamps)
      for (int i = 0; i < SINK_BATCH; i++) {
        /* the kernel shortens both lengths to what it wrote */
        msgs[i].msg_hdr.msg_name = &from[i];
        msgs[i].msg_hdr.msg_namelen = sizeof from[i];
        msgs[i].msg_hdr.msg_control = ctrl[i].buf;
        msgs[i].msg_hdr.msg_controllen = sizeof ctrl[i].buf;
      }
    int k = recvmmsg(fd, msgs, SINK_BATCH, MSG_WAITFORONE, NULL);
    if (k > 0)
      got += (unsigned)k;
    else if (errno != EAGAIN && errno != EINTR)
      fail("recvmmsg");
    for (int i = 0; stamps && i < k; i++) {
      struct cmsghdr *c = CMSG_FIRSTHDR(&msgs[i].msg_hdr);
      stamped += c != NULL && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS &&
                 from[i].sin_family == AF_INET;
    }
  }
  if (stamps && stamped != got)
    fprintf(stderr, "blaster: sink: %llu datagrams came without a time or an address\n", got - stamped);
  printf("sink received %llu\n", got);
  return 0;
}

/* How to send: the options after BATCH. */
struct plan {
  size_t size;
  int batch;
  double rate;   /* datagrams per second; 0: as fast as it can */
  int ditg;      /* each payload starts with D-ITG's header */
  uint32_t flow; /* its flow id */
};

static void put_be32(char *p, uint32_t v) {
  p[0] = (char)(v >> 24);
  p[1] = (char)(v >> 16);
  p[2] = (char)(v >> 8);
  p[3] = (char)v;
}

/* Writes D-ITG's header into the next n payloads, numbered from seq. */
static void stamp(char (*bufs)[DITG_BUF], int n, uint32_t flow, unsigned long long seq) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  uint32_t day_s = (uint32_t)(t.tv_sec % 86400), us = (uint32_t)(t.tv_nsec / 1000);
  for (int i = 0; i < n; i++) {
    put_be32(bufs[i], flow);
    put_be32(bufs[i] + 4, (uint32_t)(seq + (unsigned)i));
    put_be32(bufs[i] + 8, day_s);
    put_be32(bufs[i] + 12, us);
  }
}

static int blast(int fd, const struct sockaddr_in *to, double seconds, const struct plan *pl) {
  static char payload[MAX_SIZE];
  static char bufs[MAX_BATCH][DITG_BUF];
  static struct iovec iov[MAX_BATCH];
  static struct mmsghdr msgs[MAX_BATCH];
  if (connect(fd, (const struct sockaddr *)to, sizeof *to) < 0)
    fail("connect");
  for (int i = 0; i < pl->batch; i++) {
    iov[i] = (struct iovec){.iov_base = pl->ditg ? bufs[i] : payload, .iov_len = pl->size};
    msgs[i].msg_hdr = (struct msghdr){.msg_iov = &iov[i], .msg_iovlen = 1};
  }
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* sent: what left; tried: the schedule's count, so that a failed call
   * does not make the loop send faster afterwards. */
  unsigned long long sent = 0, tried = 0;
  double start = monotonic_s(), end = start + seconds, now = start;
  /* Errors (a full queue, an unreachable port) cost the loop a turn and
   * count for nothing: the figure is what left, not what was tried. */
  while (now < end) {
    int n = pl->batch;
    if (pl->rate > 0) {
      unsigned long long due = (unsigned long long)((now - start) * pl->rate) + 1;
      if (due <= tried) {
        double at = (double)tried / pl->rate;
        struct timespec wake = {.tv_sec = t0.tv_sec + (time_t)at,
                                .tv_nsec = t0.tv_nsec + (long)((at - (double)(time_t)at) * 1e9)};
        if (wake.tv_nsec >= 1000000000L) {
          wake.tv_sec++;
          wake.tv_nsec -= 1000000000L;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL);
        now = monotonic_s();
        continue;
      }
      if (due - tried < (unsigned long long)n)
        n = (int)(due - tried);
    }
    if (pl->ditg)
      stamp(bufs, n, pl->flow, sent + 1);
    tried += (unsigned)n;
    if (pl->batch == 1) {
      if (send(fd, pl->ditg ? bufs[0] : payload, pl->size, 0) >= 0)
        sent++;
    } else {
      int k = sendmmsg(fd, msgs, (unsigned)n, 0);
      if (k > 0)
        sent += (unsigned)k;
    }
    now = monotonic_s();
  }
  printf("sent %llu pps %.0f\n", sent, (double)sent / (now - start));
  return 0;
}

static double rate_arg(const char *s) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || !(v > 0 && v <= MAX_RATE)) {
    fprintf(stderr, "blaster: --rate: %s is not a rate in (0, %d]\n", s, MAX_RATE);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv) {
  if (argc < 4)
    usage();
  int send_mode = !strcmp(argv[1], "send");
  if (!send_mode && strcmp(argv[1], "sink"))
    usage();
  int stamps = !send_mode && argc == 5 && !strcmp(argv[4], "--stamps");
  if (send_mode ? argc < 6 : argc != 4 + stamps)
    usage();
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  to.sin_port = htons((unsigned short)number(argv[2], 1, 65535));
  double seconds = seconds_arg(argv[3]);
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0)
    fail("socket");
  if (!send_mode)
    return sink(fd, &to, seconds, stamps);
  struct plan pl = {.size = (size_t)number(argv[4], 0, MAX_SIZE), .batch = (int)number(argv[5], 1, MAX_BATCH)};
  for (int i = 6; i < argc; i += 2) {
    if (i + 1 == argc)
      usage();
    if (!strcmp(argv[i], "--rate")) {
      pl.rate = rate_arg(argv[i + 1]);
    } else if (!strcmp(argv[i], "--ditg")) {
      pl.ditg = 1;
      pl.flow = (uint32_t)number(argv[i + 1], 0, 0x7fffffff);
    } else {
      usage();
    }
  }
  if (pl.ditg && (pl.size < DITG_HDR || pl.size > DITG_BUF)) {
    fprintf(stderr, "blaster: --ditg: SIZE must be in %d..%d\n", DITG_HDR, DITG_BUF);
    exit(2);
  }
  return blast(fd, &to, seconds, &pl);
}
