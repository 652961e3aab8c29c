/* Tests of experiment files and their placement (itg/experiment.h).
 *
 * The example experiment is looked for under $ITG_SOURCE_DIR, else under
 * the current directory (the top of the source tree, where `make check`
 * runs).
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

#include "helpers/tmpdir.h"
#include "itg.h"

/* ---- helpers ------------------------------------------------------------- */

static char err[512];

static itg_experiment *parse_ok(const char *text) {
  itg_experiment *e = NULL;
  int rc = itg_experiment_parse(text, strlen(text), &e, err, sizeof err);
  if (rc != 0)
    fail_msg("parse failed (%d): %s", rc, err);
  assert_string_equal(err, "");
  return e;
}

/* Parses text that must fail with rc and a message equal to want. */
static void parse_fails(const char *text, size_t len, int rc,
                        const char *want) {
  itg_experiment *e = (itg_experiment *)&e;
  assert_int_equal(itg_experiment_parse(text, len, &e, err, sizeof err), rc);
  assert_null(e);
  assert_string_equal(err, want);
}

static itg_experiment_flow flow_at(const itg_experiment *e, size_t i) {
  itg_experiment_flow f;
  assert_int_equal(itg_experiment_flow_at(e, i, &f), 0);
  assert_int_equal(f.struct_size, sizeof f);
  return f;
}

static itg_experiment_job job_of(int nranks, const char *const *hosts) {
  itg_experiment_job job;
  assert_int_equal(itg_experiment_job_init(&job), 0);
  job.nranks = nranks;
  job.hosts = hosts;
  return job;
}

/* A text of n lines, each `line` and a newline; the caller frees it. */
static char *repeat(const char *line, size_t n, size_t *len) {
  size_t k = strlen(line);
  char *t = malloc(n * (k + 1) + 1);
  size_t i;
  assert_non_null(t);
  for (i = 0; i < n; i++) {
    memcpy(t + i * (k + 1), line, k);
    t[i * (k + 1) + k] = '\n';
  }
  t[n * (k + 1)] = '\0';
  *len = n * (k + 1);
  return t;
}

/* ---- parsing ------------------------------------------------------------- */

static void test_placement_forms(void **state) {
  itg_experiment *e = parse_ok("@2 -a @3 -T UDP -C 1000 -c 512 -t 5000\n"
                               "@nodeB -a @nodeA -T TCP -E 200 -t 5000\n"
                               "-a 10.0.0.2 -C 100 -t 5000\n"
                               "  -a ::1 -C 50 -t 5000\n"
                               "@0\t-a \"@1\" -C 10 -t 5000\n");
  itg_experiment_flow f;
  itg_flow_cfg cfg;
  (void)state;
  assert_int_equal(itg_experiment_count(e), 5);

  f = flow_at(e, 0);
  assert_int_equal(f.line, 1);
  assert_int_equal(f.sender, ITG_EXPERIMENT_RANK);
  assert_int_equal(f.sender_rank, 2);
  assert_string_equal(f.sender_host, "");
  assert_int_equal(f.receiver, ITG_EXPERIMENT_RANK);
  assert_int_equal(f.receiver_rank, 3);
  assert_string_equal(f.receiver_host, "");
  assert_true(fabs(f.rate - 1000) < 1e-9);
  assert_int_equal(itg_experiment_flow_cfg(e, 0, &cfg), 0);
  assert_int_equal(cfg.proto, ITG_PROTO_UDP);
  assert_int_equal(cfg.duration_ns, INT64_C(5000000000));
  /* The '@' word stays where the address goes, for the runner to fill. */
  assert_string_equal(cfg.dst_host, "@3");

  f = flow_at(e, 1);
  assert_int_equal(f.line, 2);
  assert_int_equal(f.sender, ITG_EXPERIMENT_HOST);
  assert_int_equal(f.sender_rank, -1);
  assert_string_equal(f.sender_host, "nodeB");
  assert_int_equal(f.receiver, ITG_EXPERIMENT_HOST);
  assert_string_equal(f.receiver_host, "nodeA");
  assert_true(fabs(f.rate - 200) < 1e-9);
  assert_int_equal(itg_experiment_flow_cfg(e, 1, &cfg), 0);
  assert_int_equal(cfg.proto, ITG_PROTO_TCP);

  f = flow_at(e, 2);
  assert_int_equal(f.sender, ITG_EXPERIMENT_ANY);
  assert_int_equal(f.sender_rank, -1);
  assert_int_equal(f.receiver, ITG_EXPERIMENT_ADDRESS);
  assert_int_equal(f.receiver_rank, -1);
  assert_string_equal(f.receiver_host, "10.0.0.2");

  f = flow_at(e, 3);
  assert_int_equal(f.sender, ITG_EXPERIMENT_ANY);
  assert_int_equal(f.receiver, ITG_EXPERIMENT_ADDRESS);
  assert_string_equal(f.receiver_host, "::1");

  f = flow_at(e, 4);
  assert_int_equal(f.sender, ITG_EXPERIMENT_RANK);
  assert_int_equal(f.sender_rank, 0);
  assert_int_equal(f.receiver, ITG_EXPERIMENT_RANK);
  assert_int_equal(f.receiver_rank, 1);

  assert_int_equal(itg_experiment_flow_at(e, 5, &f), ITG_EINVAL);
  assert_int_equal(itg_experiment_flow_cfg(e, 5, &cfg), ITG_EINVAL);
  itg_experiment_free(e);
}

