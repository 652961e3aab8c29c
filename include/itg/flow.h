/* A flow: what to send, where, how fast and for how long.
 *
 * itg_flow_cfg holds one flow's settings; itg_flow_parse_args reads them
 * from D-ITG-style options (the same words itg-send takes on its command
 * line and in a script file), so programs and bindings describe flows the
 * same way. Options apply left to right and a later option replaces an
 * earlier one of the same kind (the transport, the ports...), except that
 * one call takes at most one IDT option and one size option, and a preset
 * only before them (it sets both laws, which the options after it refine):
 * a second one is refused, naming both, rather than silently dropping the
 * first. A later call (a later line) replaces what an earlier one set.
 *
 * Option reference (D-ITG's names and units; long forms in brackets):
 *   -a host [--dst]          destination host (default 127.0.0.1)
 *   -rp port [--dst-port]    destination data port, 0-65535 (default 8999;
 *                            0: the receiver opens one the system picks)
 *   -sa host [--src]         source address to bind
 *   -sp port [--src-port]    source port to bind, 0-65535 (default 0: any)
 *   -Sdp port [--sig-port]   receiver's signaling port, 1-65535 (9000)
 *   -T UDP|TCP [--proto]     transport, any case (default UDP); D-ITG's
 *                            SCTP, DCCP and ICMP [type] are read (type:
 *                            the ICMP type, 0-255, default 8), and
 *                            refused by the sender but ICMP, one-way
 *                            (see itg_proto)
 *   -D [--nodelay]           TCP: disable Nagle's algorithm (a flow that
 *                            is not TCP is refused by itg_flow_validate)
 *   Inter-departure time (one of; default -C 1000), and the itg_dist_spec
 *   each option makes (kind, p[], scale):
 *   -C rate                  CONSTANT    {1/rate}              scale 1
 *   -U min_rate max_rate     UNIFORM     {1/max_rate, 1/min_rate} scale 1
 *   -E mean_rate             EXPONENTIAL {1/mean_rate}         scale 1
 *   -O mean_rate             POISSON     {1e6/mean_rate}       scale 1e-6
 *                            (draws are whole microseconds)
 *   -N mean std              NORMAL      {mean, std}           scale 1e-3
 *   -V shape scale           PARETO      {shape, scale}        scale 1e-3
 *   -Y loc scale             CAUCHY      {loc, scale}          scale 1e-3
 *   -G shape scale           GAMMA       {shape, scale}        scale 1e-3
 *   -W shape scale           WEIBULL     {shape, scale}        scale 1e-3
 *   --idt-lognormal mu sigma LOGNORMAL   {mu, sigma} (of ln ms) scale 1e-3
 *   -Ft file                 EMPIRICAL   file, one IDT in ms a line, 1e-3
 *   Rates are in pkt/s and must be > 0 (for -U, min_rate <= max_rate);
 *   the other IDT options take milliseconds.
 *   Packet size in bytes (one of; default -c 512), the same letters in
 *   lower case, each making the same kind with the values as given and
 *   scale 1: -c size, -u min max, -e mean, -o mean (Poisson),
 *   -n mean std, -v shape scale, -y loc scale, -g shape scale,
 *   -w shape scale, --size-lognormal mu sigma, -Fs file (one size a line).
 *   (-l, -L and -q are the sender's log options, taken by itg-send
 *   itself, not by this parser.)
 *   -B on_law on_params off_law off_params [--onoff]
 *                            on/off source (D-ITG's syntax, e.g. -B C 1000
 *                            E 500): the flow sends, by its IDT and size
 *                            laws, during on periods whose lengths come
 *                            from the first law, and is silent during off
 *                            periods from the second. Each law is one of
 *                            D-ITG's letters with its parameters, all in
 *                            milliseconds: C length, U min max, E mean,
 *                            O mean (Poisson, whole ms), N mean std,
 *                            V shape scale (Pareto), Y loc scale (Cauchy),
 *                            G shape scale, W shape scale (textbook order,
 *                            as -W); each gives that kind with scale 1e-3.
 *                            An on period starts with a packet and holds
 *                            the departures that fall before its end; the
 *                            off period starts at that end (so the silence
 *                            on the wire is the off period plus the part
 *                            of the last IDT left over, less than one
 *                            IDT); the next on period starts with a packet
 *                            when it ends. The duration (-t) counts both.
 *   -t ms [--duration]       how long to send (default 10000; 0: no limit)
 *   -z n [--packets]         stop after n packets (0: no limit)
 *   -k KB [--kbytes]         stop after KB kilobytes of 1024 bytes (0: no
 *                            limit)
 *   The flow ends at the first of the three it reaches; 0 means "no limit"
 *   for each alike (D-ITG's reading), and a flow left without any limit is
 *   refused by itg_flow_validate.
 *   -d ms [--delay]          wait before the first packet
 *   -s seed [--seed]         seed of the flow's laws: a whole number (decimal
 *                            or 0x hexadecimal) is the seed itself; a number
 *                            x strictly between 0 and 1, as D-ITG takes it,
 *                            gives the seed floor(x * 2^64)
 *   -b DS [--tos]            DS byte (0-255)
 *   -f TTL [--ttl]           IP TTL / hop limit (1-255)
 *   -m owdm|rttm [--meter]   one-way delay, or round trip (echoed)
 *   -x name [--recv-log]     ask the receiver to log this flow to `name`
 *   -X addr[:port] [TCP|UDP] [--recv-log-server]
 *                            ask the receiver to ship this flow's log to
 *                            the log server at addr (port 9001, TCP when
 *                            the optional word is absent; "[v6]:port" for
 *                            an IPv6 address with a port), under the -x
 *                            name, or one the server chooses without -x
 *   -p 0|1|2 [--payload-type]
 *                            D-ITG's payload type (itg_payload_type): 0
 *                            (default), the full header (flow id,
 *                            sequence number, send time); 1, the flow id
 *                            and sequence number alone (8 bytes, 12 over
 *                            TCP with the packet size; the receiver
 *                            counts loss, not delay); 2, no header at all
 *                            (the receiver tells the flow by its data
 *                            port and counts packets and bytes; sizes
 *                            from 4 B, D-ITG's least). 1 and 2 go to
 *                            D-ITG's ITGRecv only (--peer ditg) and not
 *                            with -m rttm; itg_flow_validate refuses
 *                            them otherwise, since libitg's receiver
 *                            checks the magic, length and token of its
 *                            own header, or measures the send time of
 *                            D-ITG's full one.
 *   -Fp file                 payload bytes from a file of 1 to
 *                            ITG_FLOW_PAYLOAD_MAX bytes, laid after each
 *                            packet's header as D-ITG lays them: they run
 *                            on from one packet to the next; a packet
 *                            finding fewer left than its room takes them
 *                            and is padded with zeros, and the next one
 *                            starts again at the file's first byte.
 *                            Without -Fp the bytes after the header are
 *                            zeros (D-ITG's are random).
 *   --small redraw|ditg      what becomes of a size drawn below the
 *                            header (see itg_small_rule): redraw (the
 *                            default) draws again and keeps the law's
 *                            shape; ditg sends it at the header's length,
 *                            as D-ITG does, so a flow sends D-ITG's own
 *                            sizes
 *   --wire native|ditg       packet header profile (default native; a
 *                            ditg flow carries no flow token, so forged
 *                            datagrams can join it: see itg/wire.h)
 *   --peer libitg|ditg       the receiver's kind (default libitg). ditg:
 *                            D-ITG's ITGRecv, spoken to in D-ITG's own
 *                            signaling; implies --wire ditg (a later
 *                            --wire native is refused by
 *                            itg_flow_validate), and takes no -x or -X
 *                            (ITGRecv's log is named on its own command
 *                            line, ITGRecv -l) and flow ids up to
 *                            2147483646. ITGRecv never says what it
 *                            received: the flow's result has received 0
 *                            (read its log with ITGDec)
 *   Whole numbers may be written in decimal or 0x hexadecimal; option
 *   values that are words (UDP, rttm, ditg, codec names) and preset names
 *   match in any case.
 *   Presets (a bare word, D-ITG's syntax), each setting the transport, the
 *   IDT law and the size law as D-ITG 2.8.1 defines them (its traffic.cpp;
 *   the laws are in itg/dist.h); options after them still apply:
 *   VoIP [-x codec] [-h RTP|CRTP] [-VAD]   UDP, constant IDT and size.
 *                            The words right after VoIP that are -x, -h or
 *                            -VAD are its own (here -x names the codec, not
 *                            the receiver log); the first other word ends
 *                            them. Codecs (voice bytes at pkt/s):
 *                            G.711.1 80 B at 100 (the default, D-ITG's),
 *                            G.711.2 160 B at 50, G.729.2 20 B at 50,
 *                            G.729.3 30 B at 33, G.723.1 30 B at 26. The
 *                            RTP header (default) adds 12 B, CRTP 2 B;
 *                            -VAD keeps floor(0.65 x voice bytes) before
 *                            the header is added, as D-ITG does. E.g.
 *                            G.711.1 with RTP: 92 B, with -VAD 64 B;
 *                            G.729.2 with RTP: 32 B, with -VAD 25 B (both
 *                            kept with --wire ditg, raised to 36 B by the
 *                            native header: see below).
 *   Telnet                   TCP; IDT Pareto of shape 0.95 and scale 1.1 ms
 *                            (D-ITG's 1.1*Pareto(0.95) ms); size law
 *                            TELNET, 21 to 35 B (mean 22.1 B): all below
 *                            the native header, so it needs --wire ditg.
 *   DNS                      UDP; constant IDT at 0.56 pkt/s; size
 *                            uniform between 100 and 320 B.
 *   Quake3                   UDP; IDT law QUAKE3 (exponential of mean
 *                            4.29 ms or, 40 % of the time, 10.75 ms); size
 *                            normal(64.151757, 3.2035755) B.
 *   CSa                      Counter-Strike, active player: UDP; IDT
 *                            student(41.6994, 0.104821, 0.704073) ms;
 *                            size law CS_ACTIVE (a mixture of normal(34.8,
 *                            4.4) and normal(49.5, 3.6) B: 22.6 % of it
 *                            below the native header, drawn again there).
 *   CSi                      Counter-Strike, idle player: UDP; IDT
 *                            student(41.6858, 0.0694393, 1.08341) ms; size
 *                            law CS_IDLE, 27 to 35 B: needs --wire ditg.
 *   A preset's constant size below the header length of the flow's profile
 *   and transport (as they stand at the end of the itg_flow_parse_args
 *   call) is raised to that length, since every packet carries a header
 *   (D-ITG raises sizes to its own 16-byte header the same way), and
 *   size_raised keeps the preset's size so that itg_flow_size_note says
 *   so; a size option after the preset is taken as given.
 *
 * How the engine turns a spec into values: itg_dist_spec_make creates the
 * dist (parameters and trace values in the spec's own unit), and
 * itg_dist_spec_draw returns draws multiplied by spec.scale, so in seconds
 * for the IDT and bytes for the size. IDTs are drawn inside
 * [0, ITG_FLOW_IDT_MAX] s and sizes inside [header length,
 * ITG_WIRE_MAX_PACKET] B and rounded to the nearest byte
 * (itg_dist_next_in: out-of-range draws are drawn again, so a normal law
 * is truncated, not clamped; itg_flow_size_note says how much of a size
 * law the header cuts). D-ITG instead truncates sizes to whole bytes (its
 * sizes of a continuous law average half a byte less) and sends a size
 * below its 16-byte header at 16 B, and one above 64000 B at 64000 B:
 * --small ditg (ITG_SMALL_DITG) draws sizes by that rule instead
 * (itg_flow_size_draw).
 */
