/* Batched datagram I/O on POSIX: sendmmsg/recvmmsg where the C library
 * has them, else (or when the kernel refuses them) one sendmsg/recvmsg per
 * datagram. Kernel receive timestamps come back as SO_TIMESTAMPNS (or,
 * where only those are given, SO_TIMESTAMP) control messages. Building
 * with ITG_NO_MMSG forces the one-by-one path. */
#define _GNU_SOURCE
#include "platform/platform.h"
#include "platform/posix/posix.h"

#include <errno.h>
#include <string.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>

#if !defined(ITG_NO_MMSG) && defined(__linux__) &&                            \
    (!defined(__GLIBC__) || __GLIBC_PREREQ(2, 14))
#define HAVE_MMSG 1
#endif

/* Datagrams per sendmmsg/recvmmsg call: the per-call arrays live on the
 * stack (about 13 KiB at this size). */
#define CHUNK 64

/* Room for the timestamp plus what else someone may have enabled on the
 * socket (packet info, hop limits); a shorter buffer would only cut those
 * off (MSG_CTRUNC), never the datagram. */
typedef struct ctrl_buf {
  _Alignas(struct cmsghdr) char buf[128];
} ctrl_buf;

static void prepare_send(struct msghdr *m, struct iovec *iov,
                         const itg__dgram *d) {
  memset(m, 0, sizeof *m);
  iov->iov_base = d->buf;
  iov->iov_len = d->len;
  m->msg_iov = iov;
  m->msg_iovlen = 1;
  if (d->peer != NULL) {
    m->msg_name = &d->peer->ss;
    m->msg_namelen = d->peer->len;
  }
}

static void prepare_recv(struct msghdr *m, struct iovec *iov,
                         const itg__dgram *d, ctrl_buf *ctrl) {
  memset(m, 0, sizeof *m);
  iov->iov_base = d->buf;
  iov->iov_len = d->cap;
  m->msg_iov = iov;
  m->msg_iovlen = 1;
  if (d->peer != NULL) {
    m->msg_name = &d->peer->ss;
    m->msg_namelen = sizeof d->peer->ss;
  }
  m->msg_control = ctrl->buf;
  m->msg_controllen = sizeof ctrl->buf;
}

/* Returns the kernel's receive time (wall clock ns) carried by m, or 0:
 * a nanosecond stamp, or a microsecond one where the socket could only
 * have those (see itg__sock_set_rx_timestamps). */
static int64_t rx_stamp(struct msghdr *m) {
  struct cmsghdr *c;

  for (c = CMSG_FIRSTHDR(m); c != NULL; c = CMSG_NXTHDR(m, c)) {
    if (c->cmsg_level != SOL_SOCKET)
      continue;
#ifdef SCM_TIMESTAMPNS
    if (c->cmsg_type == SCM_TIMESTAMPNS) {
      struct timespec ts;
      memcpy(&ts, CMSG_DATA(c), sizeof ts);
      return (int64_t)ts.tv_sec * INT64_C(1000000000) + ts.tv_nsec;
    }
#endif
    if (c->cmsg_type == SCM_TIMESTAMP) {
      struct timeval tv;
      memcpy(&tv, CMSG_DATA(c), sizeof tv);
      return (int64_t)tv.tv_sec * INT64_C(1000000000) +
             (int64_t)tv.tv_usec * 1000;
    }
  }
  return 0;
}

static void finish_recv(itg__dgram *d, struct msghdr *m, size_t got) {
  d->len = got;
  if (d->peer != NULL)
    d->peer->len = m->msg_namelen;
  d->rx_ns = rx_stamp(m);
}

/* The loops below return a count (>= 1), or -1 with errno set when nothing
 * moved: the mapping to ITG_E* codes is done once, by the caller. */