/* A flow's text is its options alone: the placement word, the comment
 * (a '#' outside quotes, even inside a word) and the white space around
 * them left out, quotes kept; words appended to it win over the line's. */
static void test_flow_text(void **state) {
  itg_experiment *e =
      parse_ok("@nodeB\t -a @2 -T UDP -C 1000 -t 5000   # voice, \"quoted\"\n"
               "  -a @1 -t 5000 -x \"rx#1 a.log\" -c 64# no space\r\n"
               "-a 10.0.0.9 -C 10 -t 5000\n");
  itg_flow_cfg cfg;
  char line[256];
  (void)state;
  assert_string_equal(itg_experiment_flow_text(e, 0),
                      "-a @2 -T UDP -C 1000 -t 5000");
  assert_string_equal(itg_experiment_flow_text(e, 1),
                      "-a @1 -t 5000 -x \"rx#1 a.log\" -c 64");
  assert_string_equal(itg_experiment_flow_text(e, 2),
                      "-a 10.0.0.9 -C 10 -t 5000");
  assert_null(itg_experiment_flow_text(e, 3));
  assert_null(itg_experiment_flow_text(NULL, 0));
  snprintf(line, sizeof line, "%s -a 10.1.2.3 -Sdp 40123",
           itg_experiment_flow_text(e, 0));
  itg_flow_cfg_init(&cfg);
  assert_true(itg_flow_parse_line(&cfg, line, NULL, 0) > 0);
  assert_string_equal(cfg.dst_host, "10.1.2.3");
  assert_int_equal(cfg.sig_port, 40123);
  assert_int_equal(cfg.duration_ns, INT64_C(5000000000));
  itg_experiment_free(e);
}

static void test_comments_and_line_numbers(void **state) {
  itg_experiment *e =
      parse_ok("# an experiment\n"
               "\n"
               "   \t\n"
               "@1 -a @2 -C 10 -t 1000 # a comment after the flow\n"
               "# -a @2 -C 10 -t 1000\n"
               "   # @2 -a @1 -C 10 -t 1000, indented and commented out\r\n"
               "-a @1 -C 20 -t 1000\r\n"
               "-a @1 -C 30 -t 1000");
  (void)state;
  assert_int_equal(itg_experiment_count(e), 3);
  assert_int_equal(flow_at(e, 0).line, 4);
  assert_int_equal(flow_at(e, 1).line, 7);
  assert_int_equal(flow_at(e, 2).line, 8);
  assert_true(fabs(flow_at(e, 2).rate - 30) < 1e-9);
  itg_experiment_free(e);
}

