/* bare_loop: the reference a traffic generator is compared with in the
 * benchmark. A plain paced UDP sender with no library behind it: an
 * absolute schedule (departure k is due at start + k / rate, so a late
 * wake-up never shifts the packets after it), clock_nanosleep to each
 * instant, one sendto per packet; or, with rate 0, sendto as fast as the
 * loop turns. It logs nothing and stamps only a sequence number, so what it
 * reaches is what any paced sender could reach on this machine with the
 * default timer slack and no spinning. With FLOWS above 1 it sends that
 * many flows of RATE each, one socket each as a traffic generator gives
 * its flows, all due at the same instants and sent in turn after one
 * sleep; each carries its flow id (1 to FLOWS) first, as D-ITG and libitg
 * do, so a capture tells them apart. The sink counts what arrives, so
 * that packets have somewhere to go and loss can be read.
 *
 * spin is the other reference for many flows: what the machine lets a
 * sender with no library do. Flow i of FLOWS is due i / FLOWS of a period
 * after the first, and each departure waits for its own instant by
 * reading the clock in a loop (no sleep, no wake-up), so it leaves late
 * only when the machine stops the loop; what it then owes leaves at once.
 *
 *   bare_loop send PORT RATE SECONDS [SIZE [FLOWS]]
 *                                   RATE in pkt/s (each flow's), 0 = no
 *                                   pacing; sends for SECONDS, not a count
 *   bare_loop spin PORT RATE SECONDS [SIZE [FLOWS]]
 *                                   RATE above 0: flows spread over the
 *                                   period, each departure spun for
 *   bare_loop sink PORT SECONDS     ends early on SIGINT/SIGTERM
 *
 * Traffic goes to 127.0.0.1 only. Each mode prints one line of results. */
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

#define NS_PER_S 1000000000LL
#define SINK_BATCH 256
#define SINK_SLOT 2048
#define MAX_SIZE 65507
#define MAX_FLOWS 1000

static volatile sig_atomic_t sink_stop;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

static struct timespec to_timespec(int64_t ns) {
  struct timespec t = {.tv_sec = ns / NS_PER_S, .tv_nsec = ns % NS_PER_S};
  return t;
}

/* Parses a whole decimal word within [lo, hi], a whole number if integer is
 * set; 0 on success. */
static int parse_num(const char *word, double lo, double hi, int integer,
                     double *out) {
  char *end;
  double v;
  errno = 0;
  v = strtod(word, &end);
  if (errno != 0 || end == word || *end != '\0' || !(v >= lo && v <= hi) ||
      (integer && v != (double)(int64_t)v)) {
    fprintf(stderr, "bare_loop: bad number '%s' (want %g..%g)\n", word, lo,
            hi);
    return -1;
  }
  *out = v;
  return 0;
}