#ifndef ITG_FLOW_H
#define ITG_FLOW_H

#include "itg/dist.h"
#include "itg/log.h"
#include "itg/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ITG_HOST_MAX 256
/* A network interface's name, terminator included (Linux's IFNAMSIZ). */
#define ITG_IFACE_MAX 16
#define ITG_PATH_MAX 512
#define ITG_DEFAULT_SIG_PORT 9000
#define ITG_DEFAULT_DATA_PORT 8999
/* IDT draws are bounded to [0, ITG_FLOW_IDT_MAX] seconds. */
#define ITG_FLOW_IDT_MAX 3600.0
/* An IDT law whose mean is below 1 / ITG_FLOW_RATE_MAX seconds (more than
 * ten million packets per second), or above ITG_FLOW_IDT_MAX, is rejected
 * (laws without a mean, Cauchy and Pareto of shape <= 1, are not held to
 * it). */
#define ITG_FLOW_RATE_MAX 1e7
/* The largest payload file (-Fp) a flow takes, in bytes. */
#define ITG_FLOW_PAYLOAD_MAX (1u << 20)

/* D-ITG's transports. libitg sends and receives UDP, TCP and ICMP; SCTP
 * and DCCP are D-ITG's words for flows that itg_flow_parse_args reads and
 * itg_flow_validate knows, and that itg_sender_add_flow refuses with the
 * reason (the system has no such protocol, or libitg does not send it);
 * a receiver refuses such a flow alone. ICMP goes to itg-recv or D-ITG's
 * ITGRecv (--peer ditg) over IPv4, one-way: each packet is an ICMP
 * message of the flow's icmp_type, code 0, identifier the flow id's low
 * 16 bits and sequence number the packet's low 16 bits, carrying the
 * flow's payload (its size) after that 8-byte header, as ITGSend sends
 * it; it needs a raw socket (root or CAP_NET_RAW) on both sides, else it
 * is refused with that reason. */
