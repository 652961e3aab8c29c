/* Tests of the flow options, presets, checks and descriptions (itg/flow.h).
 *
 * The trace files are looked for in $ITG_TEST_DATA (a directory), else in
 * tests/data under the current directory (the top of the source tree, where
 * `make test` runs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/payload.h"
#include "itg/flow.h"

#define NDRAWS 10000

/* ---- helpers ------------------------------------------------------------- */

static void data_path(char *buf, size_t len, const char *name) {
  const char *dir = getenv("ITG_TEST_DATA");
  snprintf(buf, len, "%s/%s", dir != NULL ? dir : "tests/data", name);
}

static int argv_len(const char *const *argv) {
  int n = 0;
  while (argv[n] != NULL)
    n++;
  return n;
}

/* Parses a NULL-terminated word list into a fresh default cfg. */
static int parse(itg_flow_cfg *c, char *err, size_t errlen,
                 const char *const *argv) {
  itg_flow_cfg_init(c);
  return itg_flow_parse_args(c, argv_len(argv), argv, err, errlen);
}

/* Parses words that must be accepted; returns the cfg. */
static itg_flow_cfg ok(const char *const *argv) {
  itg_flow_cfg c;
  char err[256];
  int rc = parse(&c, err, sizeof err, argv);
  if (rc != 0)
    fail_msg("rejected: %s", err);
  return c;
}

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})

static void assert_close(double got, double want, double tol) {
  if (!(fabs(got - want) <= tol))
    fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

static void assert_spec(const itg_dist_spec *s, itg_dist_kind kind,
                        double p0, double p1, double scale) {
  assert_int_equal(s->kind, kind);
  assert_close(s->p[0], p0, 1e-12 * fabs(p0));
  assert_close(s->p[1], p1, 1e-12 * fabs(p1));
  assert_true(s->scale == scale);
}

/* Parses argv (which must fail with rc and a message containing want) on
 * top of a cfg with non-default settings, which must stay as it was. */
static void check_error(const char *const *argv, int rc, const char *want) {
  itg_flow_cfg c, before;
  char err[256];
  int got;
  itg_flow_cfg_init(&c);
  c.flow_id = 7;
  c.dst_port = 4000;
  c.idt.p[0] = 0.25;
  c.max_packets = 3;
  memcpy(&before, &c, sizeof c);
  memset(err, 'z', sizeof err);
  got = itg_flow_parse_args(&c, argv_len(argv), argv, err, sizeof err);
  if (got != rc)
    fail_msg("'%s...': rc %d, want %d (%s)", argv[0], got, rc, err);
  if (strstr(err, want) == NULL)
    fail_msg("message '%s' lacks '%s'", err, want);
  assert_memory_equal(&c, &before, sizeof c);
}

static void check_invalid(const itg_flow_cfg *c, int rc, const char *want) {
  char err[256];
  int got = itg_flow_validate(c, err, sizeof err);
  if (got != rc)
    fail_msg("validate: rc %d, want %d (%s)", got, rc, err);
  if (rc != 0 && strstr(err, want) == NULL)
    fail_msg("message '%s' lacks '%s'", err, want);
}

/* ---- defaults and conversions -------------------------------------------- */

static void test_defaults(void **state) {
  itg_flow_cfg c;
  char err[64];
  (void)state;
  itg_flow_cfg_init(&c);
  assert_int_equal(c.flow_id, 0);
  assert_string_equal(c.dst_host, "127.0.0.1");
  assert_int_equal(c.dst_port, 8999); /* fixed port: the default */
  assert_string_equal(c.src_host, "");
  assert_int_equal(c.src_port, 0);
  assert_int_equal(c.sig_port, 9000); /* fixed port: the default */
  assert_int_equal(c.proto, ITG_PROTO_UDP);
  assert_int_equal(c.nodelay, 0);
  assert_int_equal(c.meter, ITG_METER_OWD);
  assert_int_equal(c.wire, ITG_WIRE_NATIVE);
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.001, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_CONSTANT, 512, 0, 1.0);
  assert_true(c.duration_ns == 10000000000LL);
  assert_true(c.max_packets == 0 && c.max_bytes == 0);
  assert_true(c.start_delay_ns == 0);
  assert_int_equal(c.has_seed, 0);
  assert_int_equal(c.tos, -1);
  assert_int_equal(c.ttl, -1);
  assert_string_equal(c.recv_log, "");
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  assert_string_equal(err, "");
  /* No words: nothing changes. */
  assert_int_equal(itg_flow_parse_args(&c, 0, NULL, err, sizeof err), 0);
}

static void test_idt_options(void **state) {
  itg_flow_cfg c;
  char path[512];
  (void)state;
  c = ok(W("-C", "1000"));
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.001, 0, 1.0);
  c = ok(W("-C", "0.5"));
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 2.0, 0, 1.0);
  /* Rates 100 to 200 pkt/s: IDTs from 1/200 to 1/100 s. */
  c = ok(W("-U", "100", "200"));
  assert_spec(&c.idt, ITG_DIST_UNIFORM, 0.005, 0.01, 1.0);
  c = ok(W("-U", "50", "50"));
  assert_spec(&c.idt, ITG_DIST_UNIFORM, 0.02, 0.02, 1.0);
  c = ok(W("-E", "250"));
  assert_spec(&c.idt, ITG_DIST_EXPONENTIAL, 0.004, 0, 1.0);
  /* 500 pkt/s: Poisson of mean 2000 us, draws scaled by 1e-6. */
  c = ok(W("-O", "500"));
  assert_spec(&c.idt, ITG_DIST_POISSON, 2000, 0, 1e-6);
  c = ok(W("-N", "10", "2"));
  assert_spec(&c.idt, ITG_DIST_NORMAL, 10, 2, 1e-3);
  c = ok(W("-V", "1.5", "2"));
  assert_spec(&c.idt, ITG_DIST_PARETO, 1.5, 2, 1e-3);
  c = ok(W("-Y", "5", "1"));
  assert_spec(&c.idt, ITG_DIST_CAUCHY, 5, 1, 1e-3);
  c = ok(W("-G", "2", "3"));
  assert_spec(&c.idt, ITG_DIST_GAMMA, 2, 3, 1e-3);
  c = ok(W("-W", "1.5", "4"));
  assert_spec(&c.idt, ITG_DIST_WEIBULL, 1.5, 4, 1e-3);
  c = ok(W("--idt-lognormal", "1", "0.5"));
  assert_spec(&c.idt, ITG_DIST_LOGNORMAL, 1, 0.5, 1e-3);
  data_path(path, sizeof path, "flow_idt_ms.txt");
  c = ok(W("-Ft", path));
  assert_int_equal(c.idt.kind, ITG_DIST_EMPIRICAL);
  assert_string_equal(c.idt.file, path);
  assert_true(c.idt.scale == 1e-3);
  /* The size law is untouched by IDT options. */
  assert_spec(&c.size, ITG_DIST_CONSTANT, 512, 0, 1.0);
}

static void test_size_options(void **state) {
  itg_flow_cfg c;
  char path[512];
  (void)state;
  c = ok(W("-c", "100"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 100, 0, 1.0);
  c = ok(W("-u", "64", "128"));
  assert_spec(&c.size, ITG_DIST_UNIFORM, 64, 128, 1.0);
  c = ok(W("-e", "300"));
  assert_spec(&c.size, ITG_DIST_EXPONENTIAL, 300, 0, 1.0);
  c = ok(W("-o", "200"));
  assert_spec(&c.size, ITG_DIST_POISSON, 200, 0, 1.0);
  c = ok(W("-n", "500", "50"));
  assert_spec(&c.size, ITG_DIST_NORMAL, 500, 50, 1.0);
  c = ok(W("-v", "1.5", "100"));
  assert_spec(&c.size, ITG_DIST_PARETO, 1.5, 100, 1.0);
  c = ok(W("-y", "500", "10"));
  assert_spec(&c.size, ITG_DIST_CAUCHY, 500, 10, 1.0);
  c = ok(W("-g", "2", "100"));
  assert_spec(&c.size, ITG_DIST_GAMMA, 2, 100, 1.0);
  c = ok(W("-w", "2", "400"));
  assert_spec(&c.size, ITG_DIST_WEIBULL, 2, 400, 1.0);
  c = ok(W("--size-lognormal", "6", "0.3"));
  assert_spec(&c.size, ITG_DIST_LOGNORMAL, 6, 0.3, 1.0);
  data_path(path, sizeof path, "flow_sizes.txt");
  c = ok(W("-Fs", path));
  assert_int_equal(c.size.kind, ITG_DIST_EMPIRICAL);
  assert_string_equal(c.size.file, path);
  assert_true(c.size.scale == 1.0);
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.001, 0, 1.0);
}