static struct sockaddr_in loopback(uint16_t port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

/* The flow id (0 for a single flow) and the sequence number, big-endian,
 * where D-ITG and libitg keep theirs, so a capture of any of the three
 * reads the same way. */
static void stamp(unsigned char *buf, size_t size, uint32_t flow,
                  uint64_t seq) {
  if (size < 8)
    return;
  for (int i = 0; i < 4; i++) {
    buf[i] = (unsigned char)(flow >> (24 - 8 * i));
    buf[4 + i] = (unsigned char)(seq >> (24 - 8 * i));
  }
}

/* Sends FLOWS flows of RATE each for SECONDS (send and spin above). */
static int run_send(uint16_t port, double rate, double seconds, size_t size,
                    int flows, int spin) {
  static unsigned char buf[MAX_SIZE];
  static int fds[MAX_FLOWS];
  struct sockaddr_in dst = loopback(port);
  uint64_t sent = 0, errors = 0;
  int64_t start, stop, end;
  for (int i = 0; i < flows; i++) {
    fds[i] = socket(AF_INET, SOCK_DGRAM, 0);
    if (fds[i] < 0) {
      perror("bare_loop: socket");
      return 1;
    }
  }
  start = now_ns();
  stop = start + (int64_t)(seconds * (double)NS_PER_S);
  for (uint64_t k = 0;; k++) {
    if (rate > 0) {
      /* From k each time, not by adding a period, so rounding never
       * accumulates into drift. */
      int64_t due = start + (int64_t)((double)k * (double)NS_PER_S / rate);
      struct timespec t = to_timespec(due);
      /* The run ends at its time even when the loop has fallen behind:
       * packets still owed then are not sent. */
      if (due >= stop || now_ns() >= stop)
        break;
      while (!spin &&
             clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
        ;
    } else if (now_ns() >= stop) {
      break;
    }
    for (int i = 0; i < flows; i++) {
      if (spin) {
        int64_t at = start + (int64_t)(((double)k + (double)i / flows) *
                                       (double)NS_PER_S / rate);
        while (now_ns() < at)
          ;
      }
      stamp(buf, size, flows > 1 ? (uint32_t)i + 1 : 0, k + 1);
      if (sendto(fds[i], buf, size, 0, (const struct sockaddr *)&dst,
                 sizeof dst) == (ssize_t)size)
        sent++;
      else
        errors++;
    }
  }
  end = now_ns();
  for (int i = 0; i < flows; i++)
    close(fds[i]);
  printf("sent %llu errors %llu seconds %.6f pps %.1f\n",
         (unsigned long long)sent, (unsigned long long)errors,
         (double)(end - start) / (double)NS_PER_S,
         (double)sent * (double)NS_PER_S / (double)(end - start));
  return 0;
}

static void on_stop(int sig) {
  (void)sig;
  sink_stop = 1;
}

static int run_sink(uint16_t port, double seconds) {
  static unsigned char slots[SINK_BATCH][SINK_SLOT];
  static struct mmsghdr msgs[SINK_BATCH];
  static struct iovec iov[SINK_BATCH];
  struct sockaddr_in me = loopback(port);
  struct sigaction sa;
  struct timeval poll_every = {.tv_sec = 0, .tv_usec = 100000};
  uint64_t received = 0;
  int64_t stop = now_ns() + (int64_t)(seconds * (double)NS_PER_S);
  int big = 64 << 20;
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) {
    perror("bare_loop: socket");
    return 1;
  }
  /* FORCE lifts the rmem_max cap when run as root; otherwise take what
   * the plain option gives. */
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big) != 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &poll_every, sizeof poll_every);
  if (bind(fd, (const struct sockaddr *)&me, sizeof me) != 0) {
    perror("bare_loop: bind");
    close(fd);
    return 1;
  }
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  for (int i = 0; i < SINK_BATCH; i++) {
    iov[i].iov_base = slots[i];
    iov[i].iov_len = SINK_SLOT;
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
  }
  printf("ready\n");
  fflush(stdout);
  while (!sink_stop && now_ns() < stop) {
    int k = recvmmsg(fd, msgs, SINK_BATCH, 0, NULL);
    if (k > 0)
      received += (uint64_t)k;
  }
  /* A stop request must not lose what is already queued. */
  for (;;) {
    int k = recvmmsg(fd, msgs, SINK_BATCH, MSG_DONTWAIT, NULL);
    if (k <= 0)
      break;
    received += (uint64_t)k;
  }
  close(fd);
  printf("received %llu\n", (unsigned long long)received);
  return 0;
}

static int usage(void) {
  fputs("usage: bare_loop send PORT RATE SECONDS [SIZE [FLOWS]]\n"
        "       bare_loop spin PORT RATE SECONDS [SIZE [FLOWS]]\n"
        "       bare_loop sink PORT SECONDS\n",
        stderr);
  return 2;
}

int main(int argc, char **argv) {
  double port, rate, seconds, size = 64, flows = 1;
  int spin;
  if (argc < 4)
    return usage();
  if (parse_num(argv[2], 1, 65535, 1, &port) != 0)
    return 2;
  if (strcmp(argv[1], "sink") == 0 && argc == 4) {
    if (parse_num(argv[3], 0.001, 86400, 0, &seconds) != 0)
      return 2;
    return run_sink((uint16_t)port, seconds);
  }
  spin = strcmp(argv[1], "spin") == 0;
  if ((!spin && strcmp(argv[1], "send") != 0) || argc < 5 || argc > 7)
    return usage();
  if (parse_num(argv[3], spin ? 0.001 : 0, 1e9, 0, &rate) != 0 ||
      parse_num(argv[4], 0.001, 86400, 0, &seconds) != 0 ||
      (argc >= 6 && parse_num(argv[5], 1, MAX_SIZE, 1, &size) != 0) ||
      (argc == 7 && parse_num(argv[6], 1, MAX_FLOWS, 1, &flows) != 0))
    return 2;
  return run_send((uint16_t)port, rate, seconds, (size_t)size, (int)flows,
                  spin);
}