typedef enum itg_proto {
  ITG_PROTO_UDP = 0,
  ITG_PROTO_TCP = 1,
  ITG_PROTO_SCTP = 2,
  ITG_PROTO_DCCP = 3,
  ITG_PROTO_ICMP = 4
} itg_proto;

typedef enum itg_meter { ITG_METER_OWD = 0, ITG_METER_RTT = 1 } itg_meter;

/* D-ITG's payload types (-p): what each packet carries before its
 * payload bytes, for a D-ITG receiver (--peer ditg). */
typedef enum itg_payload_type {
  ITG_PAYLOAD_FULL = 0, /* the flow's wire header (itg/wire.h) */
  ITG_PAYLOAD_SEQ = 1,  /* u32 flow id, u32 sequence number (and the u32
                           packet size over TCP), big endian */
  ITG_PAYLOAD_NONE = 2  /* nothing: the payload bytes from the first */
} itg_payload_type;

/* The least size D-ITG sends of a flow of payload type 2 (ITGSend's
 * NoneMinPayloadSize). */
#define ITG_FLOW_NONE_MIN_SIZE 4u

/* What becomes of a size draw that falls outside [header length, largest
 * packet] (--small). */
typedef enum itg_small_rule {
  /* Drawn again until it falls inside (itg_dist_next_in), then rounded
   * to the nearest byte: the law is truncated to the range, its shape
   * kept inside it. */
  ITG_SMALL_REDRAW = 0,
  /* D-ITG 2.8.1's rule: the draw is truncated to whole bytes, a size
   * below the header is sent at the header's length and one above
   * ITG_FLOW_DITG_SIZE_MAX at that size (the law's mass below the header
   * piles up at its length). */
  ITG_SMALL_DITG = 1
} itg_small_rule;

