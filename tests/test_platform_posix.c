/* What only POSIX systems have of the platform contract: per-thread timer
 * slack, SIGPIPE, the descriptor limit, and symbolic links met by
 * itg__file_create. The rest of the contract, the same on every OS, is
 * tested in test_platform.c. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/tmpdir.h"
#include "itg/sender.h"
#include "platform/platform.h"

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

/* A link to a file and a dangling link are "taken" to itg__file_create,
 * and neither the file nor the dangling link's target is touched. */
static void test_file_create_links(void **state) {
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

  assert_int_equal(tmpdir_remove(dir), 0);
}

/* What the kernel says to a socket of proto (SCTP, DCCP, raw ICMP), asked
 * directly: 0, or the errno. */
static int kernel_says(itg_proto proto) {
  int fd;
  if (proto == ITG_PROTO_SCTP)
    fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
  else if (proto == ITG_PROTO_DCCP)
    fd = socket(AF_INET, SOCK_DCCP, IPPROTO_DCCP);
  else
    fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
  if (fd < 0)
    return errno;
  close(fd);
  return 0;
}

/* The sender's refusal of one of D-ITG's other transports (ICMP: a
 * round-trip flow, which no receiver takes). */
static void sender_refusal(itg_proto proto, char *err, size_t len) {
  itg_sender_cfg sc;
  itg_sender *s;
  itg_flow_cfg c;
  itg_flow_cfg_init(&c);
  c.proto = proto;
  if (proto == ITG_PROTO_ICMP)
    c.meter = ITG_METER_RTT;
  itg_sender_cfg_init(&sc);
  assert_int_equal(itg_sender_new(&sc, &s), 0);
  assert_true(itg_sender_add_flow(s, &c, err, len) < 0);
  itg_sender_free(s);
}

/* SCTP, DCCP and ICMP are refused with the reason the kernel gives, as a
 * direct socket() call sees it: no such protocol, no privilege for a raw
 * socket, or libitg's own limit (ICMP is one-way). */
static void test_other_transports(void **state) {
  static const itg_proto protos[] = {ITG_PROTO_SCTP, ITG_PROTO_DCCP,
                                     ITG_PROTO_ICMP};
  char err[256], want[128];
  size_t i;
  pid_t pid;
  int status;
  (void)state;
  for (i = 0; i < sizeof protos / sizeof protos[0]; i++) {
    const char *name = itg_proto_name(protos[i]);
    int e = kernel_says(protos[i]);
    int probe = itg__sock_probe(protos[i]);
    if (e == EPROTONOSUPPORT || e == ESOCKTNOSUPPORT) {
      assert_int_equal(probe, ITG_ENOTSUP);
      snprintf(want, sizeof want, "-T %s: this system has no %s", name, name);
    } else if (e == EPERM) {
      assert_int_equal(probe, ITG_EPERM);
      snprintf(want, sizeof want, "-T %s: a raw socket needs root", name);
    } else {
      assert_int_equal(e, 0);
      assert_int_equal(probe, 0);
      snprintf(want, sizeof want,
               protos[i] == ITG_PROTO_ICMP
                   ? "-T ICMP: ICMP flows are one-way (-m owdm"
                   : "-T %s: libitg sends UDP, TCP and ICMP flows only",
               name);
    }
    sender_refusal(protos[i], err, sizeof err);
    if (strstr(err, want) == NULL)
      fail_msg("'%s' lacks '%s'", err, want);
  }
  assert_int_equal(itg__sock_probe(ITG_PROTO_UDP), ITG_EINVAL);
  /* Without the privilege (root giving up its user), ICMP's raw socket is
   * refused as such. */
  if (geteuid() != 0)
    return;
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0)
      _exit(2);
    itg_sender_cfg sc;
    itg_sender *s;
    itg_flow_cfg c;
    int rc;
    sender_refusal(ITG_PROTO_ICMP, err, sizeof err);
    if (itg__sock_probe(ITG_PROTO_ICMP) != ITG_EPERM ||
        strstr(err, "-T ICMP: a raw socket needs root") == NULL)
      _exit(1);
    /* an ICMP flow to ITGRecv, which root could send, is refused alone */
    itg_flow_cfg_init(&c);
    c.proto = ITG_PROTO_ICMP;
    c.peer = ITG_PEER_DITG;
    c.wire = ITG_WIRE_DITG;
    itg_sender_cfg_init(&sc);
    if (itg_sender_new(&sc, &s) != 0)
      _exit(1);
    rc = itg_sender_add_flow(s, &c, err, sizeof err);
    itg_flow_cfg_init(&c);
    c.wire = ITG_WIRE_NATIVE;
    _exit(rc == ITG_EPERM &&
                  strstr(err, "-T ICMP: a raw socket needs root") != NULL &&
                  itg_sender_add_flow(s, &c, err, sizeof err) == 0
              ? 0
              : 1);
  }
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

/* SO_BINDTODEVICE: a real interface, a missing one, names out of range. */
static void test_bind_device(void **state) {
  itg__addr a;
  itg__sock s;
  (void)state;
  assert_int_equal(itg__addr_resolve("127.0.0.1", 0, 0, &a), 0);
  assert_int_equal(itg__sock_open(&a, 1, &s), 0);
  assert_int_equal(itg__sock_bind_device(s, "nosuch0"), ITG_EADDR);
  assert_int_equal(itg__sock_bind_device(s, ""), ITG_EINVAL);
  assert_int_equal(itg__sock_bind_device(s, "0123456789abcdef"), ITG_EINVAL);
  if (geteuid() == 0)
    assert_int_equal(itg__sock_bind_device(s, "lo"), 0);
  itg__sock_close(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_timer_slack),
      cmocka_unit_test(test_block_sigpipe),
      cmocka_unit_test(test_fd_limit),
      cmocka_unit_test(test_file_create_links),
      cmocka_unit_test(test_other_transports),
      cmocka_unit_test(test_bind_device),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
