/* From a flow's law description (itg_dist_spec) to a dist, and from the
 * dist's draws to seconds or bytes. */
#include <math.h>
#include <string.h>

#include "itg/flow.h"

int itg_dist_spec_make(const itg_dist_spec *spec, uint64_t seed,
                       itg_dist **out) {
  int n;
  if (spec == NULL || out == NULL)
    return ITG_EINVAL;
  if (spec->kind == ITG_DIST_EMPIRICAL) {
    double *values;
    size_t count;
    int rc;
    if (memchr(spec->file, '\0', sizeof spec->file) == NULL)
      return ITG_EINVAL;
    rc = itg_dist_read_file(spec->file, &values, &count, NULL);
    if (rc != 0)
      return rc;
    rc = itg_dist_new_empirical(values, count, out);
    itg_free(values);
    return rc;
  }
  n = itg_dist_kind_nparams(spec->kind);
  if (n < 0)
    return ITG_EINVAL;
  return itg_dist_new(spec->kind, spec->p, (size_t)n, seed, out);
}

double itg_dist_spec_draw(const itg_dist_spec *spec, itg_dist *d, double lo,
                          double hi) {
  double v = itg_dist_next_in(d, lo / spec->scale, hi / spec->scale) *
             spec->scale;
  return fmin(fmax(v, lo), hi);
}

uint32_t itg_flow_size_draw(const itg_dist_spec *spec, itg_dist *d,
                            itg_small_rule rule, size_t hdr) {
  double b;
  if (rule != ITG_SMALL_DITG)
    return (uint32_t)llround(
        itg_dist_spec_draw(spec, d, (double)hdr, ITG_WIRE_MAX_PACKET));
  /* D-ITG casts the draw to int, which truncates towards zero; the
   * comparisons run on the double so that no draw overflows the cast. */
  b = trunc(itg_dist_next(d) * spec->scale);
  if (!(b >= (double)hdr))
    return (uint32_t)hdr;
  if (b > ITG_FLOW_DITG_SIZE_MAX)
    return ITG_FLOW_DITG_SIZE_MAX;
  return (uint32_t)b;
}
