/* D-ITG 2.8.1's log-server protocol, as ITGSend (-L), ITGRecv (asked by
 * ITGSend -X) and ITGLog speak it, with no I/O.
 *
 * The client connects over TCP (ITGLog's port 9001) and waits for the
 * server's greeting, the one byte ITG__DLP_CONNECT. It then sends its
 * request, ITG__DLP_SIG_LEN bytes laid out as a C struct:
 *   off 0  u8  transport of the records: ITG__DLP_TCP or ITG__DLP_UDP
 *   off 1  u8  stop: 0 in a request
 *   off 2  2 bytes of padding (left as the client's memory was)
 *   off 4  char[200] the log file's name, NUL-terminated
 * The server answers with a u32, big endian: the port of the data channel
 * it opened (a TCP listener or a UDP socket), to which the client sends
 * its records (itg__ditg_rec_decode_wire, core/ditg_rec.h), any whole
 * number of them in each datagram or write. The client ends by sending
 * the same struct with stop set to 1 (the other fields are then whatever
 * its memory held) and closing both channels. Nothing tells what a UDP
 * channel lost.
 *
 * The greeting is the server's first word, while libitg's log protocol
 * (log/proto.h) begins with the client's REGISTER: a libitg server tells
 * the two apart by the client's first bytes (itg__dlp_sniff), greeting a
 * client that stays silent. */
#ifndef ITG_LOG_DITG_PROTO_H
#define ITG_LOG_DITG_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define ITG__DLP_CONNECT 1u
#define ITG__DLP_TCP 1u
#define ITG__DLP_UDP 2u
#define ITG__DLP_NAME_LEN 200u
#define ITG__DLP_SIG_LEN (4u + ITG__DLP_NAME_LEN)
#define ITG__DLP_PORT_LEN 4u
/* ITGLog's receive buffer: a datagram of more records is cut short. */
#define ITG__DLP_UDP_RECS 50u

typedef struct itg__dlp_sig {
  uint8_t transport;                  /* a request: ITG__DLP_TCP or _UDP */
  uint8_t stop;                       /* 1: the client is done */
  char name[ITG__DLP_NAME_LEN];       /* a request: the log's name */
} itg__dlp_sig;

/* Tells from a client's first bytes buf[0..len) whether it speaks D-ITG's
 * protocol: returns 1 (a request's first two bytes: a transport and a
 * stop of 0), 0 (anything else, libitg's REGISTER among it, whose second
 * byte is its version, 1), or ITG_ETRUNC (fewer than 2 bytes). */
int itg__dlp_sniff(const uint8_t *buf, size_t len);

/* Reads a request or a stop from buf[0..len). Returns ITG__DLP_SIG_LEN
 * with *out filled (a stop's other fields zeroed), ITG_ETRUNC (fewer
 * bytes), or ITG_EBADMSG (a stop other than 0 or 1, a request with an
 * unknown transport or a name without its NUL). */
int itg__dlp_sig_decode(const uint8_t *buf, size_t len, itg__dlp_sig *out);

/* Writes s into buf (ITG__DLP_SIG_LEN bytes, the name NUL padded; a name
 * is cut to fit). */
void itg__dlp_sig_encode(const itg__dlp_sig *s, uint8_t *buf);

/* The server's answer: the data channel's port, big endian. */
void itg__dlp_port_encode(uint16_t port, uint8_t *buf);

/* Reads the answer. Returns 0, or ITG_EBADMSG (a port of 0 or above
 * 65535). */
int itg__dlp_port_decode(const uint8_t *buf, uint16_t *port);

/* The file name a request's name becomes in a server's directory: its
 * last path component ('/' or '\\' separated: D-ITG's default names are
 * paths such as /tmp/ITGSend.log), copied into out[0..len). Returns 0, or
 * ITG_EINVAL if what is left is not a name the server takes
 * (itg__lp_name_ok). */
int itg__dlp_file_name(const char *name, char *out, size_t len);

#endif
