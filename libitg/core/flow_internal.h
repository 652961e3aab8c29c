/* What the flow files share (flow_options.c, flow_tokens.c, flow_check.c,
 * flow_describe.c): messages into the caller's err buffer, a law's text,
 * and the check of one law. */
#ifndef ITG_CORE_FLOW_INTERNAL_H
#define ITG_CORE_FLOW_INTERNAL_H

#include <stddef.h>

#include "core/errbuf.h"
#include "itg/flow.h"

/* The law's name, or "unknown law". */
const char *itg__flow_kind_name(itg_dist_kind kind);

/* Writes the unit a spec's law draws in ("ms", "B", "x0.5 s"...) into buf,
 * for messages and descriptions. */
void itg__flow_unit_text(const itg_dist_spec *s, int idt, char *buf,
                         size_t len);

/* Writes "p0, p1 unit" for a parametric law into buf. */
void itg__flow_format_params(const itg_dist_spec *s, int idt, char *buf,
                             size_t len);

/* Checks a spec as the engine will use it: scale, parameters or trace,
 * draws able to fall inside [lo, hi] (seconds or bytes) and, for an IDT,
 * a mean between 1 / ITG_FLOW_RATE_MAX and ITG_FLOW_IDT_MAX seconds (a law
 * without a mean is not held to it). `who` starts each message. */
int itg__flow_spec_check(const itg_dist_spec *s, int idt, double lo,
                         double hi, const char *who, char *err,
                         size_t errlen);

#endif