static void test_other_options(void **state) {
  itg_flow_cfg c;
  (void)state;
  c = ok(W("-a", "10.0.0.3", "-rp", "10001", "-sa", "10.0.0.1", "-sp", "5000",
           "-Sdp", "9100", "-T", "tcp", "-D", "-t", "2500", "-z", "100", "-k",
           "10", "-d", "500", "-s", "42", "-b", "184", "-f", "10", "-m",
           "rttm", "-x", "recv.log", "--wire", "DITG"));
  assert_string_equal(c.dst_host, "10.0.0.3");
  assert_int_equal(c.dst_port, 10001);
  assert_string_equal(c.src_host, "10.0.0.1");
  assert_int_equal(c.src_port, 5000);
  assert_int_equal(c.sig_port, 9100);
  assert_int_equal(c.proto, ITG_PROTO_TCP);
  assert_int_equal(c.nodelay, 1);
  assert_true(c.duration_ns == 2500000000LL);
  assert_true(c.max_packets == 100);
  assert_true(c.max_bytes == 10 * 1024);
  assert_true(c.start_delay_ns == 500000000LL);
  assert_int_equal(c.has_seed, 1);
  assert_true(c.seed == 42);
  assert_int_equal(c.tos, 184);
  assert_int_equal(c.ttl, 10);
  assert_int_equal(c.meter, ITG_METER_RTT);
  assert_string_equal(c.recv_log, "recv.log");
  assert_int_equal(c.wire, ITG_WIRE_DITG);

  c = ok(W("--dst", "::1", "--dst-port", "1", "--src", "::2", "--src-port",
           "0", "--sig-port", "65535", "--proto", "Udp", "--nodelay",
           "--duration", "0.5", "--packets", "0", "--kbytes", "3", "--delay",
           "1.25", "--seed", "0x10", "--tos", "0", "--ttl", "255", "--meter",
           "OWDM", "--recv-log", "r.log", "--wire", "native"));
  assert_string_equal(c.dst_host, "::1");
  assert_int_equal(c.dst_port, 1);
  assert_string_equal(c.src_host, "::2");
  assert_int_equal(c.src_port, 0);
  assert_int_equal(c.sig_port, 65535);
  assert_int_equal(c.proto, ITG_PROTO_UDP);
  assert_int_equal(c.nodelay, 1);
  assert_true(c.duration_ns == 500000LL);
  assert_true(c.max_packets == 0);
  assert_true(c.max_bytes == 3072);
  assert_true(c.start_delay_ns == 1250000LL);
  assert_true(c.seed == 16);
  assert_int_equal(c.tos, 0);
  assert_int_equal(c.ttl, 255);
  assert_int_equal(c.meter, ITG_METER_OWD);
  assert_string_equal(c.recv_log, "r.log");
  assert_int_equal(c.wire, ITG_WIRE_NATIVE);

  /* D-ITG's seeds in (0,1): floor(x * 2^64). */
  c = ok(W("-s", "0.5"));
  assert_true(c.seed == (UINT64_C(1) << 63));
  c = ok(W("-s", "0.25"));
  assert_true(c.seed == (UINT64_C(1) << 62));
  c = ok(W("-s", "0.75"));
  assert_true(c.seed == (UINT64_C(3) << 62));
  c = ok(W("-s", "0"));
  assert_true(c.seed == 0 && c.has_seed == 1);
  c = ok(W("-s", "18446744073709551615"));
  assert_true(c.seed == UINT64_MAX);
  c = ok(W("-t", "0", "-z", "5"));
  assert_true(c.duration_ns == 0 && c.max_packets == 5);

  /* D-ITG's other transports are read (the sender refuses them, but
   * ICMP to ITGRecv); ICMP may be followed by its message type, 8 when
   * it is not. */
  c = ok(W("-T", "sctp"));
  assert_int_equal(c.proto, ITG_PROTO_SCTP);
  check_invalid(&c, 0, "");
  c = ok(W("-T", "DCCP"));
  assert_int_equal(c.proto, ITG_PROTO_DCCP);
  c = ok(W("-T", "ICMP", "15", "-t", "5"));
  assert_int_equal(c.proto, ITG_PROTO_ICMP);
  assert_int_equal(c.icmp_type, 15);
  assert_true(c.duration_ns == 5000000);
  c = ok(W("-T", "ICMP", "-t", "5"));
  assert_int_equal(c.proto, ITG_PROTO_ICMP);
  assert_int_equal(c.icmp_type, 8);
  {
    char d[512];
    itg_flow_describe(&c, d, sizeof d);
    assert_non_null(strstr(d, " icmp-type 8"));
  }
  c.icmp_type = 256;
  check_invalid(&c, ITG_EINVAL, "ICMP type 256 is out of range (0-255)");
  check_error(W("-T", "ICMP", "256"), ITG_EINVAL, "unknown option '256'");
  assert_string_equal(itg_proto_name(ITG_PROTO_ICMP), "ICMP");
  assert_string_equal(itg_proto_name((itg_proto)9), "unknown");
}

static void test_override(void **state) {
  itg_flow_cfg c;
  (void)state;
  c = ok(W("-a", "h1", "-a", "h2", "-T", "TCP", "-T", "UDP", "-t", "1",
           "-t", "2", "-m", "rttm", "-m", "owdm", "-s", "1", "-s", "2"));
  assert_string_equal(c.dst_host, "h2");
  assert_int_equal(c.proto, ITG_PROTO_UDP);
  assert_true(c.duration_ns == 2000000);
  assert_int_equal(c.meter, ITG_METER_OWD);
  assert_true(c.seed == 2);
  /* Options apply on top of what cfg already holds. */
  {
    itg_flow_cfg d;
    itg_flow_cfg_init(&d);
    assert_int_equal(
        itg_flow_parse_args(&d, 2, W("-rp", "7000"), NULL, 0), 0);
    assert_int_equal(
        itg_flow_parse_args(&d, 2, W("-C", "50"), NULL, 0), 0);
    assert_int_equal(d.dst_port, 7000);
    assert_int_equal(
        itg_flow_parse_args(&d, 2, W("-rp", "0"), NULL, 0), 0);
    assert_int_equal(d.dst_port, 0);
    assert_spec(&d.idt, ITG_DIST_CONSTANT, 0.02, 0, 1.0);
    /* Each call is a line of its own: its law replaces the earlier one. */
    assert_int_equal(
        itg_flow_parse_args(&d, 2, W("-E", "20"), NULL, 0), 0);
    assert_spec(&d.idt, ITG_DIST_EXPONENTIAL, 0.05, 0, 1.0);
  }
}

/* Two laws of one kind on one line: the first would be lost silently. */
static void test_clashes(void **state) {
  itg_flow_cfg c;
  (void)state;
  check_error(W("-C", "10", "-E", "20"), ITG_EINVAL,
              "-E: the IDT law is already set by -C: give one IDT option");
  check_error(W("-N", "10", "2", "-t", "5", "-C", "100"), ITG_EINVAL,
              "-C: the IDT law is already set by -N");
  check_error(W("-C", "10", "-C", "20"), ITG_EINVAL,
              "-C: the IDT law is already set by -C");
  check_error(W("-c", "100", "-u", "64", "80"), ITG_EINVAL,
              "-u: the size law is already set by -c: give one size option");
  check_error(W("--idt-lognormal", "1", "1", "-Ft", "x"), ITG_EINVAL,
              "-Ft: the IDT law is already set by --idt-lognormal");
  check_error(W("-C", "10", "DNS"), ITG_EINVAL,
              "DNS: the laws are already set by -C");
  check_error(W("DNS", "VoIP"), ITG_EINVAL,
              "VoIP: the laws are already set by DNS");
  check_error(W("DNS", "-c", "100", "-c", "200"), ITG_EINVAL,
              "-c: the size law is already set by -c");
  /* One of each kind, and a preset refined by the options after it. */
  c = ok(W("-C", "10", "-c", "100"));
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.1, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_CONSTANT, 100, 0, 1.0);
  c = ok(W("DNS", "-C", "5", "-c", "200"));
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.2, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_CONSTANT, 200, 0, 1.0);
  /* -D without TCP: refused where the flow is checked, naming -D and -T
   * (the transport may come later on the line or in a later call). */
  c = ok(W("-D"));
  check_invalid(&c, ITG_EINVAL, "-D (TCP_NODELAY) is for TCP flows and this "
                                "flow is UDP (-T)");
  c = ok(W("-D", "-T", "TCP"));
  check_invalid(&c, 0, "");
  c = ok(W("-D", "Telnet", "--wire", "ditg"));
  check_invalid(&c, 0, "");
}

/* -p: D-ITG's payload types; -Fp: payload bytes from a file. */
static void test_payload_options(void **state) {
  itg_flow_cfg c;
  char path[512], big[600];
  FILE *f;
  (void)state;
  c = ok(W("-p", "0"));
  assert_string_equal(c.payload_file, "");
  assert_int_equal(c.payload_type, ITG_PAYLOAD_FULL);
  assert_int_equal(itg_flow_hdr_len(&c), 36);
  /* -p 1 and -p 2 go to ITGRecv alone, and not with a round trip. */
  c = ok(W("-p", "1"));
  assert_int_equal(c.payload_type, ITG_PAYLOAD_SEQ);
  check_invalid(&c, ITG_EINVAL,
                "-p 1 (flow id and sequence number only) goes to D-ITG's "
                "ITGRecv only (--peer ditg)");
  c = ok(W("--payload-type", "2", "--wire", "ditg"));
  check_invalid(&c, ITG_EINVAL, "-p 2 (no header) goes to D-ITG's ITGRecv");
  c = ok(W("--peer", "ditg", "-p", "1", "-m", "rttm"));
  check_invalid(&c, ITG_EINVAL, "-p 1 (flow id and sequence number only) "
                                "has no send time for a round trip");
  /* Their headers: 8 bytes (12 over TCP), and none, with D-ITG's least
   * size of 4 B; a size below them is sent at them, or refused. */
  c = ok(W("--peer", "ditg", "-p", "1", "-c", "8"));
  check_invalid(&c, 0, "");
  assert_int_equal(itg_flow_hdr_len(&c), 8);
  c = ok(W("--peer", "ditg", "-p", "1", "-T", "TCP", "-c", "8"));
  assert_int_equal(itg_flow_hdr_len(&c), 12);
  check_invalid(&c, ITG_EINVAL, "smaller than the 12-byte header");
  c = ok(W("--peer", "ditg", "-p", "2", "-T", "TCP", "-c", "4"));
  assert_int_equal(itg_flow_hdr_len(&c), ITG_FLOW_NONE_MIN_SIZE);
  check_invalid(&c, 0, "");
  {
    char buf[1024];
    itg_flow_describe(&c, buf, sizeof buf);
    assert_non_null(strstr(buf, " peer ditg payload-type 2"));
  }
  c.payload_type = (itg_payload_type)3;
  check_invalid(&c, ITG_EINVAL, "unknown payload type 3");
  assert_int_equal(itg_flow_hdr_len(&c), 0);
  check_error(W("-p", "3"), ITG_EINVAL, "-p: '3' is out of range (0-2)");
  check_error(W("-p"), ITG_EINVAL, "-p: missing value");
  check_error(W("-Fp", ""), ITG_EINVAL, "-Fp: empty file name");

  snprintf(path, sizeof path, "%s/itg-payload-%d.bin",
           getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp", (int)getpid());
  f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fputs("abc", f) >= 0, 1);
  fclose(f);
  c = ok(W("-Fp", path));
  assert_string_equal(c.payload_file, path);
  check_invalid(&c, 0, "");
  {
    char buf[1024], want[1024];
    itg_flow_describe(&c, buf, sizeof buf);
    snprintf(want, sizeof want, " payload %s", path);
    assert_non_null(strstr(buf, want));
  }
  /* Empty, missing and too large files are refused where the flow is
   * checked, each with its reason. */
  f = fopen(path, "wb");
  fclose(f);
  check_invalid(&c, ITG_EINVAL, "is empty");
  f = fopen(path, "wb");
  assert_int_equal(fseek(f, ITG_FLOW_PAYLOAD_MAX, SEEK_SET), 0);
  assert_int_equal(fputc('x', f), 'x');
  fclose(f);
  check_invalid(&c, ITG_EINVAL, "is larger than 1048576 bytes");
  f = fopen(path, "r+b");
  assert_int_equal(ftruncate(fileno(f), ITG_FLOW_PAYLOAD_MAX), 0);
  fclose(f);
  check_invalid(&c, 0, "");
  remove(path);
  check_invalid(&c, ITG_ENOENT, "-Fp: cannot read payload file");
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  check_error(W("-Fp", big), ITG_EINVAL, "-Fp: 'aaaa");
}

