/* Log records and log file headers on disk (see itg/log.h). */
#include "itg/log.h"

#include <string.h>

#include "core/byteorder.h"
#include "core/crc32c.h"

#define ITG__LOG_BOM 0xFEFFu

static const uint8_t log_magic[8] = {'I', 'T', 'G', 'L', 'O', 'G', '\r', '\n'};

void itg_logrec_encode(const itg_logrec *rec, uint8_t *buf) {
  itg__put_le32(buf, rec->flow_id);
  itg__put_le16(buf + 4, rec->size);
  itg__put_le16(buf + 6, rec->flags);
  itg__put_le64(buf + 8, rec->seq);
  itg__put_le64(buf + 16, (uint64_t)rec->tx_ns);
  itg__put_le64(buf + 24, (uint64_t)rec->rx_ns);
}

int itg_logrec_decode(const uint8_t *buf, itg_logrec *rec) {
  uint16_t flags = itg__get_le16(buf + 6);
  uint16_t size = itg__get_le16(buf + 4);
  int marker = (flags & (ITG_REC_FLOW_END | ITG_REC_GAP)) != 0;
  if (flags & ~ITG_REC_ALL_FLAGS)
    return ITG_EBADMSG;
  if (!marker && !(flags & (ITG_REC_TX | ITG_REC_RX)))
    return ITG_EBADMSG;
  if (!marker && size == 0)
    return ITG_EBADMSG;
  rec->flow_id = itg__get_le32(buf);
  rec->size = size;
  rec->flags = flags;
  rec->seq = itg__get_le64(buf + 8);
  rec->tx_ns = (int64_t)itg__get_le64(buf + 16);
  rec->rx_ns = (int64_t)itg__get_le64(buf + 24);
  return 0;
}

void itg_log_hdr_encode(const itg_log_hdr *hdr, uint8_t *buf) {
  size_t n = 0;
  memcpy(buf, log_magic, sizeof log_magic);
  itg__put_le16(buf + 8, ITG_LOG_VERSION);
  itg__put_le16(buf + 10, ITG__LOG_BOM);
  itg__put_le16(buf + 12, ITG_LOG_HEADER_LEN);
  itg__put_le16(buf + 14, ITG_LOG_RECORD_LEN);
  itg__put_le32(buf + 16, hdr->role);
  itg__put_le32(buf + 20, hdr->clock);
  itg__put_le64(buf + 24, (uint64_t)hdr->created_ns);
  while (n < sizeof hdr->host - 1 && hdr->host[n] != '\0')
    n++;
  memset(buf + 32, 0, sizeof hdr->host);
  memcpy(buf + 32, hdr->host, n);
  itg__put_le32(buf + ITG_LOG_V1_HEADER_LEN,
                itg__crc32c(0, buf, ITG_LOG_V1_HEADER_LEN));
}

int itg_log_hdr_decode(const uint8_t *buf, size_t len, itg_log_hdr *hdr) {
  uint32_t role, clock;
  const uint8_t *host = buf + 32;
  const uint8_t *nul;
  uint16_t version;
  size_t hl;
  /* A short buffer is a cut-short log only if it begins as one. */
  if (memcmp(buf, log_magic,
             len < sizeof log_magic ? len : sizeof log_magic) != 0)
    return ITG_EBADMSG;
  if (len < ITG_LOG_V1_HEADER_LEN)
    return ITG_ETRUNC;
  if (itg__get_le16(buf + 10) != ITG__LOG_BOM)
    return ITG_EBADMSG;
  version = itg__get_le16(buf + 8);
  if (version == 1)
    hl = ITG_LOG_V1_HEADER_LEN;
  else if (version == ITG_LOG_VERSION)
    hl = ITG_LOG_HEADER_LEN;
  else
    return ITG_EVERSION;
  if (len < hl)
    return ITG_ETRUNC;
  if (itg__get_le16(buf + 12) != hl ||
      itg__get_le16(buf + 14) != ITG_LOG_RECORD_LEN)
    return ITG_EBADMSG;
  if (version == ITG_LOG_VERSION &&
      itg__get_le32(buf + ITG_LOG_V1_HEADER_LEN) !=
          itg__crc32c(0, buf, ITG_LOG_V1_HEADER_LEN))
    return ITG_EBADMSG;
  role = itg__get_le32(buf + 16);
  clock = itg__get_le32(buf + 20);
  if (role != ITG_LOG_ROLE_SENDER && role != ITG_LOG_ROLE_RECEIVER)
    return ITG_EBADMSG;
  if (clock != ITG_LOG_CLOCK_REALTIME && clock != ITG_LOG_CLOCK_KERNEL)
    return ITG_EBADMSG;
  nul = memchr(host, '\0', sizeof hdr->host);
  if (nul == NULL)
    return ITG_EBADMSG;
  hdr->version = version;
  hdr->role = role;
  hdr->clock = clock;
  hdr->created_ns = (int64_t)itg__get_le64(buf + 24);
  memset(hdr->host, 0, sizeof hdr->host);
  memcpy(hdr->host, host, (size_t)(nul - host));
  return 0;
}
