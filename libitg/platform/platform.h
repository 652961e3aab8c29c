/* The platform contract: everything that differs between operating systems
 * and that libuv does not already cover lives behind these functions,
 * implemented once in platform/posix/ and once in platform/win/. Common code
 * includes this header and never tests _WIN32 itself. All functions are
 * internal (itg__ prefix).
 *
 * libuv is the library's thread, time and process layer: threads, locks,
 * once-only initialisation (uv_once), the monotonic clock (uv_hrtime, the
 * one clock every deadline is taken on) and the process id come from it.
 * This header adds only what libuv lacks: batched datagram I/O with kernel
 * timestamps, socket options, absolute sleeps on uv_hrtime's clock, a wall
 * clock in nanoseconds, thread pinning and priority, files created without
 * following links or replacing, descriptor limits and OS random bytes.
 *
 * Sockets are plain descriptors (itg__sock; SOCKET on Windows). Functions
 * return 0 or a count on success and a negative ITG_E* code on failure.
 */
#ifndef ITG_PLATFORM_H
#define ITG_PLATFORM_H

#include <stdio.h>

#include "itg/common.h"
#include "itg/flow.h"

#if defined(_WIN32)
#include <winsock2.h>
#include <ws2tcpip.h>
typedef SOCKET itg__sock;
#define ITG__BAD_SOCK INVALID_SOCKET
#else
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
typedef int itg__sock;
#define ITG__BAD_SOCK (-1)
#endif

#include <uv.h>

/* ---- process-wide set-up ------------------------------------------------ */

/* Prepares the platform: once per process (Winsock start-up) and once per
 * calling thread (a timer slack of 1 ns on Linux, so that this thread's
 * sleeps and poll timeouts end on time; the slack is a per-thread setting,
 * so every thread that waits on timers should call this; itg__sleep_until
 * applies it by itself). The library's own sends never raise SIGPIPE
 * (MSG_NOSIGNAL or SO_NOSIGPIPE), so the process's signal dispositions are
 * left alone where the OS has either; libuv's stream writes are kept from
 * it by itg__thread_block_sigpipe. Safe to call many times, from any
 * thread. Returns 0 or a negative code. */
int itg__platform_init(void);

/* Blocks SIGPIPE in the calling thread for the rest of its life. libuv
 * writes streams with write(2), which has no per-call way to keep the
 * signal away, and a write to a connection its peer has reset would
 * otherwise kill the whole process unless the embedding program ignores
 * SIGPIPE. Blocked, the write fails with EPIPE and the signal stays
 * pending on this thread alone, never delivered (a thread discards its
 * pending signals when it ends). Every thread the library creates to run
 * a libuv loop calls it first; nothing runs such a loop on a caller's
 * thread except to close handles, which writes nothing. Nothing to do on
 * Windows, which has no SIGPIPE. */
void itg__thread_block_sigpipe(void);

/* ---- clocks and waiting -------------------------------------------------- */

/* Wall clock, ns since the Unix epoch (UTC). */
int64_t itg__real_ns(void);

/* Sleeps until the instant deadline_ns (absolute, on uv_hrtime's monotonic
 * clock: CLOCK_MONOTONIC on Linux, QueryPerformanceCounter on Windows), as
 * precisely as the OS timer allows (clock_nanosleep TIMER_ABSTIME on POSIX, a
 * high-resolution waitable timer on Windows); signals do not cut it short.
 * Returns at once if it has passed. */
void itg__sleep_until(int64_t deadline_ns);

/* One pause inside a spin loop (the CPU's pause instruction). */
void itg__cpu_relax(void);

/* Gives the rest of the time slice to other threads. */
void itg__yield(void);

/* Raises the calling thread's scheduling priority where allowed, within
 * the time-sharing class (nice -10 on POSIX): not a real-time class, which
 * would let a spinning pacer starve the other threads of the process.
 * Returns 0, or ITG_EPERM / ITG_ENOTSUP. */
int itg__thread_boost(void);

/* Pins the calling thread to one CPU (numbered from 0). Returns 0,
 * ITG_EINVAL (no such CPU, or not one this process may use) or
 * ITG_ENOTSUP. */