/* D-ITG's layout of a payload file: on from packet to packet, the packet
 * that finds fewer bytes left than its room padded with zeros, the next
 * starting over. */
static void test_payload_fill(void **state) {
  static const uint8_t file[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  uint8_t dst[16];
  size_t off = 0, off2 = 0;
  (void)state;
  memset(dst, 0xee, sizeof dst);
  itg__payload_fill(file, sizeof file, &off, dst, 4);
  assert_memory_equal(dst, file, 4);
  assert_true(dst[4] == 0xee);
  assert_int_equal(off, 4);
  itg__payload_fill(file, sizeof file, &off, dst, 6);
  assert_memory_equal(dst, file + 4, 6);
  assert_int_equal(off, 0);
  itg__payload_fill(file, sizeof file, &off, dst, 7);
  itg__payload_fill(file, sizeof file, &off, dst, 7);
  assert_memory_equal(dst, file + 7, 3);
  assert_memory_equal(dst + 3, (const uint8_t[4]){0}, 4);
  assert_int_equal(off, 0);
  itg__payload_fill(file, sizeof file, &off, dst, 16);
  assert_memory_equal(dst, file, 10);
  assert_memory_equal(dst + 10, (const uint8_t[6]){0}, 6);
  itg__payload_fill(file, sizeof file, &off, dst, 0);
  assert_int_equal(off, 0);
  /* advance moves as fill does */
  itg__payload_advance(sizeof file, &off2, 4);
  assert_int_equal(off2, 4);
  itg__payload_advance(sizeof file, &off2, 6);
  assert_int_equal(off2, 0);
  itg__payload_advance(sizeof file, &off2, 11);
  assert_int_equal(off2, 0);
}

/* ---- presets ------------------------------------------------------------- */

static void test_voip(void **state) {
  itg_flow_cfg c;
  (void)state;
  /* D-ITG's default codec, G.711.1 with RTP: 80 + 12 B at 100 pkt/s. */
  c = ok(W("-T", "TCP", "VoIP"));
  assert_int_equal(c.proto, ITG_PROTO_UDP);
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.01, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_CONSTANT, 92, 0, 1.0);
  c = ok(W("VoIP", "-x", "G.711.2"));
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.02, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_CONSTANT, 172, 0, 1.0);
  /* -VAD keeps floor(0.65 * voice bytes), then the header: D-ITG's
   * 0.65 * 80 + 12 = 64 B (not round(0.65 * 92) = 60). */
  c = ok(W("VoIP", "-VAD"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 64, 0, 1.0);
  c = ok(W("VoIP", "-x", "G.711.2", "-VAD"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 116, 0, 1.0);
  /* 20 + 12 B, raised to the 36-byte native header. */
  c = ok(W("VoIP", "-x", "G.729.2", "-h", "RTP"));
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.02, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_CONSTANT, 36, 0, 1.0);
  /* 13 + 12 = 25 B: kept with the 16-byte D-ITG header, whether --wire
   * comes before or after the preset. */
  c = ok(W("VoIP", "-x", "G.729.2", "-VAD", "--wire", "ditg"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 25, 0, 1.0);
  c = ok(W("--wire", "ditg", "VoIP", "-VAD", "-x", "G.729.2"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 25, 0, 1.0);
  /* ... raised to the 36-byte native header. */
  c = ok(W("VoIP", "-x", "G.729.2", "-VAD"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 36, 0, 1.0);
  c = ok(W("VoIP", "-x", "g.729.3", "-h", "crtp"));
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 1.0 / 33, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_CONSTANT, 36, 0, 1.0);
  c = ok(W("--wire", "ditg", "VoIP", "-x", "G.729.3", "-VAD"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 31, 0, 1.0); /* 19.5 -> 19, + 12 */
  /* floor(0.65 * 30) + 2 = 21 B at 26 pkt/s. */
  c = ok(W("--wire", "ditg", "VoIP", "-h", "CRTP", "-x", "G.723.1", "-VAD"));
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 1.0 / 26, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_CONSTANT, 21, 0, 1.0);
  c = ok(W("VoIP", "-h", "CRTP", "-VAD"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 54, 0, 1.0);
  /* 13 + 2 = 15 B, raised to the 16-byte D-ITG header. */
  c = ok(W("--wire", "ditg", "VoIP", "-x", "G.729.2", "-h", "CRTP", "-VAD"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 16, 0, 1.0);
  /* After the preset's own words, -x is the receiver log again. */
  c = ok(W("VoIP", "-x", "G.711.1", "-t", "1000", "-x", "recv.log"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 92, 0, 1.0);
  assert_string_equal(c.recv_log, "recv.log");
  assert_true(c.duration_ns == 1000000000LL);
  /* Options after the preset override it and are taken as given. */
  c = ok(W("VoIP", "-VAD", "-C", "10", "-c", "10", "-T", "TCP"));
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.1, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_CONSTANT, 10, 0, 1.0);
  assert_int_equal(c.proto, ITG_PROTO_TCP);
}

/* -X: the receiver's log server, with an optional transport word. */
static void test_recv_log_server(void **state) {
  char err[256], desc[512];
  itg_flow_cfg c;
  (void)state;
  c = ok(W("-t", "100"));
  assert_string_equal(c.recv_log_server, "");
  assert_int_equal(c.recv_log_port, ITG_DEFAULT_LOG_PORT);
  assert_int_equal(c.recv_log_transport, ITG_LOG_TCP);
  c = ok(W("-X", "10.0.0.2", "-x", "r.log"));
  assert_string_equal(c.recv_log_server, "10.0.0.2");
  assert_int_equal(c.recv_log_port, 9001); /* fixed port: the default */
  assert_int_equal(c.recv_log_transport, ITG_LOG_TCP);
  assert_string_equal(c.recv_log, "r.log");
  c = ok(W("-X", "logs:9100", "udp", "-t", "100"));
  assert_string_equal(c.recv_log_server, "logs");
  assert_int_equal(c.recv_log_port, 9100);
  assert_int_equal(c.recv_log_transport, ITG_LOG_UDP);
  assert_true(c.duration_ns == 100000000LL);
  c = ok(W("--recv-log-server", "[::1]:9102", "TCP"));
  assert_string_equal(c.recv_log_server, "::1");
  assert_int_equal(c.recv_log_port, 9102);
  c = ok(W("-X", "fe80::1"));
  assert_string_equal(c.recv_log_server, "fe80::1");
  assert_int_equal(c.recv_log_port, 9001); /* fixed port: the default */
  /* Inside a VoIP preset -x is the codec; -X is still the log server. */
  c = ok(W("VoIP", "-x", "G.711.1", "-X", "127.0.0.1:9200"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 92, 0, 1.0);
  assert_string_equal(c.recv_log, "");
  assert_string_equal(c.recv_log_server, "127.0.0.1");
  assert_int_equal(c.recv_log_port, 9200);
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  itg_flow_describe(&c, desc, sizeof desc);
  assert_non_null(strstr(desc, " recv-log-server 127.0.0.1:9200 TCP"));
  assert_int_equal(parse(&c, err, sizeof err, W("-X", "h:0")), ITG_EINVAL);
  assert_non_null(strstr(err, "-X"));
  assert_int_equal(parse(&c, err, sizeof err, W("-X", ":45001")), ITG_EINVAL);
  assert_int_equal(parse(&c, err, sizeof err, W("-X", "[::1")), ITG_EINVAL);
  assert_int_equal(parse(&c, err, sizeof err, W("-X")), ITG_EINVAL);
  itg_flow_cfg_init(&c);
  strcpy(c.recv_log_server, "h");
  c.recv_log_port = 0;
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), ITG_EINVAL);
}

static void test_telnet_dns(void **state) {
  itg_flow_cfg c;
  char err[256];
  (void)state;
  /* D-ITG's Telnet: 21 to 35 B, which only its own header carries. */
  c = ok(W("Telnet"));
  assert_int_equal(c.proto, ITG_PROTO_TCP);
  assert_spec(&c.idt, ITG_DIST_PARETO, 0.95, 1.1, 1e-3);
  assert_spec(&c.size, ITG_DIST_TELNET, 0, 0, 1.0);
  check_invalid(&c, ITG_EINVAL, "--wire ditg");
  c = ok(W("Telnet", "--wire", "ditg"));
  assert_spec(&c.size, ITG_DIST_TELNET, 0, 0, 1.0);
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  c = ok(W("--wire", "ditg", "Telnet", "-T", "UDP"));
  assert_int_equal(c.proto, ITG_PROTO_UDP);
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  c = ok(W("Telnet", "-c", "100"));
  assert_spec(&c.size, ITG_DIST_CONSTANT, 100, 0, 1.0);
  c = ok(W("-T", "TCP", "DNS"));
  assert_int_equal(c.proto, ITG_PROTO_UDP);
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 1.0 / 0.56, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_UNIFORM, 100, 320, 1.0);
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  c = ok(W("dns", "-E", "2"));
  assert_spec(&c.idt, ITG_DIST_EXPONENTIAL, 0.5, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_UNIFORM, 100, 320, 1.0);
}

/* -B: D-ITG's on/off periods, each law a letter of the IDT options with
 * its values in ms. */
static void test_onoff(void **state) {
  itg_flow_cfg c;
  char err[256], desc[512];
  (void)state;
  c = ok(W("-t", "100"));
  assert_int_equal(c.onoff, 0);
  c = ok(W("-B", "C", "1000", "E", "500", "-C", "100"));
  assert_int_equal(c.onoff, 1);
  assert_spec(&c.on, ITG_DIST_CONSTANT, 1000, 0, 1e-3);
  assert_spec(&c.off, ITG_DIST_EXPONENTIAL, 500, 0, 1e-3);
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.01, 0, 1.0);
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  itg_flow_describe(&c, desc, sizeof desc);
  assert_non_null(strstr(desc, " size constant(512 B) on constant(1000 ms) "
                               "off exponential(500 ms) for 10 s"));
  /* Every letter, with its number of values; none is a rate. */
  c = ok(W("--onoff", "U", "100", "300", "W", "1.5", "200"));
  assert_spec(&c.on, ITG_DIST_UNIFORM, 100, 300, 1e-3);
  assert_spec(&c.off, ITG_DIST_WEIBULL, 1.5, 200, 1e-3);
  c = ok(W("-B", "O", "50", "N", "100", "10"));
  assert_spec(&c.on, ITG_DIST_POISSON, 50, 0, 1e-3);
  assert_spec(&c.off, ITG_DIST_NORMAL, 100, 10, 1e-3);
  c = ok(W("-B", "V", "1.5", "20", "Y", "100", "5"));
  assert_spec(&c.on, ITG_DIST_PARETO, 1.5, 20, 1e-3);
  assert_spec(&c.off, ITG_DIST_CAUCHY, 100, 5, 1e-3);
  c = ok(W("-B", "G", "2", "50", "E", "10", "-z", "5"));
  assert_spec(&c.on, ITG_DIST_GAMMA, 2, 50, 1e-3);
  assert_true(c.max_packets == 5);
  check_error(W("-B", "C", "100"), ITG_EINVAL, "-B off: missing value");
  check_error(W("-B", "c", "100", "C", "100"), ITG_EINVAL,
              "-B on: 'c' is not a law (C, U, E, O, N, V, Y, G or W)");
  check_error(W("-B", "Ft", "x", "C", "100"), ITG_EINVAL, "is not a law");
  check_error(W("-B", "C", "100", "E", "abc"), ITG_EINVAL,
              "-B off: 'abc' is not a number");
  check_error(W("-B", "C", "100", "E", "-5"), ITG_EINVAL,
              "-B off: invalid parameters for exponential");
  check_error(W("-B", "C", "-1", "C", "5"), ITG_EINVAL, "-B on:");
  /* validate checks the periods' laws of a cfg made by hand. */
  c = ok(W("-B", "C", "100", "C", "100"));
  c.off.scale = 0;
  check_invalid(&c, ITG_EINVAL, "off period: scale 0 is not > 0");
}

/* The catch-up policy: --catchup's words and D-ITG's -j; LAW by default,
 * and the describing line names any other. */
static void test_catchup(void **state) {
  itg_flow_cfg c;
  char err[256], desc[512];
  (void)state;
  c = ok(W("-t", "100"));
  assert_int_equal(c.catchup, ITG_CATCHUP_LAW);
  itg_flow_describe(&c, desc, sizeof desc);
  assert_null(strstr(desc, "catchup"));
  assert_int_equal(ok(W("--catchup", "skip")).catchup, ITG_CATCHUP_SKIP);
  assert_int_equal(ok(W("--catchup", "BURST")).catchup, ITG_CATCHUP_BURST);
  assert_int_equal(ok(W("--catchup", "burst", "--catchup", "law")).catchup,
                   ITG_CATCHUP_LAW);
  assert_int_equal(ok(W("-j", "1")).catchup, ITG_CATCHUP_BURST);
  c = ok(W("-j", "0"));
  assert_int_equal(c.catchup, ITG_CATCHUP_SKIP);
  itg_flow_describe(&c, desc, sizeof desc);
  assert_non_null(strstr(desc, " catchup skip"));
  check_error(W("--catchup", "fast"), ITG_EINVAL,
              "--catchup: expected law, skip or burst, got 'fast'");
  check_error(W("--catchup"), ITG_EINVAL, "--catchup: missing value");
  check_error(W("-j", "2"), ITG_EINVAL, "-j: expected 0 or 1, got '2'");
  c = ok(W("-t", "100"));
  c.catchup = (itg_catchup)3;
  check_invalid(&c, ITG_EINVAL, "unknown catch-up policy 3");
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), ITG_EINVAL);
}

