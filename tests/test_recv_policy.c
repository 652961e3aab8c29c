/* What a peer may ask of a receiver: the logs it names (-x) never reach
 * an existing file, its own log or a link's target; refused flows leave
 * nothing behind; privileged data ports and log servers (-X) only as the
 * receiver's configuration allows; a log directory that is not there is
 * refused at start. Each over loopback, in one process, every wait
 * bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "engine/control.h"
#include "helpers/tmpdir.h"
#include "itg/receiver.h"
#include "itg/sender.h"

#define SEC INT64_C(1000000000)
#define WAIT (30 * SEC)

/* The test's directory: log_dir of its receivers. */
static char dir[256];

static int make_dir(void **state) {
  (void)state;
  return tmpdir_make(dir, sizeof dir, "itg-policy-") == 0 ? 0 : -1;
}

static int remove_dir(void **state) {
  (void)state;
  return tmpdir_remove(dir) == 0 ? 0 : -1;
}

static void in_dir(char *buf, size_t len, const char *name) {
  snprintf(buf, len, "%.255s/%.63s", dir, name);
}

/* Writes text to the file name in dir. */
static void put_text(const char *name, const char *text) {
  char path[600];
  FILE *f;
  in_dir(path, sizeof path, name);
  f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fputs(text, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
}

/* Whether path exists (a link counts, whatever it points to). */
static int exists(const char *path) {
  uv_fs_t req;
  int rc = uv_fs_lstat(NULL, &req, path, NULL);
  uv_fs_req_cleanup(&req);
  return rc == 0;
}

static int exists_in_dir(const char *name) {
  char path[600];
  in_dir(path, sizeof path, name);
  return exists(path);
}

/* The bytes of a file, NUL-terminated (at most 255). */
static void read_text(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "rb");
  size_t n;
  assert_non_null(f);
  n = fread(buf, 1, len - 1, f);
  buf[n] = '\0';
  fclose(f);
}

/* Packet records of flow id in the log file name of dir, and whether the
 * file reads cleanly to its end. */
static size_t packets_in_log(const char *name, uint32_t id) {
  char path[600];
  itg_logreader *lr;
  itg_logrec rec;
  size_t n = 0;
  int rc;
  in_dir(path, sizeof path, name);
  assert_int_equal(itg_logreader_open(path, &lr), 0);
  while ((rc = itg_logreader_next(lr, &rec)) == 1)
    if (rec.flow_id == id && !(rec.flags & ITG_REC_FLOW_END))
      n++;
  assert_int_equal(rc, 0);
  itg_logreader_close(lr);
  return n;
}

static itg_receiver *start_with(itg_receiver_cfg *cfg) {
  itg_receiver *r;
  strcpy(cfg->bind_host, "127.0.0.1");
  cfg->sig_port = 0;
  snprintf(cfg->log_dir, sizeof cfg->log_dir, "%s", dir);
  assert_int_equal(itg_receiver_new(cfg, &r), 0);
  assert_int_equal(itg_receiver_start(r), 0);
  return r;
}

static itg_receiver *start_receiver(void) {
  itg_receiver_cfg cfg;
  itg_receiver_cfg_init(&cfg);
  return start_with(&cfg);
}

static void stop_receiver(itg_receiver *r) {
  assert_int_equal(itg_receiver_wait_idle(r, WAIT), 0);
  assert_int_equal(itg_receiver_stop(r), 0);
  itg_receiver_free(r);
}

/* A loopback port free for UDP right now. */
static uint16_t free_port(void) {
  itg__addr a;
  itg__sock fd;
  uint16_t port;
  assert_int_equal(itg__addr_resolve("127.0.0.1", 0, 0, &a), 0);
  assert_int_equal(itg__sock_open(&a, 1, &fd), 0);
  assert_int_equal(itg__sock_bind(fd, &a), 0);
  assert_int_equal(itg__sock_local(fd, &a), 0);
  port = itg__addr_port(&a);
  itg__sock_close(fd);
  return port;
}