/* D-ITG's largest payload (its MAX_PAYLOAD_SIZE), where ITG_SMALL_DITG
 * cuts sizes. */
#define ITG_FLOW_DITG_SIZE_MAX 64000u

/* The kind of receiver a flow's sender signals with. */
typedef enum itg_peer {
  ITG_PEER_LIBITG = 0, /* itg-recv, or any itg_receiver */
  ITG_PEER_DITG = 1    /* D-ITG 2.8.1's ITGRecv */
} itg_peer;

/* What a flow does with the departures it owes after a hold-up (the
 * machine busy, the sender descheduled or stopped): its schedule is
 * absolute, so every departure whose instant passed meanwhile is due at
 * once.
 *   LAW (default)  catches up no faster than 1.25 times the
 *                  flow's own pace: each owed departure follows the one
 *                  before it by its drawn IDT divided by 1.25 or more (a
 *                  departure less late than the machine's ordinary
 *                  lateness still goes at once; a hold-up's debt is paid
 *                  in even steps over 200 gaps, each at least
 *                  ITG_CATCHUP_GENTLE_STEP_NS), until the schedule is met
 *                  again. The ordinary lateness is the 90th
 *                  percentile of the flow's wake-ups' lateness
 *                  (ITG_CATCHUP_SLACK_NS until they teach it), at most a
 *                  fifth of the IDT or their mean lateness if that is
 *                  more, at least ITG_CATCHUP_SLACK_NS less the IDT:
 *                  lateness that every wake-up brings again
 *                  cannot be paid back, so it is no debt, but what goes
 *                  as on time is taken whole from the next gap; where
 *                  the tracked lateness passes that bound,
 *                  the gentle step grows by the difference. Each flow
 *                  the sender serves after one wake-up counts as late by
 *                  that wake-up's lateness from its own instant, so
 *                  flows spread over their period keep their phases
 *                  while they pay. A hold-up while the sender works
 *                  (preempted in a send, waiting for room in its log)
 *                  counts as a wake-up that late. The gaps keep
 *                  the shape of the IDT law, scaled by 1/1.25 for a while,
 *                  and the mean rate comes back once the debt is paid. A
 *                  debt still owed at the flow's end (duration_ns) is sent
 *                  there at once, within the flow's grace (itg/sender.h),
 *                  so that the flow sends what its duration asks;
 *   SKIP           drops the departures owed: of those due, only the
 *                  latest leaves, and the schedule goes on (the sizes of
 *                  the dropped ones are drawn, so a seed still gives the
 *                  same sizes to the departures that leave; sequence
 *                  numbers count only those sent). The packets owed
 *                  are lost, the rate falls by as many;
 *   BURST          sends every owed departure at once, as fast as the
 *                  machine can, which keeps the mean rate and breaks the
 *                  law (D-ITG's -j 1, its default).
 * Departures moved later by LAW and dropped by SKIP are counted in
 * itg_flow_result (shifted, skipped). */