/* The weight of each IDT law: 1 / mean, or 1 / median without a mean. */
static void test_rates(void **state) {
  static const struct {
    const char *law;
    double rate;
  } cases[] = {
      {"-C 250", 250},
      {"-E 100", 100},
      {"-O 50", 50},
      {"-U 500 1000", 1 / ((1.0 / 500 + 1.0 / 1000) / 2)},
      {"-N 10 2", 100},
      {"-G 2 5", 100},
      /* Pareto of shape 1 has no mean: median 2 * 2^(1/1) = 4 ms. */
      {"-V 1 2", 250},
      /* Cauchy kept >= 0: median hypot(3, 4) = 5 ms. */
      {"-Y 3 4", 200},
      {"VoIP", 100},
      /* Counter-Strike: Student of 0.7 dof, no mean: its location. */
      {"CSa", 1000 / 41.6994},
      /* On a third of the time. */
      {"-C 300 -B C 100 E 200", 100},
  };
  char line[128];
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    itg_experiment *e;
    snprintf(line, sizeof line, "-a @1 %s -t 1000", cases[i].law);
    e = parse_ok(line);
    if (fabs(flow_at(e, 0).rate - cases[i].rate) > 1e-6 * cases[i].rate)
      fail_msg("%s: rate %g, want %g", cases[i].law, flow_at(e, 0).rate,
               cases[i].rate);
    itg_experiment_free(e);
  }
}

static void test_parse_errors(void **state) {
  (void)state;
#define FAILS(text, rc, want) parse_fails(text, strlen(text), rc, want)
  /* A flow's own option error, with its line. */
  FAILS("# flows\n-a @1 -C 10 -t 1000\n-a @1 -C abc\n", ITG_EINVAL,
        "line 3: -C: 'abc' is not a number");
  FAILS("\n\n-a @1 -Q 3\n", ITG_EINVAL, "line 3: unknown option '-Q'");
  FAILS("-a @1 -Ft \"never\n", ITG_EINVAL,
        "line 1: unterminated quote in word 4");
  /* itg_flow_validate's refusals come with the line too. */
  FAILS("-a @1 -C 10\n-a @1 -C 10 -t 0\n", ITG_EINVAL,
        "line 2: the flow has no end: give a duration (-t), a packet count "
        "(-z) or a byte count (-k) above 0 (0 means no limit, for each of "
        "the three)");
  FAILS("-a @1 -t 1000 -Ft /nonexistent/itg-trace\n", ITG_ENOENT,
        "line 1: -Ft: trace file '/nonexistent/itg-trace' does not exist");
  FAILS("-C 10 -t 1000\n", ITG_EINVAL,
        "line 1: no receiver: give -a @RANK, -a @HOST or an address");
  FAILS("-a \"\" -C 10 -t 1000\n", ITG_EINVAL, "line 1: -a: empty host");
  FAILS("\n@3\n", ITG_EINVAL, "line 2: a placement without a flow");
  FAILS("@3 # nothing here\n", ITG_EINVAL,
        "line 1: a placement without a flow");
  FAILS("@ -a @1 -C 10 -t 1000\n", ITG_EINVAL,
        "line 1: '@' names no rank or host");
  FAILS("-a @ -C 10 -t 1000\n", ITG_EINVAL,
        "line 1: '@' names no rank or host");
  FAILS("@\"a b\" -a @1 -t 1000\n", ITG_EINVAL,
        "line 1: @\"a: a placement holds no quotes");
  FAILS("@4096 -a @1 -t 1000\n", ITG_EINVAL,
        "line 1: @4096: no job has that rank (at most 4096)");
  FAILS("-a @99999999999999999999999 -t 1000\n", ITG_EINVAL,
        "line 1: @99999999999999999999999: no job has that rank (at most "
        "4096)");
  FAILS("", ITG_EINVAL, "no flow in the experiment");
  FAILS("# nothing\n\n", ITG_EINVAL, "no flow in the experiment");
#undef FAILS
}

