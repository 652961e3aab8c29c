/* One record of a D-ITG log (itg/ditg.h): the 144-byte binary record and
 * the text line of ITGDec -l, checked as the detection rules say. */
#ifndef ITG_CORE_DITG_REC_H
#define ITG_CORE_DITG_REC_H

#include "core/record_kind.h"
#include "itg/ditg.h"

#define ITG__DAY_NS (INT64_C(86400) * 1000000000)

typedef struct itg__ditg_rec {
  uint32_t flow_id;
  uint32_t seq;
  uint16_t src_port;
  uint16_t dst_port;
  uint32_t size;
  int64_t tx_tod_ns; /* time of the day, 0 to ITG__DAY_NS */
  int64_t rx_tod_ns;
  char src_addr[ITG_DITG_ADDR_LEN];
  char dst_addr[ITG_DITG_ADDR_LEN];
} itg__ditg_rec;

/* Decodes ITG_DITG_RECORD_LEN bytes. Returns 0 or ITG_EBADMSG (a field
 * out of its range). */
int itg__ditg_rec_decode(const uint8_t *buf, itg__ditg_rec *r);

/* Encodes r (times of day below ITG__DAY_NS) into ITG_DITG_RECORD_LEN
 * bytes, the addresses NUL padded. */
void itg__ditg_rec_encode(const itg__ditg_rec *r, uint8_t *buf);

/* The same record on its way to a log server (ITGSend -L, ITGRecv after
 * ITGSend -X, ITGLog): the u32 fields big endian, each time carried as a
 * u32 second of the day (off 16 send, off 24 receive) and a u32 of
 * microseconds (off 20, off 28), the two doubles 0. Returns 0 or
 * ITG_EBADMSG (a field out of its range, as itg__ditg_rec_decode says). */
int itg__ditg_rec_decode_wire(const uint8_t *buf, itg__ditg_rec *r);

/* Encodes r (times of day below ITG__DAY_NS) as
 * itg__ditg_rec_decode_wire reads it, in ITG_DITG_RECORD_LEN bytes. */
void itg__ditg_rec_encode_wire(const itg__ditg_rec *r, uint8_t *buf);

/* What libitg's records do not hold: the unspecified address (port 0). */
#define ITG__DITG_UNKNOWN_ADDR "0.0.0.0"

/* Fills r's flow id, sequence number, size and times of day from rec, a
 * record counting as `kind` (a sender's, ITG__REC_SENT, has its send
 * time in both places, as ITGSend logs), leaving the addresses and ports.
 * Returns 0, 1 if rec is of another kind (nothing to write), or
 * ITG_ERANGE (a sequence number beyond D-ITG's 32 bits). */
int itg__ditg_rec_of(const itg_logrec *rec, itg__rec_kind kind,
                     itg__ditg_rec *r);

/* Parses one text line (without its newline) of len bytes. Returns 0 or
 * ITG_EBADMSG. */
int itg__ditg_line_parse(const char *line, size_t len, itg__ditg_rec *r);

#endif
