/* Application presets: the transport and laws of VoIP, Telnet, DNS,
 * Quake 3 and Counter-Strike traffic as D-ITG 2.8.1 models them (its
 * traffic.cpp; see itg/flow.h). */
#include "core/flow_presets.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct itg__codec {
  const char *name;
  double rate;    /* packets per second */
  double payload; /* voice bytes per packet */
} itg__codec;

static const itg__codec itg__codecs[] = {
    {"G.711.1", 100.0, 80.0}, {"G.711.2", 50.0, 160.0},
    {"G.729.2", 50.0, 20.0},  {"G.729.3", 33.0, 30.0},
    {"G.723.1", 26.0, 30.0},
};
#define ITG__CODEC_COUNT (sizeof itg__codecs / sizeof itg__codecs[0])
#define ITG__CODEC_DEFAULT 0 /* G.711.1, D-ITG's */
#define ITG__RTP_HDR 12.0
#define ITG__CRTP_HDR 2.0
/* Voice activity detection keeps 65 % of the voice bytes (D-ITG's
 * VAD * framesize * samples + header, made whole by truncation). */
#define ITG__VAD_PERCENT 65

int itg__word_eq(const char *word, const char *name) {
  for (; *word != '\0' && *name != '\0'; word++, name++) {
    if (tolower((unsigned char)*word) != tolower((unsigned char)*name))
      return 0;
  }
  return *word == '\0' && *name == '\0';
}

static void itg__spec_set(itg_dist_spec *s, itg_dist_kind kind, double p0,
                          double p1, double scale) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->p[0] = p0;
  s->p[1] = p1;
  s->scale = scale;
}

/* VoIP and its sub-options -x codec, -h RTP|CRTP, -VAD, which end at the
 * first other word. */
static int itg__preset_voip(int argc, const char *const *argv,
                            itg__preset *out, char *err, size_t errlen) {
  const itg__codec *codec = &itg__codecs[ITG__CODEC_DEFAULT];
  double hdr = ITG__RTP_HDR;
  int vad = 0;
  int i = 1;
  while (i < argc) {
    const char *w = argv[i];
    if (w == NULL)
      break;
    if (strcmp(w, "-x") == 0 || strcmp(w, "-h") == 0) {
      const char *v;
      if (i + 1 >= argc || argv[i + 1] == NULL) {
        snprintf(err, errlen, "VoIP %s: missing value", w);
        return ITG_EINVAL;
      }
      v = argv[i + 1];
      if (w[1] == 'x') {
        size_t c;
        for (c = 0; c < ITG__CODEC_COUNT; c++) {
          if (itg__word_eq(v, itg__codecs[c].name))
            break;
        }
        if (c == ITG__CODEC_COUNT) {
          snprintf(err, errlen,
                   "VoIP -x: unknown codec '%s' (G.711.1, G.711.2, G.729.2, "
                   "G.729.3 or G.723.1)",
                   v);
          return ITG_EINVAL;
        }
        codec = &itg__codecs[c];
      } else if (itg__word_eq(v, "RTP")) {
        hdr = ITG__RTP_HDR;
      } else if (itg__word_eq(v, "CRTP")) {
        hdr = ITG__CRTP_HDR;
      } else {
        snprintf(err, errlen, "VoIP -h: expected RTP or CRTP, got '%s'", v);
        return ITG_EINVAL;
      }
      i += 2;
    } else if (strcmp(w, "-VAD") == 0) {
      vad = 1;
      i++;
    } else {
      break;
    }
  }
  out->proto = ITG_PROTO_UDP;
  itg__spec_set(&out->idt, ITG_DIST_CONSTANT, 1.0 / codec->rate, 0, 1.0);
  itg__spec_set(&out->size, ITG_DIST_CONSTANT,
                (vad ? floor(codec->payload * ITG__VAD_PERCENT / 100)
                     : codec->payload) +
                    hdr,
                0, 1.0);
  return i;
}

int itg__preset_parse(int argc, const char *const *argv, itg__preset *out,
                      char *err, size_t errlen) {
  if (argc < 1)
    return 0;
  if (itg__word_eq(argv[0], "VoIP"))
    return itg__preset_voip(argc, argv, out, err, errlen);
  if (itg__word_eq(argv[0], "Telnet")) {
    out->proto = ITG_PROTO_TCP;
    itg__spec_set(&out->idt, ITG_DIST_PARETO, 0.95, 1.1, 1e-3);
    itg__spec_set(&out->size, ITG_DIST_TELNET, 0, 0, 1.0);
    return 1;
  }
  if (itg__word_eq(argv[0], "Quake3")) {
    out->proto = ITG_PROTO_UDP;
    itg__spec_set(&out->idt, ITG_DIST_QUAKE3, 0, 0, 1e-3);
    itg__spec_set(&out->size, ITG_DIST_NORMAL, 64.151757, 3.2035755, 1.0);
    return 1;
  }
  if (itg__word_eq(argv[0], "CSa") || itg__word_eq(argv[0], "CSi")) {
    int active = itg__word_eq(argv[0], "CSa");
    out->proto = ITG_PROTO_UDP;
    itg__spec_set(&out->idt, ITG_DIST_STUDENT, active ? 41.6994 : 41.6858,
                  active ? 0.104821 : 0.0694393, 1e-3);
    out->idt.p[2] = active ? 0.704073 : 1.08341;
    itg__spec_set(&out->size, active ? ITG_DIST_CS_ACTIVE : ITG_DIST_CS_IDLE,
                  0, 0, 1.0);
    return 1;
  }
  if (itg__word_eq(argv[0], "DNS")) {
    out->proto = ITG_PROTO_UDP;
    itg__spec_set(&out->idt, ITG_DIST_CONSTANT, 1.0 / 0.56, 0, 1.0);
    itg__spec_set(&out->size, ITG_DIST_UNIFORM, 100, 320, 1.0);
    return 1;
  }
  return 0;
}