int itg__thread_pin(int cpu);

/* ---- addresses ----------------------------------------------------------- */

typedef struct itg__addr {
  struct sockaddr_storage ss;
  socklen_t len;
} itg__addr;

/* Resolves host (name, IPv4 or IPv6 literal) and port into *out; the first
 * address the resolver prefers is taken. passive says the address is for
 * bind: then NULL or "" means the wildcard address, IPv6 dual-stack (::
 * with IPV6_V6ONLY off, see itg__sock_open) where the kernel has IPv6 and
 * 0.0.0.0 otherwise. Without passive, NULL or "" is an error (there is no
 * destination). Returns 0 or ITG_EADDR. */
int itg__addr_resolve(const char *host, uint16_t port, int passive,
                      itg__addr *out);

/* Returns the port of an address (0 if it is neither IPv4 nor IPv6). */
uint16_t itg__addr_port(const itg__addr *a);

/* Sets the port of an IPv4 or IPv6 address (others are left alone). */
void itg__addr_set_port(itg__addr *a, uint16_t port);

/* Writes "host:port" ("[v6]:port" for IPv6), numeric, into buf, truncated
 * to len - 1 bytes and always terminated when len > 0; "?" for an address
 * that cannot be shown. */
void itg__addr_format(const itg__addr *a, char *buf, size_t len);

/* The two parts of address handling that differ by OS; the rest lives in
 * platform/address.c, shared. itg__net_init readies the name resolver
 * (Winsock's start-up; nothing on POSIX): 0 or a negative code.
 * itg__has_ipv6 tells whether the system makes IPv6 sockets at all (one
 * booted without IPv6 still parses "::" but could not bind it). */
int itg__net_init(void);
int itg__has_ipv6(void);

/* ---- datagram and stream sockets ----------------------------------------- */

/* Creates a socket for the address family of `a` (SOCK_DGRAM if dgram,
 * else SOCK_STREAM), close-on-exec, never raising SIGPIPE; an IPv6 socket
 * has IPV6_V6ONLY off, so bound to :: it also serves IPv4. Returns 0 with
 * *out set, ITG_EINVAL (neither IPv4 nor IPv6), ITG_ENOTSUP (family not
 * supported by the kernel), or another code mapped by
 * itg__sock_last_error. */
int itg__sock_open(const itg__addr *a, int dgram, itg__sock *out);

/* Whether this system can open an IPv4 socket of a transport libitg
 * does not send (SCTP, DCCP, or ICMP through a raw socket), so that a
 * flow asking for one is refused with the right reason. Returns 0 (it
 * can), ITG_ENOTSUP (the kernel has no such protocol or socket type;
 * always on Windows), ITG_EPERM (a raw socket without the privilege) or
 * another code mapped by itg__sock_last_error; ITG_EINVAL for UDP, TCP or
 * an unknown value. */
int itg__sock_probe(itg_proto proto);

/* Creates a raw IPv4 ICMP socket (SOCK_RAW, IPPROTO_ICMP), close-on-exec,
 * for sending ICMP messages whose 8-byte header the caller writes (the
 * kernel writes the IP header). Returns 0 with *out set, ITG_EINVAL (an
 * address that is not IPv4), ITG_EPERM (without root or CAP_NET_RAW),
 * ITG_ENOTSUP (always on Windows) or another code mapped by
 * itg__sock_last_error. */
int itg__sock_open_icmp(const itg__addr *a, itg__sock *out);

/* Ties a socket to one network interface (SO_BINDTODEVICE): it then
 * takes only what arrives on that interface and sends out of it alone.
 * Returns 0, ITG_EADDR (no interface of that name), ITG_EPERM (the
 * privilege it needs, where the kernel asks for one), ITG_EINVAL (a NULL
 * or empty name, or one longer than ITG_IFACE_MAX - 1 bytes) or
 * ITG_ENOTSUP (a system without it: Windows, the BSDs, macOS). */
int itg__sock_bind_device(itg__sock s, const char *iface);