static void test_parse_arguments(void **state) {
  itg_experiment *e = NULL;
  itg_experiment_flow f;
  itg_flow_cfg cfg;
  (void)state;
  assert_int_equal(itg_experiment_parse(NULL, 1, &e, err, sizeof err),
                   ITG_EINVAL);
  assert_int_equal(itg_experiment_parse("-a @1", 5, NULL, NULL, 0), ITG_EINVAL);
  /* No error buffer: the code alone. */
  assert_int_equal(itg_experiment_parse("-C x", 4, &e, NULL, 0), ITG_EINVAL);
  assert_null(e);
  /* A small buffer gets a terminated beginning of the message. */
  assert_int_equal(itg_experiment_parse("-C x", 4, &e, err, 5), ITG_EINVAL);
  assert_string_equal(err, "line");
  assert_int_equal(itg_experiment_count(NULL), 0);
  assert_int_equal(itg_experiment_flow_at(NULL, 0, &f), ITG_EINVAL);
  assert_int_equal(itg_experiment_flow_cfg(NULL, 0, &cfg), ITG_EINVAL);
  itg_experiment_free(NULL);
  /* The text need not be terminated: len bounds it. */
  e = NULL;
  assert_int_equal(
      itg_experiment_parse("-a @1 -C 10 -t 1000XXXX", 19, &e, err, sizeof err),
      0);
  assert_int_equal(itg_experiment_count(e), 1);
  itg_experiment_free(e);
}

/* ---- hostile input ------------------------------------------------------- */

static void test_hostile_lines(void **state) {
  size_t len;
  char *t;
  (void)state;
  /* A line one byte over the limit, on line 2. */
  t = malloc(ITG_EXPERIMENT_LINE_MAX + 64);
  assert_non_null(t);
  strcpy(t, "# first\n");
  len = strlen(t);
  memset(t + len, ' ', ITG_EXPERIMENT_LINE_MAX + 1);
  len += ITG_EXPERIMENT_LINE_MAX + 1;
  parse_fails(t, len, ITG_EINVAL, "line 2: longer than 8191 bytes");
  /* At the limit it is read (a long comment after a flow). */
  memcpy(t + 8, "-a @1 -t 10 #", 13);
  len--;
  {
    itg_experiment *e = NULL;
    assert_int_equal(itg_experiment_parse(t, len, &e, err, sizeof err), 0);
    assert_int_equal(itg_experiment_count(e), 1);
    itg_experiment_free(e);
  }
  free(t);
  /* A NUL byte would hide the rest of the line from the word splitter. */
  parse_fails("-a @1 -t 10\n-a @1 -t 10\0 -C x\n", 27, ITG_EINVAL,
              "line 2: holds a NUL byte");
  /* A placement word longer than a host name. */
  t = malloc(ITG_HOST_MAX + 32);
  assert_non_null(t);
  t[0] = '@';
  memset(t + 1, 'h', ITG_HOST_MAX);
  strcpy(t + 1 + ITG_HOST_MAX, " -a @1 -t 10");
  parse_fails(t, strlen(t), ITG_EINVAL,
              "line 1: placement longer than 255 bytes");
  free(t);
}

/* 10^5 lines: comments are read through, flows stop at the limit. */
static void test_hostile_many_lines(void **state) {
  itg_experiment *e = NULL;
  size_t len;
  char *t = repeat("# a comment line", 100000, &len);
  char *u;
  (void)state;
  u = realloc(t, len + 32);
  assert_non_null(u);
  strcpy(u + len, "-a @1 -t 10\n");
  assert_int_equal(itg_experiment_parse(u, strlen(u), &e, err, sizeof err), 0);
  assert_int_equal(itg_experiment_count(e), 1);
  assert_int_equal(flow_at(e, 0).line, 100001);
  itg_experiment_free(e);
  free(u);

  t = repeat("-a @1 -C 10 -t 10", 100000, &len);
  parse_fails(t, len, ITG_EINVAL, "line 4097: more than 4096 flows");
  free(t);
  /* Exactly the limit is taken. */
  t = repeat("-a @1 -C 10 -t 10", ITG_EXPERIMENT_FLOWS_MAX, &len);
  assert_int_equal(itg_experiment_parse(t, len, &e, err, sizeof err), 0);
  assert_int_equal(itg_experiment_count(e), ITG_EXPERIMENT_FLOWS_MAX);
  itg_experiment_free(e);
  free(t);
}

