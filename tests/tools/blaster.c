/* blaster: the ceiling, how many UDP datagrams per second a bare loop puts
 * on loopback on this machine, with nothing else to do: no pacing, no
 * timestamps, no log.
 *
 *   blaster send PORT SECONDS SIZE BATCH   prints "sent N pps R"
 *   blaster sink PORT SECONDS              prints "sink received N"
 *
 * The sender sends SIZE-byte datagrams to 127.0.0.1:PORT for SECONDS, one
 * send() at a time when BATCH is 1, otherwise BATCH at a time with
 * sendmmsg(). Every payload is zeros: one size and one first word, as a
 * single flow looks on the wire. The sink reads 127.0.0.1:PORT for SECONDS
 * and says how many datagrams it got; without it the kernel would answer
 * the sender with port-unreachable errors. Like wiretap, it shares no code
 * with libitg. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 1024
#define MAX_SIZE 65507
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
  fprintf(stderr, "usage: blaster send PORT SECONDS SIZE BATCH\n"
                  "       blaster sink PORT SECONDS\n");
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

static int sink(int fd, const struct sockaddr_in *to, double seconds) {
  static char bufs[SINK_BATCH][SINK_BUF];
  static struct iovec iov[SINK_BATCH];
  static struct mmsghdr msgs[SINK_BATCH];
  /* A deep queue, so that the sink's own pauses do not show as loss. */
  int rcvbuf = 1 << 26;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) < 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  /* Wakes the loop now and then to look at the clock. */
  struct timeval tick = {.tv_usec = 100000};
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof tick) < 0)
    fail("SO_RCVTIMEO");
  if (bind(fd, (const struct sockaddr *)to, sizeof *to) < 0)
    fail("bind");
  for (int i = 0; i < SINK_BATCH; i++) {
    iov[i] = (struct iovec){.iov_base = bufs[i], .iov_len = SINK_BUF};
    msgs[i].msg_hdr = (struct msghdr){.msg_iov = &iov[i], .msg_iovlen = 1};
  }
  unsigned long long got = 0;
  double end = monotonic_s() + seconds;
  while (monotonic_s() < end) {
    int k = recvmmsg(fd, msgs, SINK_BATCH, MSG_WAITFORONE, NULL);
    if (k > 0)
      got += (unsigned)k;
    else if (errno != EAGAIN && errno != EINTR)
      fail("recvmmsg");
  }
  printf("sink received %llu\n", got);
  return 0;
}

static int blast(int fd, const struct sockaddr_in *to, double seconds, size_t size, int batch) {
  static char payload[MAX_SIZE];
  static struct iovec iov[MAX_BATCH];
  static struct mmsghdr msgs[MAX_BATCH];
  if (connect(fd, (const struct sockaddr *)to, sizeof *to) < 0)
    fail("connect");
  for (int i = 0; i < batch; i++) {
    iov[i] = (struct iovec){.iov_base = payload, .iov_len = size};
    msgs[i].msg_hdr = (struct msghdr){.msg_iov = &iov[i], .msg_iovlen = 1};
  }
  unsigned long long sent = 0;
  double start = monotonic_s(), end = start + seconds, now = start;
  /* Errors (a full queue, an unreachable port) cost the loop a turn and
   * count for nothing: the figure is what left, not what was tried. */
  while (now < end) {
    if (batch == 1) {
      if (send(fd, payload, size, 0) >= 0)
        sent++;
    } else {
      int k = sendmmsg(fd, msgs, (unsigned)batch, 0);
      if (k > 0)
        sent += (unsigned)k;
    }
    now = monotonic_s();
  }
  printf("sent %llu pps %.0f\n", sent, (double)sent / (now - start));
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4)
    usage();
  int send_mode = !strcmp(argv[1], "send");
  if (!send_mode && strcmp(argv[1], "sink"))
    usage();
  if (argc != (send_mode ? 6 : 4))
    usage();
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  to.sin_port = htons((unsigned short)number(argv[2], 1, 65535));
  double seconds = seconds_arg(argv[3]);
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0)
    fail("socket");
  if (!send_mode)
    return sink(fd, &to, seconds);
  return blast(fd, &to, seconds, (size_t)number(argv[4], 0, MAX_SIZE), (int)number(argv[5], 1, MAX_BATCH));
}