/* The size note: the share of a size law's draws below the header, from
 * the law's distribution function. */
static void test_size_note(void **state) {
  itg_flow_cfg c;
  char note[400], desc[600];
  double share;
  (void)state;
  /* Exponential of mean 50 B: 1 - e^(-36/50) below the native header,
   * 1 - e^(-16/50) below D-ITG's. */
  c = ok(W("-e", "50"));
  share = itg_flow_size_note(&c, note, sizeof note);
  assert_close(share, 1 - exp(-36.0 / 50), 1e-12);
  assert_string_equal(note,
                      "size: 51.3 % of the draws of exponential(50 B) fall "
                      "below the 36-byte native header and are drawn again "
                      "(the law is cut there, its mean moves up); --wire "
                      "ditg (D-ITG's 16-byte header) lowers that to 27.4 %");
  itg_flow_describe(&c, desc, sizeof desc);
  assert_non_null(strstr(desc, " for 10 s; size: 51.3 % of the draws"));
  c = ok(W("-e", "50", "--wire", "ditg", "-T", "TCP"));
  share = itg_flow_size_note(&c, note, sizeof note);
  assert_close(share, 1 - exp(-20.0 / 50), 1e-12);
  assert_string_equal(note,
                      "size: 33 % of the draws of exponential(50 B) fall "
                      "below the 20-byte ditg header and are drawn again "
                      "(the law is cut there, its mean moves up); D-ITG "
                      "would send them at 20 B (--small ditg does so)");
  /* Counter-Strike, active: 22.5 % below 36 B. */
  c = ok(W("CSa"));
  share = itg_flow_size_note(&c, note, sizeof note);
  assert_close(share, 0.2254, 0.0005);
  /* Nothing worth a word: "" (Quake 3's normal sizes are 9 standard
   * deviations above 36 B; constants within the header). */
  c = ok(W("Quake3"));
  share = itg_flow_size_note(&c, note, sizeof note);
  assert_true(share < 1e-6);
  assert_string_equal(note, "");
  c = ok(W("-c", "36"));
  assert_true(itg_flow_size_note(&c, note, sizeof note) == 0);
  assert_string_equal(note, "");
  itg_flow_describe(&c, desc, sizeof desc);
  assert_null(strchr(desc, ';'));
  /* A preset's constant size raised to the header is said too. */
  c = ok(W("VoIP", "-x", "G.729.2"));
  assert_int_equal(c.size_raised, 32);
  assert_true(itg_flow_size_note(&c, note, sizeof note) == 1);
  assert_string_equal(note, "size: the preset's 32-byte packets are sent at "
                            "36 B, the native header's length; --wire ditg "
                            "(D-ITG's 16-byte header) sends them as they are");
  itg_flow_describe(&c, desc, sizeof desc);
  assert_non_null(strstr(desc, " for 10 s; size: the preset's 32-byte"));
  c = ok(W("--wire", "ditg", "VoIP", "-x", "G.729.2", "-h", "CRTP", "-VAD"));
  assert_int_equal(c.size_raised, 15);
  itg_flow_size_note(&c, note, sizeof note);
  assert_string_equal(note, "size: the preset's 15-byte packets are sent at "
                            "16 B, the ditg header's length; D-ITG sends them "
                            "at 16 B");
  /* Not raised: kept as it is, or replaced by a size option. */
  c = ok(W("--wire", "ditg", "VoIP", "-x", "G.729.2"));
  assert_int_equal(c.size_raised, 0);
  assert_true(itg_flow_size_note(&c, note, sizeof note) == 0);
  c = ok(W("VoIP", "-x", "G.729.2", "-c", "100"));
  assert_int_equal(c.size_raised, 0);
  /* A later line replaces the preset, and what it raised. */
  c = ok(W("VoIP", "-x", "G.729.2"));
  assert_int_equal(itg_flow_parse_line(&c, "DNS", note, sizeof note), 1);
  assert_int_equal(c.size_raised, 0);
  /* A cut buffer, none at all, a cfg it cannot read. */
  c = ok(W("-e", "50"));
  assert_true(itg_flow_size_note(&c, note, 8) > 0.5);
  assert_string_equal(note, "size: 5");
  assert_true(itg_flow_size_note(&c, NULL, 0) > 0.5);
  assert_true(isnan(itg_flow_size_note(NULL, note, sizeof note)));
  assert_string_equal(note, "");
  c.size.kind = ITG_DIST_EMPIRICAL;
  strcpy(c.size.file, "/nonexistent/sizes.txt");
  assert_true(isnan(itg_flow_size_note(&c, note, sizeof note)));
  assert_string_equal(note, "");
}

/* Quake 3 and Counter-Strike, with D-ITG 2.8.1's parameters. */
static void test_games(void **state) {
  itg_flow_cfg c;
  char err[256];
  (void)state;
  c = ok(W("-T", "TCP", "quake3"));
  assert_int_equal(c.proto, ITG_PROTO_UDP);
  assert_spec(&c.idt, ITG_DIST_QUAKE3, 0, 0, 1e-3);
  assert_spec(&c.size, ITG_DIST_NORMAL, 64.151757, 3.2035755, 1.0);
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  c = ok(W("-T", "TCP", "CSa"));
  assert_int_equal(c.proto, ITG_PROTO_UDP);
  assert_spec(&c.idt, ITG_DIST_STUDENT, 41.6994, 0.104821, 1e-3);
  assert_close(c.idt.p[2], 0.704073, 1e-15);
  assert_spec(&c.size, ITG_DIST_CS_ACTIVE, 0, 0, 1.0);
  /* Partly below the native header: drawn again there (a note says how
   * much), so the flow is accepted. */
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  c = ok(W("csi"));
  assert_spec(&c.idt, ITG_DIST_STUDENT, 41.6858, 0.0694393, 1e-3);
  assert_close(c.idt.p[2], 1.08341, 1e-15);
  assert_spec(&c.size, ITG_DIST_CS_IDLE, 0, 0, 1.0);
  /* 27 to 35 B: all below the native header. */
  check_invalid(&c, ITG_EINVAL, "--wire ditg");
  c = ok(W("CSi", "--wire", "ditg"));
  assert_int_equal(itg_flow_validate(&c, err, sizeof err), 0);
  c = ok(W("CSi", "-c", "200", "-C", "5"));
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.2, 0, 1.0);
  assert_spec(&c.size, ITG_DIST_CONSTANT, 200, 0, 1.0);
}

static void test_presets_validate(void **state) {
  static const char *const codecs[] = {"G.711.1", "G.711.2", "G.729.2",
                                       "G.729.3", "G.723.1"};
  static const char *const wires[] = {"native", "ditg"};
  size_t i, j;
  (void)state;
  for (i = 0; i < 5; i++) {
    for (j = 0; j < 2; j++) {
      itg_flow_cfg c = ok(W("--wire", wires[j], "VoIP", "-x", codecs[i],
                            "-h", "CRTP", "-VAD"));
      check_invalid(&c, 0, "");
    }
  }
}

/* ---- errors -------------------------------------------------------------- */

