/* D-ITG's log-server protocol (see log/ditg_proto.h). */
#include "log/ditg_proto.h"

#include <stdio.h>
#include <string.h>

#include "core/byteorder.h"
#include "itg/common.h"
#include "log/proto.h"

int itg__dlp_sniff(const uint8_t *buf, size_t len) {
  if (len < 2)
    return ITG_ETRUNC;
  return (buf[0] == ITG__DLP_TCP || buf[0] == ITG__DLP_UDP) && buf[1] == 0;
}

int itg__dlp_sig_decode(const uint8_t *buf, size_t len, itg__dlp_sig *out) {
  if (len < ITG__DLP_SIG_LEN)
    return ITG_ETRUNC;
  memset(out, 0, sizeof *out);
  out->stop = buf[1];
  if (out->stop == 1)
    return ITG__DLP_SIG_LEN;
  if (out->stop != 0 || (buf[0] != ITG__DLP_TCP && buf[0] != ITG__DLP_UDP) ||
      memchr(buf + 4, '\0', ITG__DLP_NAME_LEN) == NULL)
    return ITG_EBADMSG;
  out->transport = buf[0];
  memcpy(out->name, buf + 4, ITG__DLP_NAME_LEN);
  return ITG__DLP_SIG_LEN;
}

void itg__dlp_sig_encode(const itg__dlp_sig *s, uint8_t *buf) {
  memset(buf, 0, ITG__DLP_SIG_LEN);
  buf[0] = s->transport;
  buf[1] = s->stop;
  memcpy(buf + 4, s->name, strnlen(s->name, ITG__DLP_NAME_LEN - 1));
}

void itg__dlp_port_encode(uint16_t port, uint8_t *buf) {
  itg__put_be32(buf, port);
}

int itg__dlp_port_decode(const uint8_t *buf, uint16_t *port) {
  uint32_t p = itg__get_be32(buf);
  if (p == 0 || p > 65535)
    return ITG_EBADMSG;
  *port = (uint16_t)p;
  return 0;
}

int itg__dlp_file_name(const char *name, char *out, size_t len) {
  const char *base = name, *p;
  for (p = name; *p != '\0'; p++)
    if (*p == '/' || *p == '\\')
      base = p + 1;
  if (!itg__lp_name_ok(base) || strlen(base) >= len)
    return ITG_EINVAL;
  snprintf(out, len, "%s", base);
  return 0;
}