/* Runs one flow to r with more options to its end; returns its result. */
static itg_flow_result run_flow(itg_receiver *r, const char *more) {
  char line[512], err[256] = "";
  itg_sender_cfg sc;
  itg_flow_cfg c;
  itg_flow_result res;
  itg_sender *s;
  itg_flow_cfg_init(&c);
  snprintf(line, sizeof line, "-a 127.0.0.1 -Sdp %u -rp %u -C 1000 -c 64 %s",
           (unsigned)itg_receiver_port(r), (unsigned)free_port(), more);
  if (itg_flow_parse_line(&c, line, err, sizeof err) <= 0)
    fail_msg("%s: %s", line, err);
  itg_sender_cfg_init(&sc);
  assert_int_equal(itg_sender_new(&sc, &s), 0);
  assert_int_equal(itg_sender_add_flow(s, &c, NULL, 0), 0);
  assert_int_equal(itg_sender_start(s), 0);
  assert_int_equal(itg_sender_wait(s, WAIT), 0);
  assert_int_equal(itg_sender_flow_result(s, 0, &res), 0);
  itg_sender_free(s);
  return res;
}

/* Asks r over raw signaling for a flow with this log name, log server
 * (host "" for none) and data port; returns the FLOW_OPEN_ACK. The
 * connection ends with it, ending a flow it opened. */
static itg__ctl_msg ask(itg_receiver *r, const char *name, const char *host,
                        uint16_t log_port, uint16_t port) {
  itg__ctl_reader rd;
  itg__ctl_msg m;
  itg__addr a;
  itg__sock fd;
  assert_int_equal(itg__addr_resolve("127.0.0.1", itg_receiver_port(r), 0, &a),
                   0);
  assert_int_equal(itg__sock_open(&a, 0, &fd), 0);
  assert_int_equal(itg__sock_connect(fd, &a, 5 * SEC), 0);
  itg__frame_reader_reset(&rd.fr);
  itg__ctl_init(&m, ITG__CTL_HELLO);
  m.version = ITG__CTL_VERSION;
  assert_int_equal(itg__ctl_send(fd, &m, 5 * SEC), 0);
  assert_int_equal(itg__ctl_recv(fd, &rd, &m, 5 * SEC), 0);
  assert_int_equal(m.type, ITG__CTL_HELLO_ACK);
  itg__ctl_init(&m, ITG__CTL_FLOW_OPEN);
  m.flow_id = 1;
  m.id_auto = 1;
  m.proto = ITG_PROTO_UDP;
  m.meter = ITG_METER_OWD;
  m.wire = ITG_WIRE_NATIVE;
  m.port = port;
  m.tos = -1;
  m.ttl = -1;
  snprintf(m.text, sizeof m.text, "%s", name);
  snprintf(m.log_host, sizeof m.log_host, "%s", host);
  m.log_port = log_port;
  m.log_transport = ITG_LOG_TCP;
  assert_int_equal(itg__ctl_send(fd, &m, 5 * SEC), 0);
  assert_int_equal(itg__ctl_recv(fd, &rd, &m, 10 * SEC), 0);
  assert_int_equal(m.type, ITG__CTL_FLOW_OPEN_ACK);
  itg__sock_close(fd);
  return m;
}

/* 1. A name that exists gets NAME.1, then NAME.2: the file there keeps
 * its bytes, and each sender is told where its log went. */
static void test_name_taken(void **state) {
  itg_receiver *r = start_receiver();
  itg_flow_result res;
  char path[600], text[256];
  (void)state;
  put_text("victim", "precious");
  res = run_flow(r, "-z 30 -x victim");
  assert_int_equal(res.status, 0);
  assert_int_equal(res.received, 30);
  assert_non_null(strstr(res.receiver_note, "victim.1"));
  res = run_flow(r, "-z 20 -x victim");
  assert_int_equal(res.status, 0);
  assert_non_null(strstr(res.receiver_note, "victim.2"));
  stop_receiver(r);
  in_dir(path, sizeof path, "victim");
  read_text(path, text, sizeof text);
  assert_string_equal(text, "precious");
  assert_int_equal(packets_in_log("victim.1", 1), 30);
  assert_int_equal(packets_in_log("victim.2", 1), 20);
}

/* 2. A name that is a symbolic link, to a file outside log_dir or to one
 * not there yet: neither target is written or made. */
