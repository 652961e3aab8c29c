/* The platform contract: everything that differs between operating systems
 * lives behind these functions, implemented once in platform/posix/ and once
 * in platform/win/. Common code includes this header and never tests
 * _WIN32 itself. All functions are internal (itg__ prefix).
 *
 * Sockets are plain descriptors (itg__sock; SOCKET on Windows). Functions
 * return 0 or a count on success and a negative ITG_E* code on failure.
 */
#ifndef ITG_PLATFORM_H
#define ITG_PLATFORM_H

#include "itg/common.h"

#if defined(_WIN32)
#include <winsock2.h>
#include <ws2tcpip.h>
typedef SOCKET itg__sock;
#define ITG__BAD_SOCK INVALID_SOCKET
#else
#include <netinet/in.h>
#include <sys/socket.h>
typedef int itg__sock;
#define ITG__BAD_SOCK (-1)
#endif

/* ---- process-wide set-up ------------------------------------------------ */

/* Prepares the platform once per process (Winsock start-up, timer slack of
 * 1 ns on Linux, SIGPIPE ignored). Safe to call many times, from any
 * thread. Returns 0 or a negative code. */
int itg__platform_init(void);

/* ---- clocks and waiting -------------------------------------------------- */

/* Monotonic clock, ns. */
int64_t itg__mono_ns(void);

/* Wall clock, ns since the Unix epoch (UTC). */
int64_t itg__real_ns(void);

/* Sleeps until the monotonic instant deadline_ns (absolute), as precisely
 * as the OS timer allows (clock_nanosleep TIMER_ABSTIME on POSIX, a
 * high-resolution waitable timer on Windows). Returns at once if it has
 * passed. */
void itg__sleep_until(int64_t deadline_ns);

/* One pause inside a spin loop (the CPU's pause instruction). */
void itg__cpu_relax(void);

/* Gives the rest of the time slice to other threads. */
void itg__yield(void);

/* Raises the calling thread's scheduling priority where allowed; best
 * effort. Returns 0, or ITG_EPERM / ITG_ENOTSUP. */
int itg__thread_boost(void);

/* Pins the calling thread to one CPU. Returns 0, ITG_EINVAL or
 * ITG_ENOTSUP. */
int itg__thread_pin(int cpu);

/* ---- addresses ----------------------------------------------------------- */

typedef struct itg__addr {
  struct sockaddr_storage ss;
  socklen_t len;
} itg__addr;

/* Resolves host (name, IPv4 or IPv6 literal; NULL or "" means the wildcard
 * address, IPv6 dual-stack where available) and port into *out.
 * Returns 0 or ITG_EADDR. */
int itg__addr_resolve(const char *host, uint16_t port, int passive,
                      itg__addr *out);

/* Returns the port of an address. */
uint16_t itg__addr_port(const itg__addr *a);

/* Writes "host:port" ("[v6]:port" for IPv6) into buf. */
void itg__addr_format(const itg__addr *a, char *buf, size_t len);

/* ---- datagram and stream sockets ----------------------------------------- */

/* Creates a socket for the address family of `a` (SOCK_DGRAM if dgram,
 * else SOCK_STREAM). Returns 0 with *out set, or ITG_ESOCKET. */
int itg__sock_open(const itg__addr *a, int dgram, itg__sock *out);

/* Closes a socket; ITG__BAD_SOCK is accepted. */
void itg__sock_close(itg__sock s);

/* Binds to `a` (SO_REUSEADDR set first for streams). Returns 0,
 * ITG_EADDRINUSE or ITG_ESOCKET. */
int itg__sock_bind(itg__sock s, const itg__addr *a);

/* Connects (blocking, at most timeout_ns). Returns 0, ITG_ECONNREFUSED,
 * ITG_ETIMEDOUT or ITG_ESOCKET. */
int itg__sock_connect(itg__sock s, const itg__addr *a, int64_t timeout_ns);

/* Reads the locally bound address. */
int itg__sock_local(itg__sock s, itg__addr *out);

/* Socket options, best effort where the OS lacks one (then ITG_ENOTSUP).
 * tos: the DS byte (IP_TOS / IPV6_TCLASS); ttl: unicast hops. */
int itg__sock_set_nonblock(itg__sock s, int on);
int itg__sock_set_bufs(itg__sock s, int sndbuf, int rcvbuf);
int itg__sock_set_tos(itg__sock s, int tos);
int itg__sock_set_ttl(itg__sock s, int ttl);
int itg__sock_set_nodelay(itg__sock s, int on);
/* Asks for kernel receive timestamps (SO_TIMESTAMPNS on Linux). Returns 0
 * or ITG_ENOTSUP. */
int itg__sock_set_rx_timestamps(itg__sock s);

/* One datagram for the batched calls below. */
typedef struct itg__dgram {
  uint8_t *buf;
  size_t len;      /* send: bytes to send; recv: filled with bytes received */
  size_t cap;      /* recv: room in buf */
  itg__addr *peer; /* send: destination (NULL on a connected socket);
                      recv: filled with the source (may be NULL) */
  int64_t rx_ns;   /* recv: kernel timestamp (wall clock ns), or 0 if none */
} itg__dgram;

/* Sends up to n datagrams in as few system calls as the OS allows
 * (sendmmsg on Linux). Returns how many were sent (>= 1), 0 if the socket
 * would block, or ITG_ESOCKET. */
int itg__send_batch(itg__sock s, itg__dgram *d, int n);

/* Receives up to n datagrams without blocking (recvmmsg on Linux),
 * with kernel timestamps when enabled. Returns how many arrived (0 if
 * none), or ITG_ESOCKET. */
int itg__recv_batch(itg__sock s, itg__dgram *d, int n);

/* Stream I/O. send/recv return bytes moved, 0 if the socket would block
 * (recv: ITG_ECLOSED on an orderly close), or ITG_ESOCKET. */
int itg__stream_send(itg__sock s, const uint8_t *buf, size_t len);
int itg__stream_recv(itg__sock s, uint8_t *buf, size_t len);

/* Waits until s is readable or timeout_ns passes. Returns 1 if readable,
 * 0 on timeout, or ITG_ESOCKET. */
int itg__sock_wait_readable(itg__sock s, int64_t timeout_ns);

/* Returns the last socket error of the calling thread as an ITG_E* code. */
int itg__sock_last_error(void);

/* ---- files ---------------------------------------------------------------- */

/* Returns the host name (truncated to len - 1 bytes). */
void itg__hostname(char *buf, size_t len);

#endif
