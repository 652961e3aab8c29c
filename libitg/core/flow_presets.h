/* Application presets of the flow options (VoIP, Telnet, DNS, Quake3,
 * CSa, CSi): what each
 * sets, as described in itg/flow.h. */
#ifndef ITG_FLOW_PRESETS_H
#define ITG_FLOW_PRESETS_H

#include <stddef.h>

#include "itg/flow.h"

/* What a preset sets in a flow. Its size is the nominal one: the flow
 * parser raises a constant size below the header length to that length. */
typedef struct itg__preset {
  itg_proto proto;
  itg_dist_spec idt;
  itg_dist_spec size;
} itg__preset;

/* Returns 1 if word equals name ignoring ASCII case, else 0; option
 * values such as UDP, rttm and codec names are matched this way. */
int itg__word_eq(const char *word, const char *name);

/* Reads a preset and its own sub-options from argv[0..argc). Returns the
 * number of words it took (> 0) with *out filled, 0 if argv[0] names no
 * preset, or ITG_EINVAL with a message in err (err may be NULL only when
 * errlen is 0). */
int itg__preset_parse(int argc, const char *const *argv, itg__preset *out,
                      char *err, size_t errlen);

#endif