/* The same for the socket of a libuv TCP or UDP handle, once it has one
 * (after uv_tcp_bind). */
int itg__uv_bind_device(uv_handle_t *h, const char *iface);

/* Closes a socket; ITG__BAD_SOCK is accepted. */
void itg__sock_close(itg__sock s);

/* Binds to `a` (SO_REUSEADDR set first for streams). Returns 0,
 * ITG_EADDRINUSE, ITG_EADDR (not a local address), ITG_EPERM (privileged
 * port) or ITG_ESOCKET. */
int itg__sock_bind(itg__sock s, const itg__addr *a);

/* Connects, waiting at most timeout_ns (< 0: no limit); the socket's
 * blocking mode is left as it was. Returns 0, ITG_ECONNREFUSED,
 * ITG_ETIMEDOUT or another code mapped by itg__sock_last_error. */
int itg__sock_connect(itg__sock s, const itg__addr *a, int64_t timeout_ns);

/* Reads the locally bound address. Returns 0 or ITG_ESOCKET. */
int itg__sock_local(itg__sock s, itg__addr *out);

/* Socket options; each returns 0, ITG_EINVAL (value out of range),
 * ITG_ENOTSUP (the OS or the socket type lacks the option) or ITG_ESOCKET.
 * bufs: a size <= 0 leaves that buffer alone; the privileged variant
 * (SO_*BUFFORCE) is tried first so root may pass the system maximum.
 * tos: the DS byte, 0..255 (IP_TOS / IPV6_TCLASS); ttl: unicast hops,
 * 1..255 (IP_TTL / IPV6_UNICAST_HOPS). On an IPv6 socket both the IPv6 and
 * the IPv4 option are set, so IPv4 traffic of a dual-stack socket gets them
 * too. */
int itg__sock_set_nonblock(itg__sock s, int on);
int itg__sock_set_bufs(itg__sock s, int sndbuf, int rcvbuf);
/* Returns the bytes of queued datagrams the socket's receive buffer holds
 * (as the system counts them, its bookkeeping included), or the socket's
 * error. */
int itg__sock_rcvbuf(itg__sock s);
/* Sets an integer option. Returns 0, ITG_ENOTSUP where the option does not
 * apply to this socket, or the socket's error. */
int itg__sock_set_int(itg__sock s, int level, int name, int value);
/* Returns the socket's address family (AF_INET, AF_INET6), or the
 * socket's error. */
int itg__sock_family(itg__sock s);
int itg__sock_set_tos(itg__sock s, int tos);
int itg__sock_set_ttl(itg__sock s, int ttl);
int itg__sock_set_nodelay(itg__sock s, int on);
/* Asks for kernel receive timestamps (SO_TIMESTAMPNS on Linux, else the
 * microsecond SO_TIMESTAMP; rx_ns is wall-clock ns either way). Returns 0,
 * ITG_ENOTSUP where the system has none, or the socket's error. */
int itg__sock_set_rx_timestamps(itg__sock s);

/* One datagram for the batched calls below. */
typedef struct itg__dgram {
  uint8_t *buf;
  size_t len;      /* send: bytes to send; recv: filled with bytes received
                      (at most cap: the rest of a longer datagram is lost) */
  size_t cap;      /* recv: room in buf */
  itg__addr *peer; /* send: destination (NULL on a connected socket);
                      recv: filled with the source (may be NULL) */
  int64_t rx_ns;   /* recv: kernel timestamp (wall clock ns), or 0 if none */
} itg__dgram;

/* Sends up to n datagrams in as few system calls as the OS allows
 * (sendmmsg where the C library has it, else one sendmsg each), blocking
 * or not as the socket is set. Returns how many were sent (>= 1, fewer
 * than n if the socket filled up or failed after the first), 0 if the
 * socket would block (or the interface queue is full), or a negative code
 * mapped by itg__sock_last_error. */
int itg__send_batch(itg__sock s, itg__dgram *d, int n);

/* Receives up to n datagrams without blocking (recvmmsg where the C
 * library has it, else one recvmsg each), with kernel timestamps when
 * enabled. Returns how many arrived (0 if none), or a negative code mapped
 * by itg__sock_last_error. */
