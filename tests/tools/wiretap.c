/* wiretap: the packets sent to one port, as the kernel saw them pass.
 *
 *   wiretap [-p udp|tcp|icmp] [-n COUNT] [-d] [-o OFFSET] IFACE PORT SECONDS OUTFILE
 *
 * Watches IFACE for IPv4 and IPv6 packets of the protocol (UDP unless -p
 * says otherwise) addressed to PORT (0: to any port), for SECONDS and at
 * most COUNT packets, and writes 16 bytes to OUTFILE for each one:
 *
 *   0-7    the kernel's timestamp, nanoseconds since the epoch (little-endian)
 *   8-11   the transport payload's length in bytes (little-endian)
 *   12-15  the payload's first four bytes, as sent (zeros past its end);
 *          with -o, the four at OFFSET (0-64) instead
 *
 * and with -d 24 bytes, the same followed by
 *
 *   16-19  the packet's destination port (little-endian)
 *   20-23  TCP: the segment's sequence number (little-endian); UDP: 0
 *
 * which tell apart the flows of a capture of every port, and a TCP
 * segment sent again from the first sending of its bytes.
 *
 * -p icmp takes IPv4 ICMP messages (PORT must be 0): the payload is what
 * follows the message's 8-byte header, and with -d bytes 16-19 hold the
 * type times 256 plus the code, bytes 20-23 the identifier times 65536
 * plus the sequence number.
 *
 * TCP segments with no payload (handshake, bare acknowledgements) are left
 * out. "wiretap: ready" on stderr says the capture runs; the last line says
 * how many packets were written and how many the kernel dropped for want
 * of room. SIGINT or SIGTERM ends the capture early, with every packet
 * seen so far written.
 *
 * It is a witness for libitg and so uses nothing of it: the C library and
 * the kernel's interfaces only. The kernel copies matching packets into a
 * memory-mapped ring (TPACKET_V3), each with its timestamp: the device's
 * own where it gives one, otherwise the one the kernel takes as the packet
 * is queued for reception. On loopback that happens inside the sender's
 * send call, so the stamp is the departure time. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Enough of each packet for the largest IPv4 header (60), the largest TCP
 * header (60) and four payload bytes. */
#define SNAP_LEN 128
/* 64 blocks of 1 MiB hold about a second of the fastest loopback traffic
 * of this machine, in case the capture is not scheduled for a while. */
#define BLOCK_SIZE (1u << 20)
#define BLOCK_COUNT 64u
#define FRAME_SIZE 2048u
/* A block the kernel is still filling reaches user space after this long,
 * so a slow flow's records reach the file within tens of milliseconds. */
#define BLOCK_TIMEOUT_MS 10
/* How long the end of a capture may wait for the kernel's last block. */
#define DRAIN_MS 2000
#define RECORD_SIZE 16
#define RECORD_SIZE_PORT 24

struct tap {
  int fd;
  uint8_t *ring;
  unsigned next_block;
  FILE *out;
  const char *out_path;
  int proto;                 /* IPPROTO_UDP or IPPROTO_TCP */
  int with_port;             /* -d: records carry the destination port
                                and the TCP sequence number */
  unsigned offset;           /* -o: where the four payload bytes start */
  unsigned long long limit;  /* records wanted at most, 0: no limit */
  unsigned long long written;
  unsigned long long frames; /* every frame taken from the ring */
  unsigned long long hardware_stamped;
  unsigned long long unreadable;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

static void usage(void) {
  fprintf(stderr, "usage: wiretap [-p udp|tcp|icmp] [-n COUNT] [-d] [-o OFFSET] IFACE PORT SECONDS "
                  "OUTFILE\n");
  exit(2);
}

static void fail(const char *what) {
  fprintf(stderr, "wiretap: %s: %s\n", what, strerror(errno));
  exit(1);
}

static double monotonic_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned be16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }

static void put_le(uint8_t *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* Accepts the packets of the wanted protocol whose destination port is
 * PORT (any port if PORT is 0: with ICMP, which has no port, every
 * message), starting at the network header (a SOCK_DGRAM packet socket),
 * and keeps SNAP_LEN bytes of each. IPv4
 * fragments after the first carry no transport header and are refused;
 * IPv6 packets count only when the transport header follows the fixed
 * header directly. */
static void attach_port_filter(int fd, int proto, unsigned port) {
  /* Port 0: "port >= 0", true of every port. */
  unsigned port_test = port ? BPF_JEQ : BPF_JGE;
  struct sock_filter code[] = {
      /* 0 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, SKF_AD_OFF + SKF_AD_PROTOCOL),
      /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 7),
      /* 2 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
      /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)proto, 0, 11),
      /* 4 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),
      /* 5 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 9, 0),
      /* 6 */ BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
      /* 7 */ BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),
      /* 8 */ BPF_JUMP(BPF_JMP | port_test | BPF_K, port, 5, 6),
      /* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 0, 5),
      /* 10 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6),
      /* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)proto, 0, 3),
      /* 12 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 40 + 2),
      /* 13 */ BPF_JUMP(BPF_JMP | port_test | BPF_K, port, 0, 1),
      /* 14 */ BPF_STMT(BPF_RET | BPF_K, SNAP_LEN),
      /* 15 */ BPF_STMT(BPF_RET | BPF_K, 0),
  };
  struct sock_fprog prog = {sizeof code / sizeof code[0], code};
  if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) < 0)
    fail("attaching the port filter");
}

/* Closes the door at the end: the kernel copies nothing more into the
 * ring, so what is in it can be drained to the last packet. */
static void attach_refuse_all(int fd) {
  struct sock_filter code[] = {BPF_STMT(BPF_RET | BPF_K, 0)};
  struct sock_fprog prog = {1, code};
  if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) < 0)
    fail("closing the capture");
}

static void open_ring(struct tap *t, const char *iface, unsigned port) {
  /* Protocol 0 until bind: nothing is captured before the filter and the
   * ring are in place. */
  t->fd = socket(AF_PACKET, SOCK_DGRAM, 0);
  if (t->fd < 0)
    fail("packet socket (root or CAP_NET_RAW needed)");
  attach_port_filter(t->fd, t->proto, port);
  int version = TPACKET_V3;
  if (setsockopt(t->fd, SOL_PACKET, PACKET_VERSION, &version, sizeof version) < 0)
    fail("TPACKET_V3");
  /* The device's timestamp when it has one; the kernel's otherwise. */
  int source = SOF_TIMESTAMPING_RAW_HARDWARE;
  if (setsockopt(t->fd, SOL_PACKET, PACKET_TIMESTAMP, &source, sizeof source) < 0)
    fail("PACKET_TIMESTAMP");
  /* Turns on the kernel's receive timestamps, taken as each packet is
   * queued; without them the ring stamps a packet only when it is copied
   * in, possibly later, in another context. */
  int on = 1;
  if (setsockopt(t->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) < 0)
    fail("SO_TIMESTAMPNS");
#ifdef PACKET_IGNORE_OUTGOING
  /* Each packet sent on loopback passes the taps twice, leaving and
   * arriving. The kernel can keep the leaving copy out of the ring;
   * older kernels cannot, and the frames' packet type sorts them then. */
  if (setsockopt(t->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &on, sizeof on) < 0 &&
      errno != ENOPROTOOPT && errno != EINVAL)
    fail("PACKET_IGNORE_OUTGOING");
#endif
  struct tpacket_req3 req = {
      .tp_block_size = BLOCK_SIZE,
      .tp_block_nr = BLOCK_COUNT,
      .tp_frame_size = FRAME_SIZE,
      .tp_frame_nr = BLOCK_SIZE / FRAME_SIZE * BLOCK_COUNT,
      .tp_retire_blk_tov = BLOCK_TIMEOUT_MS,
  };
  if (setsockopt(t->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) < 0)
    fail("PACKET_RX_RING");
  t->ring = mmap(NULL, (size_t)BLOCK_SIZE * BLOCK_COUNT, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
  if (t->ring == MAP_FAILED)
    fail("mapping the ring");
  struct sockaddr_ll ll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL)};
  ll.sll_ifindex = (int)if_nametoindex(iface);
  if (ll.sll_ifindex == 0)
    fail(iface);
  if (bind(t->fd, (struct sockaddr *)&ll, sizeof ll) < 0)
    fail("binding to the interface");
}

/* The payload's length, first bytes, destination port and (TCP) sequence
 * number of a captured packet that starts at its network header; 0 if the
 * headers are not all there. */