typedef enum itg_catchup {
  ITG_CATCHUP_LAW = 0,
  ITG_CATCHUP_SKIP = 1,
  ITG_CATCHUP_BURST = 2
} itg_catchup;

/* LAW's bound: catching up at most 1.25 times the flow's pace. The choice
 * weighs how long a debt lasts (a stall of S is paid back within 5 S)
 * against how far the gaps move from the law meanwhile: each owed gap is
 * the drawn IDT times 0.8, so an exponential law stays exponential and
 * its lowest percentile gains a quarter of a percent while catching up. */
#define ITG_CATCHUP_FACTOR_NUM 5
#define ITG_CATCHUP_FACTOR_DEN 4
/* LAW: the lateness a flow counts as the timer's until its own wake-ups
 * teach it; and, less the IDT, the least it lets go at once where the IDT
 * is shorter: a batch of datagrams sent in one system call (a flow asking
 * more than the machine sends) must not wait between them. */
#define ITG_CATCHUP_SLACK_NS 50000
/* LAW: a hold-up's debt is paid in even steps over
 * ITG_CATCHUP_GENTLE_NS / ITG_CATCHUP_GENTLE_STEP_NS gaps (200), each at
 * least ITG_CATCHUP_GENTLE_STEP_NS and at most the factor's share of the
 * IDT. A debt up to ITG_CATCHUP_GENTLE_NS, what a busy machine's hold-ups
 * of a few milliseconds leave, is so paid at most the gentle step a gap,
 * so that no gap moves further from the law than a plain sleep's own
 * noise moves it (its gaps' error p90 is 15 to 45 us on a busy virtual
 * machine; at 1 000 pkt/s the factor alone would make each gap 200 us
 * short, 5 times as many gaps as the hold-up's in error). A debt of a
 * few times that, a cluster of hold-ups, is spread as thin as 200 gaps
 * allow; a sender stopped or starved owes more than 200 gaps can take at
 * the factor's pace, and is paid at that pace. */