static void test_parse_errors(void **state) {
  char longhost[400], path[512];
  (void)state;
  check_error(W("-C", "abc"), ITG_EINVAL, "-C: 'abc' is not a number");
  check_error(W("-C", "1e999"), ITG_EINVAL, "-C: '1e999' is out of range");
  check_error(W("-Q"), ITG_EINVAL, "unknown option '-Q'");
  check_error(W("-C", "500", "bogus"), ITG_EINVAL, "unknown option 'bogus'");
  check_error(W("-T", "XYZ"), ITG_EINVAL,
              "-T: expected UDP, TCP, SCTP, DCCP or ICMP, got 'XYZ'");
  check_error(W("-C"), ITG_EINVAL, "-C: missing value");
  check_error(W("-U", "100"), ITG_EINVAL, "-U: missing value");
  check_error(W("-t", "100", "-a"), ITG_EINVAL, "-a: missing value");
  check_error(W("-C", "0"), ITG_EINVAL, "-C: rate must be > 0, got '0'");
  check_error(W("-E", "-5"), ITG_EINVAL, "-E: rate must be > 0, got '-5'");
  check_error(W("-O", "0"), ITG_EINVAL, "-O: rate must be > 0");
  check_error(W("-U", "200", "100"), ITG_EINVAL,
              "-U: min rate '200' is above max rate '100'");
  check_error(W("-O", "1e-303"), ITG_EINVAL,
              "-O: rate '1e-303' is out of range");
  check_error(W("-C", "2e7"), ITG_EINVAL, "-C: mean IDT 5e-08 s is below");
  check_error(W("-E", "1e8"), ITG_EINVAL, "-E: mean IDT");
  check_error(W("-O", "0.00025"), ITG_EINVAL, "-O: mean IDT 4000 s is above");
  check_error(W("-C", "1e-4"), ITG_EINVAL, "-C: IDT 10000 s is outside");
  check_error(W("-N", "10", "-2"), ITG_EINVAL,
              "-N: invalid parameters for normal");
  check_error(W("-V", "0", "1"), ITG_EINVAL,
              "-V: invalid parameters for pareto");
  check_error(W("-w", "2", "x"), ITG_EINVAL, "-w: 'x' is not a number");
  check_error(W("-c", "70000"), ITG_EINVAL, "-c: size 70000 B is outside");
  check_error(W("--dst-port", "70000"), ITG_EINVAL,
              "--dst-port: '70000' is out of range (0-65535)");
  check_error(W("-rp", "x1"), ITG_EINVAL, "-rp: 'x1' is not a whole number");
  check_error(W("-Sdp", "0"), ITG_EINVAL, "-Sdp: '0' is out of range");
  check_error(W("-sp", "65536"), ITG_EINVAL, "-sp: '65536' is out of range");
  check_error(W("-b", "256"), ITG_EINVAL, "-b: '256' is out of range (0-255)");
  check_error(W("-f", "0"), ITG_EINVAL, "-f: '0' is out of range (1-255)");
  check_error(W("--ttl", "256"), ITG_EINVAL, "--ttl: '256' is out of range");
  check_error(W("-m", "xyz"), ITG_EINVAL,
              "-m: expected owdm or rttm, got 'xyz'");
  check_error(W("--wire", "foo"), ITG_EINVAL,
              "--wire: expected native or ditg, got 'foo'");
  check_error(W("-t", "-5"), ITG_EINVAL, "-t: '-5' is out of range");
  check_error(W("-d", "abc"), ITG_EINVAL, "-d: 'abc' is not a number");
  check_error(W("-z", "-1"), ITG_EINVAL, "-z: '-1' is not a whole number");
  check_error(W("-k", "18014398509481984"), ITG_EINVAL,
              "-k: '18014398509481984' is out of range");
  check_error(W("-s", "1.5"), ITG_EINVAL,
              "-s: '1.5' is neither a whole number nor a number in (0,1)");
  check_error(W("-s", "0.0"), ITG_EINVAL, "-s: '0.0' is neither");
  check_error(W("-s", "-3"), ITG_EINVAL, "-s: '-3' is neither");
  check_error(W("VoIP", "-x", "G.999"), ITG_EINVAL,
              "VoIP -x: unknown codec 'G.999'");
  check_error(W("VoIP", "-h", "XRTP"), ITG_EINVAL,
              "VoIP -h: expected RTP or CRTP, got 'XRTP'");
  check_error(W("VoIP", "-x"), ITG_EINVAL, "VoIP -x: missing value");
  check_error(W("foo"), ITG_EINVAL, "unknown option 'foo'");
  check_error(W("-a", ""), ITG_EINVAL, "-a: empty host");
  memset(longhost, 'h', sizeof longhost - 1);
  longhost[sizeof longhost - 1] = '\0';
  check_error(W("-a", longhost), ITG_EINVAL, "-a: 'hhhh");
  check_error(W("-a", longhost), ITG_EINVAL, "is too long (at most 255 bytes)");
  /* The options before the bad word are not applied either. */
  check_error(W("-C", "500", "-t", "2000", "-rp", "1", "-Q"), ITG_EINVAL,
              "unknown option '-Q'");
  /* Trace files. */
  check_error(W("-Ft", "/nonexistent/idt.txt"), ITG_ENOENT,
              "-Ft: trace file '/nonexistent/idt.txt' does not exist");
  data_path(path, sizeof path, "flow_bad_line.txt");
  check_error(W("-Fs", path), ITG_EINVAL, "line 3");
  check_error(W("-Fs", path), ITG_EINVAL, "flow_bad_line.txt");
  data_path(path, sizeof path, "flow_empty.txt");
  check_error(W("-Ft", path), ITG_EINVAL, "holds no value");
}

static void test_parse_error_buffers(void **state) {
  itg_flow_cfg c;
  char small[8];
  (void)state;
  itg_flow_cfg_init(&c);
  /* No message buffer. */
  assert_int_equal(itg_flow_parse_args(&c, 2, W("-C", "x"), NULL, 0),
                   ITG_EINVAL);
  assert_int_equal(itg_flow_parse_args(&c, 2, W("-C", "x"), NULL, 99),
                   ITG_EINVAL);
  /* A short buffer gets a terminated prefix. */
  assert_int_equal(
      itg_flow_parse_args(&c, 2, W("-C", "x"), small, sizeof small),
      ITG_EINVAL);
  assert_string_equal(small, "-C: 'x'");
  /* NULL words inside argc. */
  {
    char err[64];
    itg_flow_cfg before = c;
    assert_int_equal(
        itg_flow_parse_args(&c, 2, W("-C", NULL), err, sizeof err),
        ITG_EINVAL);
    assert_string_equal(err, "-C: missing value");
    assert_int_equal(
        itg_flow_parse_args(&c, 3, W("VoIP", "-x", NULL), err, sizeof err),
        ITG_EINVAL);
    assert_string_equal(err, "VoIP -x: missing value");
    assert_int_equal(
        itg_flow_parse_args(&c, 3, W("VoIP", NULL, "-VAD"), err, sizeof err),
        ITG_EINVAL);
    assert_string_equal(err, "word 1 is NULL");
    assert_memory_equal(&c, &before, sizeof c);
  }
  /* Bad arguments. */
  assert_int_equal(itg_flow_parse_args(NULL, 0, NULL, NULL, 0), ITG_EINVAL);
  assert_int_equal(itg_flow_parse_args(&c, 1, NULL, NULL, 0), ITG_EINVAL);
  assert_int_equal(itg_flow_parse_args(&c, -1, NULL, NULL, 0), ITG_EINVAL);
  assert_int_equal(itg_flow_parse_line(NULL, "-C 1", NULL, 0), ITG_EINVAL);
  assert_int_equal(itg_flow_parse_line(&c, NULL, NULL, 0), ITG_EINVAL);
  assert_int_equal(itg_flow_validate(NULL, NULL, 0), ITG_EINVAL);
}

/* ---- validation ---------------------------------------------------------- */