/* ---- placement ----------------------------------------------------------- */

/* Loads 1000, 1000, 500, 300, 200 pkt/s on two sender ranks (1 and 2 of
 * three: rank 0 gathers the logs): heaviest first onto the least loaded,
 * the lower rank on a tie, gives 1000+500 and 1000+300+200. */
static void test_place_balanced(void **state) {
  static const char *text = "-a 10.0.0.9 -C 300 -t 1000\n"
                            "-a 10.0.0.9 -C 1000 -t 1000\n"
                            "-a 10.0.0.9 -C 200 -t 1000\n"
                            "-a 10.0.0.9 -C 500 -t 1000\n"
                            "-a 10.0.0.9 -C 1000 -t 1000\n";
  static const int want[5] = {2, 1, 2, 1, 2};
  itg_experiment *e = parse_ok(text);
  itg_experiment_job job = job_of(3, NULL);
  int snd[5], rcv[5], snd2[5], rcv2[5];
  double load[3] = {0, 0, 0};
  size_t i;
  (void)state;
  assert_int_equal(itg_experiment_place(e, &job, snd, rcv, 5, err, sizeof err),
                   0);
  for (i = 0; i < 5; i++) {
    assert_int_equal(snd[i], want[i]);
    assert_int_equal(rcv[i], -1);
    load[snd[i]] += flow_at(e, i).rate;
  }
  assert_true(load[0] == 0 && load[1] == 1500 && load[2] == 1500);
  /* The same file on the same job places the same, parsed again or not. */
  assert_int_equal(
      itg_experiment_place(e, &job, snd2, rcv2, 5, err, sizeof err), 0);
  assert_memory_equal(snd, snd2, sizeof snd);
  itg_experiment_free(e);
  e = parse_ok(text);
  assert_int_equal(
      itg_experiment_place(e, &job, snd2, rcv2, 5, err, sizeof err), 0);
  assert_memory_equal(snd, snd2, sizeof snd);
  itg_experiment_free(e);
}

/* Lines that place their sender load their ranks before the others are
 * spread; a flow is not sent from its own receiver rank when another
 * sender rank exists; one rank alone sends everything. */
static void test_place_explicit(void **state) {
  itg_experiment *e = parse_ok("@1 -a @0 -C 1000 -t 1000\n"
                               "-a @1 -C 400 -t 1000\n"
                               "-a @2 -C 300 -t 1000\n"
                               "-a @0 -C 100 -t 1000\n");
  itg_experiment_job job = job_of(3, NULL);
  int snd[4], rcv[4];
  (void)state;
  assert_int_equal(itg_experiment_place(e, &job, snd, rcv, 4, err, sizeof err),
                   0);
  /* Rank 1 starts at 1000; 400 pkt/s to rank 1 goes to 2 (which is also
   * the lighter); 300 to rank 2 cannot go to 2, so to 1; 100 to the
   * lighter, 2 (400 against 1300). */
  assert_int_equal(snd[0], 1);
  assert_int_equal(snd[1], 2);
  assert_int_equal(snd[2], 1);
  assert_int_equal(snd[3], 2);
  assert_int_equal(rcv[0], 0);
  assert_int_equal(rcv[1], 1);
  assert_int_equal(rcv[2], 2);
  assert_int_equal(rcv[3], 0);

  /* Two ranks: rank 1 alone sends the lines without a sender, its own
   * receiver's included. */
  job.nranks = 2;
  itg_experiment_free(e);
  e = parse_ok("-a @1 -C 10 -t 1000\n-a @0 -C 20 -t 1000\n");
  assert_int_equal(itg_experiment_place(e, &job, snd, rcv, 2, err, sizeof err),
                   0);
  assert_int_equal(snd[0], 1);
  assert_int_equal(snd[1], 1);
  /* One rank: rank 0 sends. */
  job.nranks = 1;
  itg_experiment_free(e);
  e = parse_ok("-a 127.0.0.1 -C 10 -t 1000\n");
  assert_int_equal(itg_experiment_place(e, &job, snd, rcv, 1, err, sizeof err),
                   0);
  assert_int_equal(snd[0], 0);
  assert_int_equal(rcv[0], -1);
  itg_experiment_free(e);
}