#define ITG_CATCHUP_GENTLE_NS 5000000
#define ITG_CATCHUP_GENTLE_STEP_NS 25000

/* A law with its parameters, or a trace file (kind EMPIRICAL with `file`
 * set). The law draws in the spec's own unit (parameters and trace values
 * are in that unit); multiplying a draw by `scale` gives seconds for an IDT
 * and bytes for a size (e.g. -N 10 2: NORMAL {10, 2} in ms, scale 1e-3).
 * p[] past the kind's parameter count are ignored. */
typedef struct itg_dist_spec {
  itg_dist_kind kind;
  double p[ITG_DIST_MAX_PARAMS];
  double scale; /* > 0; 1 when the law already draws seconds or bytes */
  char file[ITG_PATH_MAX];
} itg_dist_spec;

typedef struct itg_flow_cfg {
  size_t struct_size; /* set by itg_flow_cfg_init (itg/common.h) */
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
  int64_t start_delay_ns; /* the first packet is due this long after the
                             sender starts; the schedule (IDTs and
                             duration) counts from when it really leaves */
  uint64_t seed;
  int has_seed; /* 0: the sender picks a seed and reports it */
  int tos;      /* -1: leave the OS default */
  int ttl;      /* -1: leave the OS default */
  char recv_log[ITG_PATH_MAX]; /* "" for the receiver's default log */
  char recv_log_server[ITG_HOST_MAX]; /* the receiver ships this flow's
                                         log to this log server ("" for
                                         none; recv_log then names the log
                                         asked of it, "" the server's
                                         choice) */
  uint16_t recv_log_port;              /* default 9001 */
  itg_log_transport recv_log_transport; /* default ITG_LOG_TCP */
  itg_peer peer; /* default ITG_PEER_LIBITG; ITG_PEER_DITG needs the DITG
                    wire profile and no receiver log option */
  char payload_file[ITG_PATH_MAX]; /* "" for none: the bytes after each
                                      header are zeros; else taken from
                                      this file (-Fp) */
  int onoff;          /* 1: the flow alternates on and off periods (-B);
                         0 (default): always on */
  itg_dist_spec on;   /* seconds: each on period's length */
  itg_dist_spec off;  /* seconds: each off period's length */
  uint32_t size_raised; /* a preset's constant size in bytes that the
                           parser raised to the header length (size then
                           holds that length), for itg_flow_size_note to
                           tell; 0 when none */
  itg_catchup catchup; /* owed departures after a hold-up: default
                          ITG_CATCHUP_LAW (--catchup, -j) */
  itg_small_rule small; /* default ITG_SMALL_REDRAW */
  itg_payload_type payload_type; /* default ITG_PAYLOAD_FULL; the others
                                    with ITG_PEER_DITG only */
  int icmp_type; /* ITG_PROTO_ICMP: the messages' ICMP type, 0-255
                    (default 8, echo request, as D-ITG's) */
} itg_flow_cfg;

/* Returns the name of a flow's meter, the one its delays are reported
 * under (itg_stats_meter_name): "owd" or "rtt"; "unknown" for another
 * value. */
ITG_API const char *itg_meter_name(itg_meter meter);

/* Returns a transport's name as D-ITG writes it: "UDP", "TCP", "SCTP",
 * "DCCP" or "ICMP"; "unknown" for another value. */
ITG_API const char *itg_proto_name(itg_proto proto);