static int read_payload(const struct tap *t, const uint8_t *p, uint32_t caplen, uint16_t l3,
                        uint32_t *len, uint8_t head[4], unsigned *dport, uint32_t *seq) {
  uint32_t l4, ip_payload;
  if (l3 == ETH_P_IP) {
    if (caplen < 20)
      return 0;
    l4 = (p[0] & 15u) * 4;
    uint32_t total = be16(p + 2);
    if (l4 < 20 || total < l4)
      return 0;
    ip_payload = total - l4;
  } else {
    if (caplen < 40)
      return 0;
    l4 = 40;
    ip_payload = be16(p + 4);
  }
  uint32_t hdr;
  *seq = 0;
  if (t->proto == IPPROTO_ICMP) {
    if (caplen < l4 + 8 || ip_payload < 8)
      return 0;
    hdr = 8;
    *len = ip_payload - 8;
    *dport = be16(p + l4);
    *seq = (uint32_t)be16(p + l4 + 4) << 16 | be16(p + l4 + 6);
  } else if (t->proto == IPPROTO_UDP) {
    if (caplen < l4 + 8)
      return 0;
    hdr = 8;
    uint32_t udp_len = be16(p + l4 + 4);
    *len = udp_len >= 8 ? udp_len - 8 : 0;
    *dport = be16(p + l4 + 2);
  } else {
    if (caplen < l4 + 20)
      return 0;
    hdr = (p[l4 + 12] >> 4) * 4u;
    if (hdr < 20 || ip_payload < hdr)
      return 0;
    *len = ip_payload - hdr;
    *seq = (uint32_t)be16(p + l4 + 4) << 16 | be16(p + l4 + 6);
    *dport = be16(p + l4 + 2);
  }
  memset(head, 0, 4);
  uint32_t start = l4 + hdr + t->offset;
  uint32_t have = caplen > start ? caplen - start : 0;
  uint32_t rest = *len > t->offset ? *len - t->offset : 0;
  uint32_t n = rest < 4 ? rest : 4;
  memcpy(head, p + start, n < have ? n : have);
  return 1;
}

static void take_frame(struct tap *t, const struct tpacket3_hdr *h) {
  t->frames++;
  const struct sockaddr_ll *ll =
      (const struct sockaddr_ll *)((const uint8_t *)h + TPACKET_ALIGN(sizeof *h));
  if (ll->sll_pkttype == PACKET_OUTGOING)
    return;
  if (t->limit && t->written >= t->limit)
    return;
  uint32_t len;
  uint8_t head[4];
  unsigned dport;
  uint32_t seq;
  if (!read_payload(t, (const uint8_t *)h + h->tp_net, h->tp_snaplen, ntohs(ll->sll_protocol), &len, head,
                    &dport, &seq)) {
    t->unreadable++;
    return;
  }
  if (t->proto == IPPROTO_TCP && len == 0)
    return;
  if (h->tp_status & TP_STATUS_TS_RAW_HARDWARE)
    t->hardware_stamped++;
  uint8_t rec[RECORD_SIZE_PORT];
  put_le(rec, (uint64_t)h->tp_sec * 1000000000u + h->tp_nsec, 8);
  put_le(rec + 8, len, 4);
  memcpy(rec + 12, head, 4);
  put_le(rec + 16, dport, 4);
  put_le(rec + 20, seq, 4);
  if (fwrite(rec, t->with_port ? RECORD_SIZE_PORT : RECORD_SIZE, 1, t->out) != 1)
    fail(t->out_path);
  t->written++;
}

/* Takes every block the kernel has handed over, in ring order, and returns
 * each to it; the records reach the file block by block. */