static void test_link_not_followed(void **state) {
  char outside[512], target[600], missing[600], link[600], text[256];
  itg_receiver *r;
  uv_fs_t req;
  FILE *f;
  int rc;
  (void)state;
  assert_int_equal(tmpdir_make(outside, sizeof outside, "itg-outside-"), 0);
  snprintf(target, sizeof target, "%s/target", outside);
  snprintf(missing, sizeof missing, "%s/missing", outside);
  f = fopen(target, "wb");
  assert_non_null(f);
  fputs("outside", f);
  assert_int_equal(fclose(f), 0);
  in_dir(link, sizeof link, "link");
  rc = uv_fs_symlink(NULL, &req, target, link, 0, NULL);
  uv_fs_req_cleanup(&req);
  if (rc == 0) {
    rc = uv_fs_readlink(NULL, &req, link, NULL);
    uv_fs_req_cleanup(&req);
  }
  if (rc != 0) {
    /* Windows lets only some users make links, and wine says it made one
     * it did not. */
    assert_int_equal(tmpdir_remove(outside), 0);
    skip();
  }
  in_dir(link, sizeof link, "dangling");
  assert_int_equal(uv_fs_symlink(NULL, &req, missing, link, 0, NULL), 0);
  uv_fs_req_cleanup(&req);

  r = start_receiver();
  assert_int_equal(run_flow(r, "-z 10 -x link").status, 0);
  assert_int_equal(run_flow(r, "-z 10 -x dangling").status, 0);
  stop_receiver(r);
  read_text(target, text, sizeof text);
  assert_string_equal(text, "outside");
  assert_false(exists(missing));
  assert_int_equal(packets_in_log("link.1", 1), 10);
  assert_int_equal(packets_in_log("dangling.1", 1), 10);
  assert_int_equal(tmpdir_remove(outside), 0);
}

/* 3. The receiver's own log, named through another spelling of its
 * directory while a flow of its own is in it: its records stay whole. */
static void test_own_log(void **state) {
  itg_receiver_cfg cfg;
  itg_receiver *r;
  const char *base = strrchr(dir, '/') + 1;
  (void)state;
  itg_receiver_cfg_init(&cfg);
  strcpy(cfg.bind_host, "127.0.0.1");
  cfg.sig_port = 0;
  in_dir(cfg.log_path, sizeof cfg.log_path, "own.log");
  snprintf(cfg.log_dir, sizeof cfg.log_dir, "%.255s/../%.63s/.", dir, base);
  assert_int_equal(itg_receiver_new(&cfg, &r), 0);
  assert_int_equal(itg_receiver_start(r), 0);
  assert_int_equal(run_flow(r, "-z 200").received, 200);
  assert_int_equal(run_flow(r, "-z 50 -x own.log").received, 50);
  stop_receiver(r);
  assert_int_equal(packets_in_log("own.log", 1), 200);
  assert_int_equal(packets_in_log("own.log.1", 1), 50);
}

/* 4. Names that are not plain file names are refused, without a control
 * character in the reply, and nothing is made. */
static void test_bad_names(void **state) {
  static const char *const names[] = {
      "esc\x1b[31mred", "new\nline", "tab\tname", "bell\a", "del\x7f",
      "../up",          "a/b",       "a\\b",      "a:b",    ".hidden",
      "..",             "a.1.2.spill",
  };
  itg_receiver *r = start_receiver();
  uv_fs_t req;
  uv_dirent_t ent;
  size_t i, j;
  (void)state;
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    itg__ctl_msg a = ask(r, names[i], "", 0, 0);
    assert_int_equal(a.status, ITG_EINVAL);
    assert_non_null(strstr(a.text, "bad receiver log name"));
    for (j = 0; a.text[j] != '\0'; j++)
      assert_true((unsigned char)a.text[j] >= 0x20 && a.text[j] != 0x7f);
  }
  stop_receiver(r);
  assert_int_equal(uv_fs_scandir(NULL, &req, dir, 0, NULL), 0);
  assert_int_equal(uv_fs_scandir_next(&req, &ent), UV_EOF);
  uv_fs_req_cleanup(&req);
}

/* 5. A flow refused (its data port is taken; a privileged port) makes no
 * log file. */