static void test_validate(void **state) {
  itg_flow_cfg base, c, p0;
  char path[512], err[256];
  (void)state;
  itg_flow_cfg_init(&base);
  check_invalid(&base, 0, "");

  c = base;
  c.duration_ns = 0;
  check_invalid(&c, ITG_EINVAL, "no end");
  c.max_packets = 10;
  check_invalid(&c, 0, "");
  c.max_packets = 0;
  c.max_bytes = 1024;
  check_invalid(&c, 0, "");
  {
    /* 0 is "no limit" for each of -t, -z and -k alike: a flow left with
     * none is refused, and the message says what 0 meant. */
    static const char msg0[] = "0 means no limit, for each of the three";
    p0 = ok(W("-t", "0"));
    check_invalid(&p0, ITG_EINVAL, msg0);
    p0 = ok(W("-t", "0", "-z", "0"));
    check_invalid(&p0, ITG_EINVAL, msg0);
    p0 = ok(W("-t", "0", "-k", "0"));
    check_invalid(&p0, ITG_EINVAL, msg0);
    p0 = ok(W("-z", "0", "-k", "0", "-t", "0"));
    check_invalid(&p0, ITG_EINVAL, msg0);
    p0 = ok(W("-z", "0"));
    assert_true(p0.max_packets == 0 && p0.duration_ns == 10 * INT64_C(1000000000));
    check_invalid(&p0, 0, "");
    p0 = ok(W("-k", "0", "-t", "0", "-z", "5"));
    assert_true(p0.max_bytes == 0 && p0.duration_ns == 0 && p0.max_packets == 5);
    check_invalid(&p0, 0, "");
  }
  c = base;
  c.duration_ns = -1;
  check_invalid(&c, ITG_EINVAL, "negative duration");
  c = base;
  c.start_delay_ns = -1;
  check_invalid(&c, ITG_EINVAL, "negative start delay");

  c = base;
  c.dst_port = 0; /* the receiver picks the data port */
  check_invalid(&c, 0, "");
  c = base;
  c.sig_port = 0;
  check_invalid(&c, ITG_EINVAL, "signaling port 0");
  c = base;
  c.tos = 256;
  check_invalid(&c, ITG_EINVAL, "DS byte 256");
  c.tos = -2;
  check_invalid(&c, ITG_EINVAL, "DS byte -2");
  c.tos = 255;
  check_invalid(&c, 0, "");
  c = base;
  c.ttl = 0;
  check_invalid(&c, ITG_EINVAL, "TTL 0");
  c.ttl = 256;
  check_invalid(&c, ITG_EINVAL, "TTL 256");
  c.ttl = 1;
  check_invalid(&c, 0, "");
  c = base;
  c.proto = (itg_proto)7;
  check_invalid(&c, ITG_EINVAL, "unknown transport 7");
  c = base;
  c.meter = (itg_meter)5;
  check_invalid(&c, ITG_EINVAL, "unknown meter 5");
  c = base;
  c.wire = (itg_wire_profile)9;
  check_invalid(&c, ITG_EINVAL, "unknown wire profile 9");
  c = base;
  c.dst_host[0] = '\0';
  check_invalid(&c, ITG_EINVAL, "no destination host");
  c = base;
  memset(c.dst_host, 'a', sizeof c.dst_host);
  check_invalid(&c, ITG_EINVAL, "destination host is not terminated");
  c = base;
  memset(c.recv_log, 'a', sizeof c.recv_log);
  check_invalid(&c, ITG_EINVAL, "receiver log name is not terminated");

  /* Constant sizes against each header: native 36, D-ITG 16 (UDP) and 20
   * (TCP), and the 65507-byte maximum. */
  c = base;
  c.size.p[0] = 35;
  check_invalid(&c, ITG_EINVAL,
                "size: constant 35 B is smaller than the 36-byte header");
  c.size.p[0] = 36;
  check_invalid(&c, 0, "");
  c.proto = ITG_PROTO_TCP;
  c.size.p[0] = 35;
  check_invalid(&c, ITG_EINVAL, "36-byte header (native wire over TCP)");
  c = base;
  c.wire = ITG_WIRE_DITG;
  c.size.p[0] = 15;
  check_invalid(&c, ITG_EINVAL, "16-byte header (ditg wire over UDP)");
  c.size.p[0] = 16;
  check_invalid(&c, 0, "");
  c.proto = ITG_PROTO_TCP;
  check_invalid(&c, ITG_EINVAL, "20-byte header (ditg wire over TCP)");
  c.size.p[0] = 20;
  check_invalid(&c, 0, "");
  c = base;
  c.size.p[0] = 65508;
  check_invalid(&c, ITG_EINVAL, "size: constant 65508 B is larger than 65507");
  c.size.p[0] = 65507;
  check_invalid(&c, 0, "");
  {
    itg_flow_cfg p = ok(W("-c", "20"));
    check_invalid(&p, ITG_EINVAL,
                  "smaller than the 36-byte header (native wire over UDP): "
                  "--wire ditg (D-ITG's header, 16 B, 20 over TCP) carries it");
    /* Below D-ITG's header too: --wire ditg would not help. */
    p = ok(W("-c", "15"));
    check_invalid(&p, ITG_EINVAL, "(native wire over UDP)");
    assert_int_equal(itg_flow_validate(&p, err, sizeof err), ITG_EINVAL);
    assert_null(strstr(err, "--wire"));
    p = ok(W("-u", "20", "30"));
    check_invalid(&p, ITG_EINVAL,
                  "(below the 36-byte native header): --wire ditg");
  }

  /* Random sizes: the law's range must meet [header, 65507]. */
  c = base;
  c.size.kind = ITG_DIST_UNIFORM;
  c.size.p[0] = 1;
  c.size.p[1] = 10;
  check_invalid(&c, ITG_EINVAL, "size: uniform draws only values outside");
  c.size.p[1] = 40;
  check_invalid(&c, 0, "");
  c.size.p[0] = 70000;
  c.size.p[1] = 80000;
  check_invalid(&c, ITG_EINVAL, "size: uniform draws only values outside");
  c.size.kind = ITG_DIST_PARETO;
  c.size.p[0] = 1;
  c.size.p[1] = 70000;
  check_invalid(&c, ITG_EINVAL, "size: pareto draws only values outside");
  c.size.kind = ITG_DIST_NORMAL;
  c.size.p[0] = 10;
  c.size.p[1] = -1;
  check_invalid(&c, ITG_EINVAL, "size: invalid parameters for normal");
  c.size.p[1] = 0;
  check_invalid(&c, ITG_EINVAL, "size: size 10 B is outside");
  c.size.p[1] = 5;
  check_invalid(&c, 0, "");
  c.size.kind = ITG_DIST_EXPONENTIAL;
  c.size.p[0] = 1;
  check_invalid(&c, 0, "");

  /* IDT laws. */
  c = base;
  c.idt.scale = 0;
  check_invalid(&c, ITG_EINVAL, "IDT: scale 0 is not > 0");
  c.idt.scale = NAN;
  check_invalid(&c, ITG_EINVAL, "IDT: scale");
  c = base;
  c.size.scale = -1;
  check_invalid(&c, ITG_EINVAL, "size: scale -1 is not > 0");
  c = base;
  c.idt.p[0] = 4000;
  check_invalid(&c, ITG_EINVAL, "IDT: IDT 4000 s is outside [0, 3600] s");
  c.idt.p[0] = 3600;
  check_invalid(&c, 0, "");
  c.idt.p[0] = 5e-8;
  check_invalid(&c, ITG_EINVAL, "IDT: mean IDT 5e-08 s is below 1e-07 s");
  c.idt.p[0] = 1e-7;
  check_invalid(&c, 0, "");
  c.idt.kind = (itg_dist_kind)99;
  check_invalid(&c, ITG_EINVAL, "IDT: unknown law 99");
  c = base;
  c.idt.kind = ITG_DIST_NORMAL;
  c.idt.scale = 1e-3;
  c.idt.p[0] = -5;
  c.idt.p[1] = 1;
  check_invalid(&c, ITG_EINVAL, "IDT: mean IDT -0.005 s is below");
  c.idt.p[0] = 5;
  check_invalid(&c, 0, "");
  c.idt.kind = ITG_DIST_UNIFORM;
  c.idt.scale = 1.0;
  c.idt.p[0] = 4000;
  c.idt.p[1] = 5000;
  check_invalid(&c, ITG_EINVAL,
                "IDT: uniform draws only values outside [0, 3600] s");
  c.idt.kind = ITG_DIST_EXPONENTIAL;
  c.idt.p[0] = 5e-8;
  check_invalid(&c, ITG_EINVAL, "IDT: mean IDT 5e-08 s");
  c.idt.p[0] = 4000;
  check_invalid(&c, ITG_EINVAL, "IDT: mean IDT 4000 s is above 3600 s");
  c.idt.p[0] = 3600;
  check_invalid(&c, 0, "");
  /* Pareto of shape 1 has no mean: only its range (>= 1 s) is checked. */
  c.idt.kind = ITG_DIST_PARETO;
  c.idt.p[0] = 1;
  c.idt.p[1] = 1;
  check_invalid(&c, 0, "");
  c.idt.kind = ITG_DIST_GAMMA;
  c.idt.p[0] = 0;
  c.idt.p[1] = 1;
  check_invalid(&c, ITG_EINVAL, "IDT: invalid parameters for gamma (0, 1 s)");

  /* Trace files. */
  c = base;
  c.idt.kind = ITG_DIST_EMPIRICAL;
  c.idt.scale = 1e-3;
  data_path(c.idt.file, sizeof c.idt.file, "flow_idt_ms.txt");
  check_invalid(&c, 0, "");
  strcpy(c.idt.file, "/nonexistent/trace");
  check_invalid(&c, ITG_ENOENT,
                "IDT: trace file '/nonexistent/trace' does not exist");
  data_path(c.idt.file, sizeof c.idt.file, "flow_bad_line.txt");
  check_invalid(&c, ITG_EINVAL, "line 3");
  data_path(c.idt.file, sizeof c.idt.file, "flow_empty.txt");
  check_invalid(&c, ITG_EINVAL, "holds no value");
  /* 1, 2.5, 4 ms read as microseconds: a mean of 2.5e-6 s is fine, read
   * as 1e-9 s units it is not. */
  data_path(c.idt.file, sizeof c.idt.file, "flow_idt_ms.txt");
  c.idt.scale = 1e-6;
  check_invalid(&c, 0, "");
  c.idt.scale = 1e-9;
  check_invalid(&c, ITG_EINVAL, "IDT: mean IDT 2.5e-09 s");
  /* ... read as units of 10000 s, every value is above 3600 s; as units
   * of 1000 s, two are within reach and the mean is 2500 s; as units of
   * 2000 s, the mean of 5000 s is too long. */
  c.idt.scale = 10000;
  check_invalid(&c, ITG_EINVAL, "IDT: no value of trace file");
  c.idt.scale = 1000;
  check_invalid(&c, 0, "");
  c.idt.scale = 2000;
  check_invalid(&c, ITG_EINVAL, "IDT: mean IDT 5000 s is above 3600 s");
  c = base;
  c.size.kind = ITG_DIST_EMPIRICAL;
  data_path(path, sizeof path, "flow_small_sizes.txt");
  strcpy(c.size.file, path);
  check_invalid(&c, ITG_EINVAL, "size: no value of trace file");
  c.wire = ITG_WIRE_DITG; /* 20 B fits the 16-byte header */
  check_invalid(&c, 0, "");
  data_path(c.size.file, sizeof c.size.file, "flow_sizes.txt");
  c.wire = ITG_WIRE_NATIVE;
  check_invalid(&c, 0, "");
  memset(c.size.file, 'f', sizeof c.size.file);
  check_invalid(&c, ITG_EINVAL, "not terminated");
}

/* ---- script lines -------------------------------------------------------- */

static void test_parse_line(void **state) {
  itg_flow_cfg c, before;
  char err[256], line[700], path[512];
  (void)state;
  itg_flow_cfg_init(&c);
  before = c;
  assert_int_equal(itg_flow_parse_line(&c, "", err, sizeof err), 0);
  assert_int_equal(itg_flow_parse_line(&c, " \t\r\n", err, sizeof err), 0);
  assert_int_equal(itg_flow_parse_line(&c, "# a comment -C x", err, sizeof err),
                   0);
  assert_int_equal(itg_flow_parse_line(&c, "   #-Q", err, sizeof err), 0);
  assert_memory_equal(&c, &before, sizeof c);

  assert_int_equal(
      itg_flow_parse_line(&c,
                          "-a 10.0.0.3 -rp 10001\tVoIP -x G.711.2 -h RTP -VAD "
                          " # the first flow -Q\n",
                          err, sizeof err),
      10);
  assert_string_equal(c.dst_host, "10.0.0.3");
  assert_int_equal(c.dst_port, 10001);
  assert_spec(&c.size, ITG_DIST_CONSTANT, 116, 0, 1.0); /* 104 + 12 */
  assert_spec(&c.idt, ITG_DIST_CONSTANT, 0.02, 0, 1.0);

  itg_flow_cfg_init(&c);
  assert_int_equal(
      itg_flow_parse_line(&c, "-x \"my log.dat\" -t 100#-Q", err, sizeof err),
      4);
  assert_string_equal(c.recv_log, "my log.dat");
  assert_true(c.duration_ns == 100000000);
  assert_int_equal(itg_flow_parse_line(&c, "-x \"a#b\"", err, sizeof err), 2);
  assert_string_equal(c.recv_log, "a#b");
  assert_int_equal(
      itg_flow_parse_line(&c, "-x ab\"c d\"e", err, sizeof err), 2);
  assert_string_equal(c.recv_log, "abc de");
  assert_int_equal(itg_flow_parse_line(&c, "-x \"\"", err, sizeof err), 2);
  assert_string_equal(c.recv_log, "");
  data_path(path, sizeof path, "flow_idt_ms.txt");
  snprintf(line, sizeof line, "-Ft \"%s\"", path);
  assert_int_equal(itg_flow_parse_line(&c, line, err, sizeof err), 2);
  assert_string_equal(c.idt.file, path);

  before = c;
  assert_int_equal(itg_flow_parse_line(&c, "-t 5 -x \"abc", err, sizeof err),
                   ITG_EINVAL);
  assert_non_null(strstr(err, "unterminated quote"));
  assert_int_equal(itg_flow_parse_line(&c, "-t 5 -C abc", err, sizeof err),
                   ITG_EINVAL);
  assert_string_equal(err, "-C: 'abc' is not a number");
  assert_int_equal(itg_flow_parse_line(&c, "-t 5 -Q", err, sizeof err),
                   ITG_EINVAL);
  assert_string_equal(err, "unknown option '-Q'");
  assert_memory_equal(&c, &before, sizeof c);
  /* A long line of many short words. */
  {
    char many[4001];
    size_t i;
    for (i = 0; i + 2 < sizeof many; i += 3)
      memcpy(many + i, "-D ", 3);
    many[i] = '\0';
    assert_int_equal(itg_flow_parse_line(&c, many, err, sizeof err),
                     (int)(i / 3));
    assert_int_equal(c.nodelay, 1);
    memset(many, 'x', sizeof many - 1);
    many[0] = '-';
    many[sizeof many - 1] = '\0';
    assert_int_equal(itg_flow_parse_line(&c, many, err, sizeof err),
                     ITG_EINVAL);
    assert_non_null(strstr(err, "unknown option '-xxx"));
  }
}