int itg__recv_batch(itg__sock s, itg__dgram *d, int n);

/* Stream I/O, blocking or not as the socket is set; at most INT_MAX bytes
 * a call. send/recv return bytes moved, 0 if the socket would block (or
 * len is 0), ITG_ECLOSED once the peer has closed (recv: orderly close;
 * send: reset or broken pipe), or another code mapped by
 * itg__sock_last_error. */
int itg__stream_send(itg__sock s, const uint8_t *buf, size_t len);
int itg__stream_recv(itg__sock s, uint8_t *buf, size_t len);

/* Waits until s is readable (or has an error or hang-up to report) or
 * timeout_ns passes (< 0: no limit). Returns 1 if readable, 0 on timeout,
 * or ITG_ESOCKET. */
int itg__sock_wait_readable(itg__sock s, int64_t timeout_ns);

/* Returns the last socket error of the calling thread as an ITG_E* code:
 * 0 when the call would have blocked (or the interface queue was full),
 * ITG_ECONNREFUSED, ITG_EADDRINUSE, ITG_EADDR (address not available),
 * ITG_ETIMEDOUT, ITG_ECLOSED (reset, broken pipe), ITG_EPERM, ITG_ERANGE
 * (datagram too long), ITG_ENOMEM, ITG_ELIMIT (out of descriptors),
 * ITG_EINVAL, ITG_ENOTSUP, ITG_ESTATE (not connected), else
 * ITG_ESOCKET. */
int itg__sock_last_error(void);

/* ---- files ------------------------------------------------------------- */

/* Renames the file `from` to `to` unless `to` exists: never replaces a
 * file (renameat2 with RENAME_NOREPLACE, or link then unlink where the
 * system or the file system lacks it; MoveFileExW without
 * MOVEFILE_REPLACE_EXISTING on Windows). Paths are UTF-8. Returns 0,
 * ITG_EBUSY (`to` exists), ITG_ENOENT, ITG_EPERM or ITG_EIO. */
int itg__rename_noreplace(const char *from, const char *to);

/* Maps the C library's errno after a file call (open, fopen, fwrite,
 * rename) to the error table: ITG_EBUSY (exists), ITG_ENOENT, ITG_EPERM,
 * ITG_ENOMEM, ITG_ENOSPC (the disk or a quota is full) or ITG_EIO. */
int itg__file_errno(int e);

/* Maps a libuv error (UV_E*) to the error table: ITG_EADDRINUSE,
 * ITG_EADDR, ITG_EPERM, ITG_ENOMEM, ITG_ETIMEDOUT, ITG_ECLOSED (the peer
 * closed or reset) or ITG_ESOCKET. */
int itg__uv_err(int uverr);

/* Creates path for writing (binary, close-on-exec) only if nothing by that
 * name exists: an existing file is never truncated, and a symbolic link
 * (a reparse point on Windows), dangling or not, is never followed
 * (O_CREAT|O_EXCL|O_NOFOLLOW; CREATE_NEW with FILE_FLAG_OPEN_REPARSE_POINT).
 * For names a peer chooses. Returns 0 with *out open, ITG_EBUSY (the name
 * exists), ITG_ENOENT (no such directory), ITG_EPERM, ITG_ENOMEM or
 * ITG_EIO. */
int itg__file_create(const char *path, FILE **out);

/* ---- descriptors --------------------------------------------------------- */

/* Returns the process's limit on open descriptors (RLIMIT_NOFILE's soft
 * limit), or 0 where there is none to mind (no limit, Windows). Each
 * connection and data port of a receiver or log server is one. */
uint64_t itg__fd_limit(void);

/* itg_fd_limit_raise (itg/common.h) raises it. */

/* ---- host ---------------------------------------------------------------- */

/* Fills buf[0..len) with bytes from the OS's cryptographic random source
 * (getrandom on Linux, getentropy elsewhere; BCryptGenRandom on Windows):
 * values a peer must not guess. Returns 0 or ITG_EIO. */
int itg__random_bytes(void *buf, size_t len);

#endif