static int send_each(itg__sock s, itg__dgram *d, int n) {
  int i;

  for (i = 0; i < n; i++) {
    struct msghdr m;
    struct iovec iov;
    ssize_t r;

    prepare_send(&m, &iov, &d[i]);
    do
      r = sendmsg(s, &m, ITG__SEND_FLAGS);
    while (r < 0 && errno == EINTR);
    if (r < 0)
      break;
  }
  return i > 0 ? i : -1;
}

static int recv_each(itg__sock s, itg__dgram *d, int n) {
  int i;

  for (i = 0; i < n; i++) {
    struct msghdr m;
    struct iovec iov;
    ctrl_buf ctrl;
    ssize_t r;

    prepare_recv(&m, &iov, &d[i], &ctrl);
    do
      r = recvmsg(s, &m, MSG_DONTWAIT);
    while (r < 0 && errno == EINTR);
    if (r < 0)
      break;
    finish_recv(&d[i], &m, (size_t)r);
  }
  return i > 0 ? i : -1;
}

#ifdef HAVE_MMSG
static int send_mmsg(itg__sock s, itg__dgram *d, int n) {
  int done = 0;

  while (done < n) {
    struct mmsghdr mm[CHUNK];
    struct iovec iov[CHUNK];
    int k = n - done < CHUNK ? n - done : CHUNK;
    int i, r;

    for (i = 0; i < k; i++) {
      prepare_send(&mm[i].msg_hdr, &iov[i], &d[done + i]);
      mm[i].msg_len = 0;
    }
    do
      r = sendmmsg(s, mm, (unsigned)k, ITG__SEND_FLAGS);
    while (r < 0 && errno == EINTR);
    if (r < 0)
      break;
    done += r;
    if (r < k)
      break;
  }
  return done > 0 ? done : -1;
}

static int recv_mmsg(itg__sock s, itg__dgram *d, int n) {
  int done = 0;

  while (done < n) {
    struct mmsghdr mm[CHUNK];
    struct iovec iov[CHUNK];
    ctrl_buf ctrl[CHUNK];
    int k = n - done < CHUNK ? n - done : CHUNK;
    int i, r;

    for (i = 0; i < k; i++) {
      prepare_recv(&mm[i].msg_hdr, &iov[i], &d[done + i], &ctrl[i]);
      mm[i].msg_len = 0;
    }
    do
      r = recvmmsg(s, mm, (unsigned)k, MSG_DONTWAIT, NULL);
    while (r < 0 && errno == EINTR);
    if (r < 0)
      break;
    for (i = 0; i < r; i++)
      finish_recv(&d[done + i], &mm[i].msg_hdr, mm[i].msg_len);
    done += r;
    if (r < k)
      break;
  }
  return done > 0 ? done : -1;
}
#endif

/* One direction's batch: the mmsg call where it is built in (NULL when
 * not), one by one when the kernel or a sandbox lacks it (ENOSYS). Returns
 * a count or an ITG_E* code. */
static int run_batch(itg__sock s, itg__dgram *d, int n,
                     int (*mmsg)(itg__sock, itg__dgram *, int),
                     int (*each)(itg__sock, itg__dgram *, int)) {
  int r;

  if (n <= 0)
    return 0;
  if (mmsg == NULL)
    r = each(s, d, n);
  else if ((r = mmsg(s, d, n)) < 0 && errno == ENOSYS)
    r = each(s, d, n);
  return r < 0 ? itg__sock_last_error() : r;
}

#ifdef HAVE_MMSG
#define SEND_MMSG send_mmsg
#define RECV_MMSG recv_mmsg
#else
#define SEND_MMSG NULL
#define RECV_MMSG NULL
#endif

int itg__send_batch(itg__sock s, itg__dgram *d, int n) {
  return run_batch(s, d, n, SEND_MMSG, send_each);
}

int itg__recv_batch(itg__sock s, itg__dgram *d, int n) {
  return run_batch(s, d, n, RECV_MMSG, recv_each);
}
