/* Datagram and stream I/O on Windows. Winsock has no sendmmsg/recvmmsg, so
 * a batch is a loop of single calls, and no receive timestamps for
 * ordinary programs, so rx_ns is always 0. */
#include "platform/win/win_impl.h"

#include <limits.h>
#include <string.h>

struct timeval *itg__win_timeval(int64_t timeout_ns, struct timeval *tv) {
  int64_t us;

  if (timeout_ns < 0)
    return NULL;
  us = timeout_ns / 1000 + (timeout_ns % 1000 != 0);
  tv->tv_sec = (long)(us / 1000000);
  tv->tv_usec = (long)(us % 1000000);
  return tv;
}

int itg__send_batch(itg__sock s, itg__dgram *d, int n) {
  int i;

  if (n <= 0)
    return 0;
  for (i = 0; i < n; i++) {
    const struct sockaddr *to = NULL;
    int to_len = 0;
    int rc;

    if (d[i].len > INT_MAX) {
      WSASetLastError(WSAEMSGSIZE);
      break;
    }
    if (d[i].peer != NULL) {
      to = (const struct sockaddr *)&d[i].peer->ss;
      to_len = d[i].peer->len;
    }
    rc = sendto(s, (const char *)d[i].buf, (int)d[i].len, 0, to, to_len);
    if (rc == SOCKET_ERROR)
      break;
  }
  /* What was sent counts; a lasting error comes back on the next call. */
  return i > 0 ? i : itg__sock_last_error();
}

int itg__recv_batch(itg__sock s, itg__dgram *d, int n) {
  int i = 0;

  while (i < n) {
    struct sockaddr_storage from;
    int from_len = (int)sizeof from;
    WSABUF wb;
    DWORD got = 0, flags = 0;
    /* Winsock has no MSG_DONTWAIT: look before reading, so that a socket
     * in blocking mode does not block either. */
    int ready = itg__sock_wait_readable(s, 0);

    if (ready < 0)
      return i > 0 ? i : itg__sock_fail();
    if (ready == 0)
      break;
    wb.buf = (char *)d[i].buf;
    wb.len = d[i].cap > INT_MAX ? INT_MAX : (ULONG)d[i].cap;
    if (WSARecvFrom(s, &wb, 1, &got, &flags, (struct sockaddr *)&from,
                    &from_len, NULL, NULL) != 0) {
      int err = WSAGetLastError();

      /* An ICMP report about an earlier send, not a datagram. */
      if (err == WSAECONNRESET)
        continue;
      if (err != WSAEMSGSIZE)
        return i > 0 ? i : itg__sock_last_error();
      /* Longer than the buffer: cut to it, as on POSIX. */
      got = wb.len;
    }
    d[i].len = got;
    d[i].rx_ns = 0;
    if (d[i].peer != NULL) {
      memcpy(&d[i].peer->ss, &from, (size_t)from_len);
      d[i].peer->len = from_len;
    }
    i++;
  }
  return i;
}

int itg__stream_send(itg__sock s, const uint8_t *buf, size_t len) {
  int n;

  if (len == 0)
    return 0;
  n = send(s, (const char *)buf, len > INT_MAX ? INT_MAX : (int)len, 0);
  return n == SOCKET_ERROR ? itg__sock_last_error() : n;
}

int itg__stream_recv(itg__sock s, uint8_t *buf, size_t len) {
  int n;

  /* recv() of 0 bytes returns 0, which would read as an orderly close. */
  if (len == 0)
    return 0;
  n = recv(s, (char *)buf, len > INT_MAX ? INT_MAX : (int)len, 0);
  if (n == 0)
    return ITG_ECLOSED;
  return n == SOCKET_ERROR ? itg__sock_last_error() : n;
}

int itg__sock_wait_readable(itg__sock s, int64_t timeout_ns) {
  fd_set readable;
  struct timeval tv;
  int n;

  FD_ZERO(&readable);
  FD_SET(s, &readable);
  /* select() also reports a closed or reset stream as readable. */
  n = select(0, &readable, NULL, NULL, itg__win_timeval(timeout_ns, &tv));
  if (n == SOCKET_ERROR)
    return ITG_ESOCKET;
  return n > 0;
}