/* ---- describe ------------------------------------------------------------ */

static void test_describe(void **state) {
  itg_flow_cfg c;
  char buf[512];
  (void)state;
  itg_flow_cfg_init(&c);
  itg_flow_describe(&c, buf, sizeof buf);
  assert_string_equal(buf, "UDP 127.0.0.1:8999 " /* fixed port: the default */
                           "IDT constant(0.001 s) size constant(512 B) for "
                           "10 s");
  c = ok(W("-a", "::1", "-rp", "9", "-T", "TCP", "-D", "-N", "10", "2", "-u",
           "64", "128", "-t", "0", "-z", "100", "-k", "2", "-m", "rttm",
           "--wire", "ditg", "-s", "7"));
  itg_flow_describe(&c, buf, sizeof buf);
  assert_string_equal(buf, "TCP [::1]:9 IDT normal(10, 2 ms) size "
                           "uniform(64, 128 B) for 100 pkts or 2048 B "
                           "nodelay round-trip wire ditg seed 7");
  c = ok(W("-O", "500", "-d", "1500", "-sa", "10.0.0.1", "-b", "46", "-f", "3",
           "-x", "r.log", "-Sdp", "9100", "-rp", "45000"));
  c.flow_id = 4;
  itg_flow_describe(&c, buf, sizeof buf);
  assert_string_equal(buf, "UDP 127.0.0.1:45000 IDT poisson(2000 us) size "
                           "constant(512 B) for 10 s after 1.5 s flow 4 from "
                           "10.0.0.1:0 sig 9100 tos 46 ttl 3 recv-log r.log");
  c = ok(W("Telnet", "-rp", "45000"));
  itg_flow_describe(&c, buf, sizeof buf);
  assert_string_equal(buf, "TCP 127.0.0.1:45000 IDT pareto(0.95, 1.1 ms) size "
                           "telnet(B) for 10 s; size: every draw of "
                           "telnet(B) falls below the 36-byte native header: "
                           "the flow is refused; --wire ditg (D-ITG's 20-byte "
                           "header) lowers that to 0 %");
  c = ok(W("CSa", "-rp", "45000"));
  itg_flow_describe(&c, buf, sizeof buf);
  assert_non_null(strstr(buf, "UDP 127.0.0.1:45000 IDT student(41.6994, "
                              "0.104821, 0.704073 ms) size cs-active(B) for "
                              "10 s; size: 22.6 % of the draws"));
}

static void test_describe_edges(void **state) {
  itg_flow_cfg c;
  char buf[512], small[10];
  (void)state;
  itg_flow_cfg_init(&c);
  c.duration_ns = 0;
  c.idt.kind = ITG_DIST_EMPIRICAL;
  c.idt.scale = 1e-3;
  strcpy(c.idt.file, "t.txt");
  c.size.scale = 2;
  c.dst_port = 45000;
  itg_flow_describe(&c, buf, sizeof buf);
  assert_string_equal(buf, "UDP 127.0.0.1:45000 IDT trace(t.txt, ms) size "
                           "constant(512 x2 B) without end");
  itg_flow_describe(&c, small, sizeof small);
  assert_string_equal(small, "UDP 127.0");
  memset(small, 'q', sizeof small);
  itg_flow_describe(&c, small, 0);
  assert_int_equal(small[0], 'q');
  itg_flow_describe(NULL, small, sizeof small);
  assert_string_equal(small, "");
}

/* ---- making and drawing laws --------------------------------------------- */

/* Mean (and variance) of NDRAWS raw draws of the dist a spec makes. */
static void raw_moments(const itg_dist_spec *s, uint64_t seed, double *mean,
                        double *var) {
  itg_dist *d = NULL;
  double sum = 0, sum2 = 0;
  int i;
  assert_int_equal(itg_dist_spec_make(s, seed, &d), 0);
  for (i = 0; i < NDRAWS; i++) {
    double x = itg_dist_next(d);
    sum += x;
    sum2 += x * x;
  }
  itg_dist_free(d);
  *mean = sum / NDRAWS;
  *var = sum2 / NDRAWS - *mean * *mean;
}