static void test_place_hosts(void **state) {
  static const char *const hosts[4] = {"alpha", "beta", "beta", "gamma"};
  itg_experiment *e = parse_ok("@beta -a @gamma -C 10 -t 1000\n"
                               "@gamma -a @beta -C 10 -t 1000\n"
                               "@2 -a @alpha -C 10 -t 1000\n");
  itg_experiment_job job = job_of(4, hosts);
  int snd[3], rcv[3];
  (void)state;
  assert_int_equal(itg_experiment_place(e, &job, snd, rcv, 3, err, sizeof err),
                   0);
  /* A host is its first rank. */
  assert_int_equal(snd[0], 1);
  assert_int_equal(rcv[0], 3);
  assert_int_equal(snd[1], 3);
  assert_int_equal(rcv[1], 1);
  assert_int_equal(snd[2], 2);
  assert_int_equal(rcv[2], 0);
  itg_experiment_free(e);
}

/* Placements the job cannot meet are refused with their line, and the
 * caller's arrays are left as they were. */
static void test_place_errors(void **state) {
  static const char *const hosts[2] = {"alpha", "beta"};
  static const int untouched[3] = {77, 77, 77};
  itg_experiment_job job = job_of(2, hosts);
  itg_experiment *e;
  int snd[3], rcv[3];
  (void)state;
#define PLACE_FAILS(text, n, rc, want)                                         \
  do {                                                                         \
    e = parse_ok(text);                                                        \
    memcpy(snd, untouched, sizeof snd);                                        \
    memcpy(rcv, untouched, sizeof rcv);                                        \
    assert_int_equal(                                                          \
        itg_experiment_place(e, &job, snd, rcv, n, err, sizeof err), rc);      \
    assert_string_equal(err, want);                                            \
    assert_memory_equal(snd, untouched, sizeof snd);                           \
    assert_memory_equal(rcv, untouched, sizeof rcv);                           \
    itg_experiment_free(e);                                                    \
  } while (0)
  PLACE_FAILS("-a @1 -t 10\n\n@3 -a @1 -t 10\n", 2, ITG_EINVAL,
              "line 3: @3: no such rank (the job has 2)");
  PLACE_FAILS("-a @1 -t 10\n-a @2 -t 10\n", 2, ITG_EINVAL,
              "line 2: @2: no such rank (the job has 2)");
  PLACE_FAILS("-a @1 -t 10\n-a @1 -t 10\n@delta -a @1 -t 10\n", 3,
              ITG_EINVAL,
              "line 3: @delta: no rank of the job runs on that host");
  PLACE_FAILS("-a @gamma -t 10\n", 1, ITG_EINVAL,
              "line 1: @gamma: no rank of the job runs on that host");
  PLACE_FAILS("-a @1 -t 10\n-a @1 -t 10\n", 3, ITG_EINVAL,
              "room for 3 flows, the experiment has 2");
  job.hosts = NULL;
  PLACE_FAILS("-a @alpha -t 10\n", 1, ITG_EINVAL,
              "line 1: @alpha: the job names no hosts");
  job.nranks = 0;
  PLACE_FAILS("-a @0 -t 10\n", 1, ITG_EINVAL,
              "a job has 1 to 4096 ranks, not 0");
  job.nranks = ITG_EXPERIMENT_RANKS_MAX + 1;
  PLACE_FAILS("-a @0 -t 10\n", 1, ITG_EINVAL,
              "a job has 1 to 4096 ranks, not 4097");
  {
    static const char *const holes[2] = {"alpha", NULL};
    job.nranks = 2;
    job.hosts = holes;
    PLACE_FAILS("-a @0 -t 10\n", 1, ITG_EINVAL, "rank 1 has no host name");
  }
  {
    /* The sizes in the message are this machine's (32 or 64 bits). */
    char want[160];
    snprintf(want, sizeof want,
             "itg_experiment_job: size 1 is not one this library knows (%zu "
             "to %zu): fill it with itg_experiment_job_init",
             sizeof(size_t), sizeof(itg_experiment_job));
    job.struct_size = 1;
    PLACE_FAILS("-a @0 -t 10\n", 1, ITG_EINVAL, want);
  }
#undef PLACE_FAILS
  e = parse_ok("-a @0 -t 10\n");
  assert_int_equal(itg_experiment_place(e, NULL, snd, rcv, 1, NULL, 0),
                   ITG_EINVAL);
  job = job_of(1, NULL);
  assert_int_equal(itg_experiment_place(NULL, &job, snd, rcv, 1, NULL, 0),
                   ITG_EINVAL);
  assert_int_equal(itg_experiment_place(e, &job, NULL, rcv, 1, NULL, 0),
                   ITG_EINVAL);
  assert_int_equal(itg_experiment_place(e, &job, snd, NULL, 1, NULL, 0),
                   ITG_EINVAL);
  itg_experiment_free(e);
}