static void test_refused_makes_nothing(void **state) {
  itg_receiver *r = start_receiver();
  itg__ctl_msg a;
  itg__addr addr;
  itg__sock busy;
  (void)state;
  assert_int_equal(itg__addr_resolve("127.0.0.1", 0, 0, &addr), 0);
  assert_int_equal(itg__sock_open(&addr, 1, &busy), 0);
  assert_int_equal(itg__sock_bind(busy, &addr), 0);
  assert_int_equal(itg__sock_local(busy, &addr), 0);
  a = ask(r, "fresh", "", 0, itg__addr_port(&addr));
  assert_true(a.status < 0);
  assert_false(exists_in_dir("fresh"));
  a = ask(r, "fresh", "", 0, 80);
  assert_int_equal(a.status, ITG_EPERM);
  assert_false(exists_in_dir("fresh"));
  itg__sock_close(busy);
  stop_receiver(r);
}

/* 6. A data port below 1024 only when the configuration allows it; port
 * 0 (the system's pick) always. */
static void test_privileged_port(void **state) {
  itg_receiver_cfg cfg;
  itg_receiver *r = start_receiver();
  itg__ctl_msg a;
  (void)state;
  a = ask(r, "", "", 0, 80);
  assert_int_equal(a.status, ITG_EPERM);
  assert_non_null(strstr(a.text, "below 1024"));
  a = ask(r, "", "", 0, 1023);
  assert_int_equal(a.status, ITG_EPERM);
  a = ask(r, "", "", 0, 0);
  assert_int_equal(a.status, 0);
  assert_true(a.port >= 1024);
  stop_receiver(r);

  itg_receiver_cfg_init(&cfg);
  cfg.allow_privileged_ports = 1;
  r = start_with(&cfg);
  /* Unprivileged, the system may still refuse the bind itself. */
  a = ask(r, "", "", 0, 80);
  assert_null(strstr(a.text, "below 1024"));
  stop_receiver(r);
}

/* 7. Log servers: one outside loopback and the sender's address is
 * refused before the receiver connects anywhere, unless listed. 0.0.0.0
 * is such a server; connecting to it stays on this host, and with no
 * server on the port the session spills (the flow is not refused). */
static void test_log_servers(void **state) {
  itg_receiver_cfg cfg;
  itg_receiver *r = start_receiver();
  uint16_t closed = free_port();
  itg__ctl_msg a;
  (void)state;
  a = ask(r, "shipped", "0.0.0.0", closed, 0);
  assert_int_equal(a.status, ITG_EPERM);
  assert_non_null(strstr(a.text, "--log-servers"));
  stop_receiver(r);
  assert_false(exists_in_dir("shipped"));

  itg_receiver_cfg_init(&cfg);
  snprintf(cfg.log_servers, sizeof cfg.log_servers, "10.0.0.0/8, 0.0.0.0/32");
  r = start_with(&cfg);
  a = ask(r, "shipped", "0.0.0.0", closed, 0);
  assert_int_equal(a.status, 0);
  stop_receiver(r);

  itg_receiver_cfg_init(&cfg);
  snprintf(cfg.log_servers, sizeof cfg.log_servers, "10.0.0.0/8,nowhere");
  assert_int_equal(itg_receiver_new(&cfg, &r), ITG_EINVAL);
}

/* 8. A log directory that is not there, or not a directory, is refused at
 * start. */
static void test_log_dir(void **state) {
  itg_receiver_cfg cfg;
  itg_receiver *r;
  (void)state;
  itg_receiver_cfg_init(&cfg);
  strcpy(cfg.bind_host, "127.0.0.1");
  cfg.sig_port = 0;
  in_dir(cfg.log_dir, sizeof cfg.log_dir, "nonexistent");
  assert_int_equal(itg_receiver_new(&cfg, &r), 0);
  assert_int_equal(itg_receiver_start(r), ITG_ENOENT);
  itg_receiver_free(r);
  put_text("plain", "not a directory");
  in_dir(cfg.log_dir, sizeof cfg.log_dir, "plain");
  assert_int_equal(itg_receiver_new(&cfg, &r), 0);
  assert_int_equal(itg_receiver_start(r), ITG_ENOENT);
  itg_receiver_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_name_taken, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_link_not_followed, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_own_log, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_bad_names, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_refused_makes_nothing, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_privileged_port, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_log_servers, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_log_dir, make_dir, remove_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