/* Fills cfg with the defaults listed above (flow id 0, no source address
 * or port, UDP, one-way meter, native wire, -C 1000, -c 512, 10 s, no
 * packet or byte limit, no start delay, no seed, TOS and TTL -1, no
 * receiver log server: port 9001 and TCP when one is set), and
 * cfg->struct_size with `size`: itg_flow_cfg_init(cfg) passes sizeof *cfg.
 * Returns 0, or ITG_EINVAL (NULL cfg, or a size this library does not
 * know: see itg/common.h), cfg untouched. */
ITG_API int itg_flow_cfg_init_size(itg_flow_cfg *cfg, size_t size);
#ifndef SWIG
#define itg_flow_cfg_init(cfg) itg_flow_cfg_init_size((cfg), sizeof *(cfg))
#endif

/* Applies options argv[0..argc) on top of *cfg (see the reference above).
 * Each law option's parameters are checked as itg_flow_validate would
 * (trace files are read), except for the size's fit to the header, which
 * depends on options that may come later. On failure, cfg is left
 * unchanged and err (if not NULL) receives a message naming the offending
 * word, e.g. "-C: 'abc' is not a number", "unknown option '-Q'",
 * "-C: missing value". Returns 0, ITG_EINVAL (unknown option, bad or
 * missing value, bad law parameters or trace contents, an option setting a
 * field that cfg's layout, from an older header, does not have, or a
 * struct_size this library does not know), ITG_ENOENT (a trace file that
 * does not exist), ITG_EIO or ITG_ENOMEM. */
ITG_API int itg_flow_parse_args(itg_flow_cfg *cfg, int argc,
                                const char *const *argv, char *err,
                                size_t errlen);

/* Like itg_flow_parse_args on a line of a script file. The line is split
 * at white space; a '#' outside double quotes starts a comment that runs to
 * the end of the line; double quotes group characters, white space and '#'
 * included, into a word (for file names with spaces: -Ft "my trace.txt";
 * there are no escapes, and "" is an empty word). Returns the number of
 * words applied, 0 for a blank or comment-only line (cfg unchanged: a
 * script reader skips it), or the errors of itg_flow_parse_args, ITG_EINVAL
 * for an unterminated quote. */
ITG_API int itg_flow_parse_line(itg_flow_cfg *cfg, const char *line, char *err,
                                size_t errlen);

/* Checks a configuration as the sender will use it: the flow is bounded
 * (duration, packets or bytes); sig port 1-65535; TOS -1 or 0-255;
 * TTL -1 or 1-255; hosts and paths terminated within their arrays; known
 * proto, meter, wire profile and peer (a D-ITG peer with the DITG
 * profile, no receiver log or log server, and a flow id of at most
 * 2147483646); a receiver log server's port 1-65535 and
 * a known transport; a payload file readable and of 1 to
 * ITG_FLOW_PAYLOAD_MAX bytes; each law's scale > 0 and parameters valid
 * (trace files are read); an IDT law's range meets [0, ITG_FLOW_IDT_MAX] s
 * and its mean lies in [1 / ITG_FLOW_RATE_MAX, ITG_FLOW_IDT_MAX] s, and so
 * do the on and off period laws of an on/off flow; a size law's range
 * meets [header length, ITG_WIRE_MAX_PACKET] B, and a constant size lies
 * inside it (a size only D-ITG's header could carry is refused with a word
 * on --wire ditg; under ITG_SMALL_DITG any size is taken, since a size
 * outside is sent at the nearer bound); a known small rule. Returns 0,
 * ITG_EINVAL (the message in err; a bad trace line is named by its
 * number), ITG_ENOENT (a trace file that does not exist),
 * ITG_EIO or ITG_ENOMEM. */
ITG_API int itg_flow_validate(const itg_flow_cfg *cfg, char *err,
                              size_t errlen);

/* Creates the dist a spec describes, drawing in the spec's own unit (reads
 * the trace file for EMPIRICAL; the seed is unused there). Returns 0 or an
 * error of itg_dist_new / itg_dist_read_file (ITG_EINVAL for a NULL
 * argument or a file name not terminated within its array). */