/* ---- growable structs ---------------------------------------------------- */

/* A caller whose header knows fewer fields gets only those written, and
 * a job of an older layout keeps the defaults of the fields it lacks. */
static void test_struct_sizes(void **state) {
  itg_experiment *e = parse_ok("\n@1 -a @0 -t 10\n");
  unsigned char buf[sizeof(itg_experiment_flow) + 16];
  itg_experiment_flow *f = (itg_experiment_flow *)buf;
  size_t small = offsetof(itg_experiment_flow, sender);
  itg_experiment_job job;
  int snd[1], rcv[1];
  (void)state;
  memset(buf, 0xA5, sizeof buf);
  assert_int_equal(itg_experiment_flow_at_size(e, 0, f, small), 0);
  assert_int_equal(f->struct_size, small);
  assert_int_equal(f->line, 2);
  assert_int_equal(buf[small], 0xA5);
  assert_int_equal(buf[sizeof buf - 1], 0xA5);
  assert_int_equal(itg_experiment_flow_at_size(e, 0, f, 1), ITG_EINVAL);
  assert_int_equal(
      itg_experiment_flow_at_size(e, 0, f, sizeof(itg_experiment_flow) + 1),
      ITG_EINVAL);
  assert_int_equal(itg_experiment_flow_cfg_size(e, 0, NULL, 8), ITG_EINVAL);

  assert_int_equal(itg_experiment_job_init_size(NULL, sizeof job), ITG_EINVAL);
  assert_int_equal(itg_experiment_job_init_size(&job, sizeof job + 1),
                   ITG_EINVAL);
  memset(&job, 0xA5, sizeof job);
  assert_int_equal(
      itg_experiment_job_init_size(&job, offsetof(itg_experiment_job, hosts)),
      0);
  assert_int_equal(job.struct_size, offsetof(itg_experiment_job, hosts));
  assert_int_equal(job.nranks, 0);
  /* hosts lies past the caller's layout: the library's default (none)
   * holds, whatever the memory there. */
  job.nranks = 2;
  assert_int_equal(itg_experiment_place(e, &job, snd, rcv, 1, err, sizeof err),
                   0);
  assert_int_equal(snd[0], 1);
  assert_int_equal(rcv[0], 0);
  itg_experiment_free(e);
}

/* ---- files --------------------------------------------------------------- */

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
  assert_int_equal(fclose(f), 0);
}

