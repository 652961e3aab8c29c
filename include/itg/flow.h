/* A flow: what to send, where, how fast and for how long.
 *
 * itg_flow_cfg holds one flow's settings; itg_flow_parse_args reads them
 * from D-ITG-style options (the same words itg-send takes on its command
 * line and in a script file), so programs and bindings describe flows the
 * same way.
 *
 * Option reference (D-ITG's names and units; long forms in brackets):
 *   -a host [--dst]          destination host (default 127.0.0.1)
 *   -rp port [--dst-port]    destination data port (default 8999)
 *   -sa host [--src]         source address to bind
 *   -sp port [--src-port]    source port to bind (default: any)
 *   -Sdp port [--sig-port]   receiver's signaling port (default 9000)
 *   -T UDP|TCP [--proto]     transport (default UDP)
 *   -D [--nodelay]           TCP: disable Nagle's algorithm
 *   Inter-departure time (one of; default -C 1000):
 *   -C rate                  constant, rate in pkt/s
 *   -U min_rate max_rate     uniform IDT between 1/max_rate and 1/min_rate
 *   -E mean_rate             exponential IDT of mean 1/mean_rate
 *   -O mean_rate             Poisson IDT, whole microseconds of mean
 *                            1e6/mean_rate
 *   -N mean std              normal IDT, milliseconds
 *   -V shape scale           Pareto IDT, scale in milliseconds
 *   -Y loc scale             Cauchy IDT, milliseconds
 *   -G shape scale           gamma IDT, scale in milliseconds
 *   -W shape scale           Weibull IDT, scale in milliseconds
 *   --idt-lognormal mu sigma lognormal IDT, of the log of milliseconds
 *   -Ft file                 IDTs in milliseconds, one per line, replayed
 *   Packet size in bytes (one of; default -c 512), the same letters in
 *   lower case: -c -u -e -o -n -v -y -g -w, --size-lognormal mu sigma,
 *   -Fs file. (-l, -L, -X and -q are the sender's log options, taken by
 *   itg-send itself, not by this parser.)
 *   -t ms [--duration]       how long to send (default 10000)
 *   -z n [--packets]         stop after n packets
 *   -k KB [--kbytes]         stop after KB kilobytes (1024 bytes)
 *   -d ms [--delay]          wait before the first packet
 *   -s seed [--seed]         seed of the flow's laws: a whole number, or a
 *                            number in (0,1) as D-ITG takes it
 *   -b DS [--tos]            DS byte (0-255)
 *   -f TTL [--ttl]           IP TTL / hop limit (1-255)
 *   -m owdm|rttm [--meter]   one-way delay, or round trip (echoed)
 *   -x name [--recv-log]     ask the receiver to log this flow to `name`
 *   --wire native|ditg       packet header profile (default native)
 *   Presets, instead of the IDT and size options:
 *   VoIP [-x codec] [-h RTP|CRTP] [-VAD]  codecs G.711.1, G.711.2 (default),
 *                            G.729.2, G.729.3, G.723.1
 *   Telnet, DNS
 * Sizes are drawn inside [header length, 65507] and IDTs inside [0, 3600 s]
 * (itg_dist_next_in: out-of-range draws are drawn again, so a normal law
 * is truncated, not clamped).
 */
#ifndef ITG_FLOW_H
#define ITG_FLOW_H

#include "itg/dist.h"
#include "itg/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ITG_HOST_MAX 256
#define ITG_PATH_MAX 512
#define ITG_DEFAULT_SIG_PORT 9000
#define ITG_DEFAULT_DATA_PORT 8999
#define ITG_DEFAULT_LOG_PORT 9001

typedef enum itg_proto { ITG_PROTO_UDP = 0, ITG_PROTO_TCP = 1 } itg_proto;

typedef enum itg_meter { ITG_METER_OWD = 0, ITG_METER_RTT = 1 } itg_meter;

/* A law with its parameters, or a trace file (kind EMPIRICAL with `file`
 * set). The unit is fixed by where it is used: seconds for IDTs, bytes for
 * sizes. */
typedef struct itg_dist_spec {
  itg_dist_kind kind;
  double p[ITG_DIST_MAX_PARAMS];
  char file[ITG_PATH_MAX];
} itg_dist_spec;

typedef struct itg_flow_cfg {
  uint32_t flow_id; /* 0: the sender numbers its flows 1, 2, ... */
  char dst_host[ITG_HOST_MAX];
  uint16_t dst_port;
  char src_host[ITG_HOST_MAX]; /* "" for any */
  uint16_t src_port;           /* 0 for any */
  uint16_t sig_port;
  itg_proto proto;
  int nodelay;
  itg_meter meter;
  itg_wire_profile wire;
  itg_dist_spec idt;  /* seconds */
  itg_dist_spec size; /* bytes */
  int64_t duration_ns;  /* 0: no time limit (then packets or bytes must
                           bound the flow) */
  uint64_t max_packets; /* 0: no limit */
  uint64_t max_bytes;   /* 0: no limit */
  int64_t start_delay_ns;
  uint64_t seed;
  int has_seed; /* 0: the sender picks a seed and reports it */
  int tos;      /* -1: leave the OS default */
  int ttl;      /* -1: leave the OS default */
  char recv_log[ITG_PATH_MAX]; /* "" for the receiver's default log */
} itg_flow_cfg;

/* Fills cfg with the defaults listed above. */
ITG_API void itg_flow_cfg_init(itg_flow_cfg *cfg);

/* Applies options argv[0..argc) on top of *cfg. On failure, cfg is left
 * unchanged and err (if not NULL) receives a message naming the offending
 * word, e.g. "-C: 'abc' is not a number". Returns 0, ITG_EINVAL (unknown
 * option, bad or missing value, conflicting options) or ITG_ENOENT (a trace
 * file that does not exist). */
ITG_API int itg_flow_parse_args(itg_flow_cfg *cfg, int argc,
                                const char *const *argv, char *err,
                                size_t errlen);

/* Like itg_flow_parse_args on a line split at white space (a line of a
 * script file; '#' starts a comment). */
ITG_API int itg_flow_parse_line(itg_flow_cfg *cfg, const char *line, char *err,
                                size_t errlen);

/* Checks a configuration as the sender will use it (a flow must be bounded
 * by time, packets or bytes; ports, TTL and DS in range; law parameters
 * valid). Returns 0 or ITG_EINVAL with a message in err. */
ITG_API int itg_flow_validate(const itg_flow_cfg *cfg, char *err,
                              size_t errlen);

/* Creates the dist a spec describes (reads the trace file for EMPIRICAL).
 * Returns 0 or an error of itg_dist_new / itg_dist_read_file. */
ITG_API int itg_dist_spec_make(const itg_dist_spec *spec, uint64_t seed,
                               itg_dist **out);

/* Writes a one-line description of the flow ("UDP 127.0.0.1:8999 IDT
 * constant(0.001 s) size constant(64 B) 10 s") into buf. */
ITG_API void itg_flow_describe(const itg_flow_cfg *cfg, char *buf,
                               size_t len);

#ifdef __cplusplus
}
#endif
#endif