/* The sample mean must lie within 6 standard errors of the law's mean. */
static void check_mean(const char *const *argv, int idt, double mean,
                       double sd) {
  itg_flow_cfg c = ok(argv);
  double m, v;
  raw_moments(idt ? &c.idt : &c.size, 12345, &m, &v);
  if (fabs(m - mean) > 6 * sd / sqrt(NDRAWS))
    fail_msg("%s: mean %g, want %g +- %g", argv[0], m, mean,
             6 * sd / sqrt(NDRAWS));
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void test_spec_make_means(void **state) {
  double wmean, wsd, lmean, lsd, m, v;
  itg_flow_cfg c;
  (void)state;
  /* IDT laws, in their own unit (s for rates, us for -O, ms otherwise). */
  check_mean(W("-U", "100", "200"), 1, 0.0075, 0.005 / sqrt(12));
  check_mean(W("-E", "250"), 1, 0.004, 0.004);
  check_mean(W("-O", "500"), 1, 2000, sqrt(2000));
  check_mean(W("-N", "10", "2"), 1, 10, 2);
  /* Pareto(3, 2): mean 3 * 2 / 2 = 3, variance 4 * 3 / (4 * 1) = 3. */
  check_mean(W("-V", "3", "2"), 1, 3, sqrt(3));
  check_mean(W("-G", "2", "5"), 1, 10, sqrt(50));
  wmean = 4 * tgamma(1.5);
  wsd = sqrt(16 * (tgamma(2) - tgamma(1.5) * tgamma(1.5)));
  check_mean(W("-W", "2", "4"), 1, wmean, wsd);
  lmean = exp(1 + 0.5 * 0.25);
  lsd = lmean * sqrt(exp(0.25) - 1);
  check_mean(W("--idt-lognormal", "1", "0.5"), 1, lmean, lsd);
  /* Size laws, in bytes. */
  check_mean(W("-u", "64", "128"), 0, 96, 64 / sqrt(12));
  check_mean(W("-e", "300"), 0, 300, 300);
  check_mean(W("-o", "200"), 0, 200, sqrt(200));
  check_mean(W("-n", "500", "50"), 0, 500, 50);
  check_mean(W("-v", "3", "100"), 0, 150, 100 * sqrt(3) / 2);
  check_mean(W("-g", "3", "100"), 0, 300, sqrt(3) * 100);
  check_mean(W("-w", "2", "400"), 0, 400 * tgamma(1.5),
             400 * sqrt(1 - tgamma(1.5) * tgamma(1.5)));
  check_mean(W("--size-lognormal", "6", "0.3"), 0, exp(6 + 0.045),
             exp(6 + 0.045) * sqrt(exp(0.09) - 1));
  /* Gamma's shape and scale in the right order: (2, 5) has variance 50,
   * (5, 2) would have 20. */
  c = ok(W("-G", "2", "5"));
  raw_moments(&c.idt, 99, &m, &v);
  assert_true(v > 40 && v < 60);
  /* Constant: every draw is the value. */
  {
    itg_dist *ci = NULL, *cs = NULL;
    int i;
    c = ok(W("-C", "1000", "-c", "100"));
    assert_int_equal(itg_dist_spec_make(&c.idt, 1, &ci), 0);
    assert_int_equal(itg_dist_spec_make(&c.size, 1, &cs), 0);
    for (i = 0; i < 100; i++) {
      assert_true(itg_dist_next(ci) == 0.001);
      assert_true(itg_dist_next(cs) == 100);
    }
    itg_dist_free(ci);
    itg_dist_free(cs);
  }
  /* Cauchy has no mean: its sample median lies near the location (standard
   * error of the median pi * scale / (2 sqrt(n))). */
  {
    static double x[NDRAWS];
    itg_dist *d = NULL;
    int i;
    c = ok(W("-Y", "5", "1"));
    assert_int_equal(itg_dist_spec_make(&c.idt, 3, &d), 0);
    for (i = 0; i < NDRAWS; i++)
      x[i] = itg_dist_next(d);
    itg_dist_free(d);
    qsort(x, NDRAWS, sizeof x[0], cmp_double);
    assert_close((x[NDRAWS / 2 - 1] + x[NDRAWS / 2]) / 2, 5,
                 6 * M_PI / (2 * sqrt(NDRAWS)));
  }
  /* The same seed gives the same draws; another seed, others. */
  {
    itg_dist *a = NULL, *b = NULL, *o = NULL;
    int i, differ = 0;
    c = ok(W("-E", "100"));
    assert_int_equal(itg_dist_spec_make(&c.idt, 7, &a), 0);
    assert_int_equal(itg_dist_spec_make(&c.idt, 7, &b), 0);
    assert_int_equal(itg_dist_spec_make(&c.idt, 8, &o), 0);
    for (i = 0; i < 100; i++) {
      double x = itg_dist_next(a);
      assert_true(x == itg_dist_next(b));
      differ |= x != itg_dist_next(o);
    }
    assert_true(differ);
    itg_dist_free(a);
    itg_dist_free(b);
    itg_dist_free(o);
  }
}

static void test_spec_make_trace(void **state) {
  static const double want[] = {1, 2.5, 4, 1, 2.5, 4, 1};
  itg_flow_cfg c;
  itg_dist *d = NULL;
  itg_dist_spec s;
  size_t i;
  (void)state;
  data_path(s.file, sizeof s.file, "flow_idt_ms.txt");
  c = ok(W("-Ft", s.file));
  assert_int_equal(itg_dist_spec_make(&c.idt, 0, &d), 0);
  for (i = 0; i < sizeof want / sizeof want[0]; i++)
    assert_close(itg_dist_next(d), want[i], 0);
  itg_dist_free(d);
  /* Drawn through the spec: milliseconds become seconds. */
  assert_int_equal(itg_dist_spec_make(&c.idt, 0, &d), 0);
  for (i = 0; i < sizeof want / sizeof want[0]; i++)
    assert_close(itg_dist_spec_draw(&c.idt, d, 0, ITG_FLOW_IDT_MAX),
                 want[i] * 1e-3, 1e-15);
  itg_dist_free(d);
  /* Errors of itg_dist_read_file come back as they are. */
  memset(&s, 0, sizeof s);
  s.kind = ITG_DIST_EMPIRICAL;
  s.scale = 1;
  strcpy(s.file, "/nonexistent/trace");
  d = NULL;
  assert_int_equal(itg_dist_spec_make(&s, 0, &d), ITG_ENOENT);
  assert_null(d);
  data_path(s.file, sizeof s.file, "flow_bad_line.txt");
  assert_int_equal(itg_dist_spec_make(&s, 0, &d), ITG_EBADMSG);
  memset(s.file, 'f', sizeof s.file);
  assert_int_equal(itg_dist_spec_make(&s, 0, &d), ITG_EINVAL);
  s.kind = (itg_dist_kind)42;
  assert_int_equal(itg_dist_spec_make(&s, 0, &d), ITG_EINVAL);
  s.kind = ITG_DIST_NORMAL;
  s.p[0] = 1;
  s.p[1] = -1;
  assert_int_equal(itg_dist_spec_make(&s, 0, &d), ITG_EINVAL);
  assert_int_equal(itg_dist_spec_make(NULL, 0, &d), ITG_EINVAL);
  assert_int_equal(itg_dist_spec_make(&s, 0, NULL), ITG_EINVAL);
}

static void test_spec_draw(void **state) {
  itg_flow_cfg c;
  itg_dist *d = NULL;
  double sum = 0;
  int i;
  (void)state;
  /* -N 10 2: draws in ms, returned in seconds. */
  c = ok(W("-N", "10", "2"));
  assert_int_equal(itg_dist_spec_make(&c.idt, 5, &d), 0);
  for (i = 0; i < NDRAWS; i++) {
    double x = itg_dist_spec_draw(&c.idt, d, 0, ITG_FLOW_IDT_MAX);
    assert_true(x >= 0 && x <= ITG_FLOW_IDT_MAX);
    sum += x;
  }
  itg_dist_free(d);
  assert_close(sum / NDRAWS, 0.010, 6 * 0.002 / sqrt(NDRAWS));
  /* -O 500: whole microseconds of mean 2000, returned in seconds. */
  sum = 0;
  c = ok(W("-O", "500"));
  assert_int_equal(itg_dist_spec_make(&c.idt, 5, &d), 0);
  for (i = 0; i < NDRAWS; i++) {
    double x = itg_dist_spec_draw(&c.idt, d, 0, ITG_FLOW_IDT_MAX);
    assert_close(x * 1e6, round(x * 1e6), 1e-6);
    sum += x;
  }
  itg_dist_free(d);
  assert_close(sum / NDRAWS, 0.002, 6 * sqrt(2000) * 1e-6 / sqrt(NDRAWS));
  /* Bounds in seconds: a normal of mean 10 ms truncated to [8, 12] ms. */
  c = ok(W("-N", "10", "2"));
  assert_int_equal(itg_dist_spec_make(&c.idt, 6, &d), 0);
  sum = 0;
  for (i = 0; i < 1000; i++) {
    double x = itg_dist_spec_draw(&c.idt, d, 0.008, 0.012);
    assert_true(x >= 0.008 && x <= 0.012);
    sum += x;
  }
  itg_dist_free(d);
  /* The truncated law is symmetric about 10 ms with a standard deviation
   * below 1.1 ms. */
  assert_close(sum / 1000, 0.010, 6 * 0.0011 / sqrt(1000));
  /* A product rounded above the upper bound is brought back to it:
   * (0.7 / 0.3) * 0.3 is 0.7000000000000001 in doubles. */
  {
    itg_dist_spec k;
    memset(&k, 0, sizeof k);
    k.kind = ITG_DIST_CONSTANT;
    k.p[0] = 0.7 / 0.3;
    k.scale = 0.3;
    assert_int_equal(itg_dist_spec_make(&k, 1, &d), 0);
    assert_true(itg_dist_spec_draw(&k, d, 0, 0.7) <= 0.7);
    itg_dist_free(d);
  }
  /* Sizes of 10-20 B below a 28-byte header: every draw is 28 B. */
  c = ok(W("-u", "10", "20"));
  assert_int_equal(itg_dist_spec_make(&c.size, 6, &d), 0);
  for (i = 0; i < 100; i++)
    assert_true(itg_dist_spec_draw(&c.size, d, 28, ITG_WIRE_MAX_PACKET) == 28);
  itg_dist_free(d);
}

/* --small ditg: D-ITG's size rule, the draw truncated to whole bytes and
 * held inside [header, 64000], against libitg's default of drawing again
 * and rounding. The sizes are checked one by one against the same draws
 * taken from a twin dist of the same seed. */
static void test_small_rule(void **state) {
  itg_flow_cfg c;
  itg_dist *d, *twin;
  char note[400], desc[600];
  int i, below = 0, above = 0, unlike_rounding = 0;
  (void)state;
  c = ok(W("-c", "100"));
  assert_int_equal(c.small, ITG_SMALL_REDRAW);
  c = ok(W("--small", "DITG", "--small", "redraw"));
  assert_int_equal(c.small, ITG_SMALL_REDRAW);
  check_error(W("--small", "clamp"), ITG_EINVAL, "--small");
  /* A normal of mean 30 B and deviation 25 B under D-ITG's 16-byte
   * header: about 29 % of its draws fall below 16 B. */
  c = ok(W("-n", "30", "25", "--wire", "ditg", "--small", "ditg"));
  assert_int_equal(c.small, ITG_SMALL_DITG);
  check_invalid(&c, 0, "");
  assert_int_equal(itg_dist_spec_make(&c.size, 42, &d), 0);
  assert_int_equal(itg_dist_spec_make(&c.size, 42, &twin), 0);
  for (i = 0; i < NDRAWS; i++) {
    double raw = itg_dist_next(twin);
    uint32_t want = raw < 16 ? 16 : (uint32_t)floor(raw);
    uint32_t got = itg_flow_size_draw(&c.size, d, c.small, 16);
    if (got != want)
      fail_msg("draw %d: %.17g gave %u, want %u", i, raw, got, want);
    below += raw < 16;
    unlike_rounding += raw >= 16 && llround(raw) != (long long)want;
  }
  itg_dist_free(d);
  itg_dist_free(twin);
  assert_in_range(below, 2600, 3200);
  assert_true(unlike_rounding > 1000);
  /* The same seed under the default rule: the draws below 16 B are drawn
   * again and the rest rounded, so no size is 16 B more often than the
   * law's mass there says. */
  c.small = ITG_SMALL_REDRAW;
  assert_int_equal(itg_dist_spec_make(&c.size, 42, &d), 0);
  below = 0;
  for (i = 0; i < NDRAWS; i++) {
    uint32_t got = itg_flow_size_draw(&c.size, d, c.small, 16);
    assert_true(got >= 16);
    below += got == 16;
  }
  itg_dist_free(d);
  assert_true(below < 200);
  /* Sizes above D-ITG's 64000 B are sent at 64000 B, a NaN draw at the
   * header's length. */
  c = ok(W("-u", "60000", "70000", "--small", "ditg"));
  check_invalid(&c, 0, "");
  assert_int_equal(itg_dist_spec_make(&c.size, 3, &d), 0);
  assert_int_equal(itg_dist_spec_make(&c.size, 3, &twin), 0);
  for (i = 0; i < 1000; i++) {
    double raw = itg_dist_next(twin);
    uint32_t got = itg_flow_size_draw(&c.size, d, c.small, 36);
    assert_int_equal(got, raw > 64000 ? 64000 : (uint32_t)floor(raw));
    above += got == 64000;
  }
  itg_dist_free(d);
  itg_dist_free(twin);
  assert_in_range(above, 500, 700);
  /* A constant below the header is refused by the default rule and sent
   * at the header's length by D-ITG's, as D-ITG sends -c 10 at 16 B. */
  c = ok(W("-c", "10", "--wire", "ditg"));
  check_invalid(&c, ITG_EINVAL, "smaller than the 16-byte header");
  c = ok(W("-c", "10", "--wire", "ditg", "--small", "ditg"));
  check_invalid(&c, 0, "");
  assert_int_equal(itg_dist_spec_make(&c.size, 1, &d), 0);
  for (i = 0; i < 10; i++)
    assert_int_equal(itg_flow_size_draw(&c.size, d, c.small, 16), 16);
  itg_dist_free(d);
  assert_true(itg_flow_size_note(&c, note, sizeof note) == 1);
  assert_string_equal(note, "size: every draw of constant(10 B) falls below "
                            "the 16-byte ditg header: every packet is sent "
                            "at 16 B (--small ditg)");
  c = ok(W("-e", "50", "--small", "ditg"));
  itg_flow_size_note(&c, note, sizeof note);
  assert_string_equal(note,
                      "size: 51.3 % of the draws of exponential(50 B) fall "
                      "below the 36-byte native header and are sent at 36 B "
                      "(--small ditg, D-ITG's rule: they pile up there, the "
                      "mean moves up); --wire ditg (D-ITG's 16-byte header) "
                      "lowers that to 27.4 %");
  itg_flow_describe(&c, desc, sizeof desc);
  assert_non_null(strstr(desc, " small ditg; size: 51.3 %"));
  /* An unknown rule set by hand. */
  c.small = (itg_small_rule)7;
  check_invalid(&c, ITG_EINVAL, "unknown small rule 7");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_idt_options),
      cmocka_unit_test(test_size_options),
      cmocka_unit_test(test_other_options),
      cmocka_unit_test(test_override),
      cmocka_unit_test(test_clashes),
      cmocka_unit_test(test_payload_options),
      cmocka_unit_test(test_payload_fill),
      cmocka_unit_test(test_voip),
      cmocka_unit_test(test_recv_log_server),
      cmocka_unit_test(test_telnet_dns),
      cmocka_unit_test(test_games),
      cmocka_unit_test(test_onoff),
      cmocka_unit_test(test_catchup),
      cmocka_unit_test(test_size_note),
      cmocka_unit_test(test_presets_validate),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_parse_error_buffers),
      cmocka_unit_test(test_validate),
      cmocka_unit_test(test_parse_line),
      cmocka_unit_test(test_describe),
      cmocka_unit_test(test_describe_edges),
      cmocka_unit_test(test_spec_make_means),
      cmocka_unit_test(test_spec_make_trace),
      cmocka_unit_test(test_spec_draw),
      cmocka_unit_test(test_small_rule),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