ITG_API int itg_dist_spec_make(const itg_dist_spec *spec, uint64_t seed,
                               itg_dist **out);

/* Returns the next draw of d (made from spec by itg_dist_spec_make) times
 * spec->scale, inside [lo, hi] given in seconds or bytes: the law is
 * truncated to [lo / scale, hi / scale] as itg_dist_next_in does, and the
 * product is kept inside [lo, hi] against rounding. spec->scale must be
 * > 0 (itg_flow_validate checks it) and lo <= hi. */
ITG_API double itg_dist_spec_draw(const itg_dist_spec *spec, itg_dist *d,
                                  double lo, double hi);

/* Returns the least size in bytes of the flow's packets, the length of
 * the header it carries: itg_wire_hdr_len of its wire profile and
 * transport for payload type 0, 8 (12 over TCP) for type 1, and
 * ITG_FLOW_NONE_MIN_SIZE for type 2 (it carries none, but D-ITG sends no
 * smaller packet); 0 for a NULL cfg, one this library cannot read, or an
 * unknown profile or payload type. */
ITG_API size_t itg_flow_hdr_len(const itg_flow_cfg *cfg);

/* Returns the next packet size in bytes of a flow whose size law is spec
 * (d made from it by itg_dist_spec_make) and whose header is hdr bytes
 * long (itg_wire_hdr_len of its profile and transport), by the flow's
 * small rule: ITG_SMALL_REDRAW gives itg_dist_spec_draw's draw inside
 * [hdr, ITG_WIRE_MAX_PACKET] rounded to the nearest byte; ITG_SMALL_DITG
 * gives one draw truncated to whole bytes and held inside
 * [hdr, ITG_FLOW_DITG_SIZE_MAX] (a NaN draw gives hdr). spec->scale must
 * be > 0 and hdr at most ITG_FLOW_DITG_SIZE_MAX. */
ITG_API uint32_t itg_flow_size_draw(const itg_dist_spec *spec, itg_dist *d,
                                    itg_small_rule rule, size_t hdr);

/* Says what the header does to the flow's size law: writes into buf
 * (always terminated when len > 0, cut short if too small; buf may be NULL
 * when len is 0) a sentence giving the share of the law's draws that fall
 * below the header length of the flow's wire profile and transport
 * (itg_dist_below at that length), that they are drawn again (under
 * ITG_SMALL_DITG: that they are sent at the header's length), and that
 * share under --wire ditg's smaller header (with --wire ditg: that D-ITG
 * sends such draws at the header length), e.g. "size: 51.3 % of the draws
 * of exponential(50 B) fall below the 36-byte native header and are drawn
 * again (the law is cut there, its mean moves up); --wire ditg (D-ITG's
 * 16-byte header) lowers that to 27.4 %". buf gets "" when the share is
 * below one in a million. Returns the share, from 0 to 1, or NaN (a NULL
 * cfg, a size this library does not know, an unknown wire profile, a law
 * that cannot be made, a trace file that cannot be read). For a preset's
 * constant size raised to the header (size_raised), the sentence says so,
 * e.g. "size: the preset's 32-byte packets are sent at 36 B, the native
 * header's length; --wire ditg (D-ITG's 16-byte header) sends them as they
 * are", and the share is 1. */
ITG_API double itg_flow_size_note(const itg_flow_cfg *cfg, char *buf,
                                  size_t len);

/* Writes a one-line description of the flow into buf (always terminated
 * when len > 0, cut short if buf is too small), e.g. "UDP 127.0.0.1:8999
 * IDT constant(0.001 s) size constant(64 B) for 10 s". Laws show their
 * parameters in their own unit ("normal(10, 2 ms)"), and the size note of
 * itg_flow_size_note after "; " when there is one. A cfg whose
 * struct_size this library does not know is described by that refusal;
 * a NULL cfg gives "". */
ITG_API void itg_flow_describe(const itg_flow_cfg *cfg, char *buf,
                               size_t len);

#ifdef __cplusplus
}
#endif
#endif