static void test_read_file(void **state) {
  char dir[512], path[600], want[700];
  itg_experiment *e = NULL;
  FILE *f;
  (void)state;
  assert_int_equal(tmpdir_make(dir, sizeof dir, "itg_test_experiment_"), 0);
  snprintf(path, sizeof path, "%s/two.exp", dir);
  write_file(path, "# two flows\n@1 -a @2 -C 10 -t 10\n-a @1 -C 20 -t 10\n");
  assert_int_equal(itg_experiment_read(path, &e, err, sizeof err), 0);
  assert_int_equal(itg_experiment_count(e), 2);
  assert_int_equal(flow_at(e, 1).line, 3);
  itg_experiment_free(e);

  write_file(path, "-a @1 -C 10 -t 10\n-a @1 -C -5 -t 10\n");
  assert_int_equal(itg_experiment_read(path, &e, err, sizeof err), ITG_EINVAL);
  assert_null(e);
  assert_string_equal(err, "line 2: -C: rate must be > 0, got '-5'");

  /* One byte above the limit (a sparse file) is refused unparsed. */
  snprintf(path, sizeof path, "%s/big.exp", dir);
  f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fseek(f, ITG_EXPERIMENT_FILE_MAX, SEEK_SET), 0);
  assert_int_equal(fputc('\n', f), '\n');
  assert_int_equal(fclose(f), 0);
  assert_int_equal(itg_experiment_read(path, &e, err, sizeof err), ITG_EINVAL);
  snprintf(want, sizeof want, "%s: larger than %d bytes", path,
           ITG_EXPERIMENT_FILE_MAX);
  assert_string_equal(err, want);

  snprintf(path, sizeof path, "%s/none.exp", dir);
  assert_int_equal(itg_experiment_read(path, &e, err, sizeof err), ITG_ENOENT);
  snprintf(want, sizeof want, "%s: no such file or directory", path);
  assert_string_equal(err, want);
  assert_int_equal(itg_experiment_read(NULL, &e, err, sizeof err), ITG_EINVAL);
  assert_int_equal(tmpdir_remove(dir), 0);
}

/* The example in the tree parses and places on four ranks. */
static void test_example_file(void **state) {
  const char *top = getenv("ITG_SOURCE_DIR");
  char path[512];
  itg_experiment *e = NULL;
  itg_experiment_job job = job_of(4, NULL);
  int snd[ITG_EXPERIMENT_FLOWS_MAX], rcv[ITG_EXPERIMENT_FLOWS_MAX];
  size_t i, n;
  int tcp = 0, udp = 0;
  (void)state;
  snprintf(path, sizeof path, "%s/examples/experiments/mixed.exp",
           top != NULL ? top : ".");
  if (itg_experiment_read(path, &e, err, sizeof err) != 0)
    fail_msg("%s", err);
  n = itg_experiment_count(e);
  assert_true(n >= 5);
  assert_int_equal(itg_experiment_place(e, &job, snd, rcv, n, err, sizeof err),
                   0);
  for (i = 0; i < n; i++) {
    itg_flow_cfg cfg;
    assert_int_equal(itg_experiment_flow_cfg(e, i, &cfg), 0);
    tcp += cfg.proto == ITG_PROTO_TCP;
    udp += cfg.proto == ITG_PROTO_UDP;
    assert_true(snd[i] >= 0 && snd[i] < 4);
    assert_true(rcv[i] >= 0 && rcv[i] < 4);
    assert_true(snd[i] != rcv[i]);
  }
  assert_true(tcp > 0 && udp > 0);
  itg_experiment_free(e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_placement_forms),
      cmocka_unit_test(test_comments_and_line_numbers),
      cmocka_unit_test(test_rates),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_parse_arguments),
      cmocka_unit_test(test_hostile_lines),
      cmocka_unit_test(test_hostile_many_lines),
      cmocka_unit_test(test_place_balanced),
      cmocka_unit_test(test_place_explicit),
      cmocka_unit_test(test_flow_text),
      cmocka_unit_test(test_place_hosts),
      cmocka_unit_test(test_place_errors),
      cmocka_unit_test(test_struct_sizes),
      cmocka_unit_test(test_read_file),
      cmocka_unit_test(test_example_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