static void take_blocks(struct tap *t) {
  for (;;) {
    struct tpacket_block_desc *b = (void *)(t->ring + (size_t)t->next_block * BLOCK_SIZE);
    if (!(__atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
      break;
    const uint8_t *f = (const uint8_t *)b + b->hdr.bh1.offset_to_first_pkt;
    for (uint32_t i = 0; i < b->hdr.bh1.num_pkts; i++) {
      const struct tpacket3_hdr *h = (const void *)f;
      take_frame(t, h);
      f += h->tp_next_offset;
    }
    __atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    t->next_block = (t->next_block + 1) % BLOCK_COUNT;
  }
  if (fflush(t->out) != 0)
    fail(t->out_path);
}

static void wait_ring(int fd, int ms) {
  struct pollfd p = {.fd = fd, .events = POLLIN | POLLERR};
  if (poll(&p, 1, ms) < 0 && errno != EINTR)
    fail("poll");
}

/* The kernel's counts since the last call: frames it put in the ring and
 * frames it dropped for want of room. */
static void ring_counts(int fd, unsigned long long *delivered, unsigned long long *dropped) {
  struct tpacket_stats_v3 st;
  socklen_t len = sizeof st;
  if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0)
    fail("PACKET_STATISTICS");
  /* tp_packets counts the dropped frames too. */
  *delivered += st.tp_packets - st.tp_drops;
  *dropped += st.tp_drops;
}

static unsigned long long parse_count(const char *s, unsigned long long min, unsigned long long max,
                                      const char *what) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
    fprintf(stderr, "wiretap: %s: %s is not a number in %llu..%llu\n", what, s, min, max);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv) {
  struct tap t = {.fd = -1, .proto = IPPROTO_UDP};
  int c;
  while ((c = getopt(argc, argv, "p:n:do:")) != -1) {
    if (c == 'p' && !strcmp(optarg, "udp"))
      t.proto = IPPROTO_UDP;
    else if (c == 'p' && !strcmp(optarg, "tcp"))
      t.proto = IPPROTO_TCP;
    else if (c == 'p' && !strcmp(optarg, "icmp"))
      t.proto = IPPROTO_ICMP;
    else if (c == 'n')
      t.limit = parse_count(optarg, 1, ~0ull >> 1, "COUNT");
    else if (c == 'd')
      t.with_port = 1;
    /* SNAP_LEN keeps 68 payload bytes past an IPv6 and TCP header: the
     * four read must lie within them. */
    else if (c == 'o')
      t.offset = (unsigned)parse_count(optarg, 0, 64, "OFFSET");
    else
      usage();
  }
  if (argc - optind != 4)
    usage();
  const char *iface = argv[optind];
  unsigned port = (unsigned)parse_count(argv[optind + 1], 0, 65535, "PORT");
  if (t.proto == IPPROTO_ICMP && port != 0)
    usage();
  char *end;
  double seconds = strtod(argv[optind + 2], &end);
  if (end == argv[optind + 2] || *end || !(seconds > 0 && seconds <= 86400)) {
    fprintf(stderr, "wiretap: SECONDS: %s is not a duration in (0, 86400]\n", argv[optind + 2]);
    return 2;
  }
  t.out_path = argv[optind + 3];
  t.out = fopen(t.out_path, "wb");
  if (!t.out)
    fail(t.out_path);
  struct sigaction sa = {.sa_handler = on_signal};
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);

  open_ring(&t, iface, port);
  fprintf(stderr, "wiretap: ready\n");
  double deadline = monotonic_s() + seconds;
  for (;;) {
    take_blocks(&t);
    double left = deadline - monotonic_s();
    if (stop_requested || left <= 0 || (t.limit && t.written >= t.limit))
      break;
    wait_ring(t.fd, left < 0.05 ? (int)(left * 1000) + 1 : 50);
  }

  /* Every frame the kernel put in the ring before the door closed is
   * taken: the block it was filling comes out after BLOCK_TIMEOUT_MS. */
  attach_refuse_all(t.fd);
  unsigned long long delivered = 0, dropped = 0;
  ring_counts(t.fd, &delivered, &dropped);
  double drain_end = monotonic_s() + DRAIN_MS / 1000.0;
  take_blocks(&t);
  while (t.frames < delivered && monotonic_s() < drain_end) {
    wait_ring(t.fd, BLOCK_TIMEOUT_MS);
    take_blocks(&t);
  }
  if (t.frames < delivered)
    fprintf(stderr, "wiretap: %llu packets still in the kernel's last block at the end\n",
            delivered - t.frames);
  if (t.unreadable)
    fprintf(stderr, "wiretap: %llu packets too short to read, left out\n", t.unreadable);
  if (fclose(t.out) != 0)
    fail(t.out_path);
  fprintf(stderr, "wiretap: %llu packets (%llu stamped by the device), kernel drops %llu\n", t.written,
          t.hardware_stamped, dropped);
  return 0;
}
