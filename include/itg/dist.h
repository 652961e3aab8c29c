/* Random laws for inter-departure times (IDT) and packet sizes (PS).
 *
 * An itg_dist draws from one law with its own GSL generator (MT19937),
 * seeded explicitly: the same law, parameters and seed give the same
 * sequence of draws on every platform. A dist is not thread-safe; each flow
 * owns its own.
 *
 * Parameters, in the order they are passed (p[0], p[1], ...). Units are the
 * caller's: the flow layer draws IDTs in seconds and sizes in bytes.
 *   CONSTANT     value                 value >= 0
 *   UNIFORM      min, max              min <= max
 *   EXPONENTIAL  mean                  mean > 0
 *   POISSON      mean                  mean > 0; draws whole numbers
 *   NORMAL       mean, std             std >= 0
 *   PARETO       shape, scale          shape > 0, scale > 0; x >= scale
 *   CAUCHY       location, scale       scale > 0
 *   GAMMA        shape, scale          shape > 0, scale > 0
 *   WEIBULL      shape, scale          shape > 0, scale > 0
 *                (F(x) = 1 - exp(-(x/scale)^shape); D-ITG swapped these two,
 *                libitg keeps the textbook order shape then scale)
 *   LOGNORMAL    mu, sigma             sigma > 0 (mu, sigma of log x)
 *   EMPIRICAL    no parameters: a sequence of values given at creation,
 *                replayed in order and from the start again when exhausted
 *                (a trace). The seed is not used.
 */
#ifndef ITG_DIST_H
#define ITG_DIST_H

#include "itg/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum itg_dist_kind {
  ITG_DIST_CONSTANT = 0,
  ITG_DIST_UNIFORM = 1,
  ITG_DIST_EXPONENTIAL = 2,
  ITG_DIST_POISSON = 3,
  ITG_DIST_NORMAL = 4,
  ITG_DIST_PARETO = 5,
  ITG_DIST_CAUCHY = 6,
  ITG_DIST_GAMMA = 7,
  ITG_DIST_WEIBULL = 8,
  ITG_DIST_LOGNORMAL = 9,
  ITG_DIST_EMPIRICAL = 10
} itg_dist_kind;

#define ITG_DIST_MAX_PARAMS 3

typedef struct itg_dist itg_dist;

/* Creates a dist of a parametric law (any kind but EMPIRICAL).
 * Returns 0, ITG_EINVAL for an unknown kind, a wrong parameter count or a
 * parameter outside its domain (checked here, never passed on to GSL), or
 * ITG_ENOMEM. */
ITG_API int itg_dist_new(itg_dist_kind kind, const double *params,
                         size_t nparams, uint64_t seed, itg_dist **out);

/* Creates an EMPIRICAL dist that replays a copy of values[0..n-1].
 * Returns 0, ITG_EINVAL if n is 0 or a value is not finite, or ITG_ENOMEM. */
ITG_API int itg_dist_new_empirical(const double *values, size_t n,
                                   itg_dist **out);

/* Reads a trace file for an EMPIRICAL dist: one number per line; blank
 * lines and lines starting with '#' are skipped. On success *values is a
 * malloc'd array the caller frees with itg_free. Returns 0, ITG_ENOENT,
 * ITG_EIO, ITG_EBADMSG (a line that is not a finite number; *bad_line, if
 * not NULL, gets its 1-based number) or ITG_EINVAL (an empty trace). */
ITG_API int itg_dist_read_file(const char *path, double **values, size_t *n,
                               size_t *bad_line);

/* Returns the next draw of the law. Non-finite draws cannot come out of
 * the parametric laws with valid parameters; negative ones can (NORMAL,
 * CAUCHY, UNIFORM with min < 0): use itg_dist_next_in to bound them. */
ITG_API double itg_dist_next(itg_dist *d);

/* Returns the next draw inside [lo, hi]: a draw outside the interval or not
 * finite is drawn again (the law is truncated to [lo, hi]); after 64
 * rejections in a row the draw is clamped to the nearer bound, so a law
 * whose mass lies outside the interval still yields a value. */
ITG_API double itg_dist_next_in(itg_dist *d, double lo, double hi);

/* Returns the law's mean, or NaN where it has none (CAUCHY, PARETO with
 * shape <= 1). For EMPIRICAL, the mean of the trace. */
ITG_API double itg_dist_mean(const itg_dist *d);

/* Returns the law's kind. */
ITG_API itg_dist_kind itg_dist_get_kind(const itg_dist *d);

/* Returns the kind's lower-case name ("exponential", ...), or NULL for an
 * unknown kind. */
ITG_API const char *itg_dist_kind_name(itg_dist_kind kind);

/* Returns the number of parameters the kind takes, or -1 if unknown. */
ITG_API int itg_dist_kind_nparams(itg_dist_kind kind);

/* Frees a dist; NULL is accepted. */
ITG_API void itg_dist_free(itg_dist *d);

/* Frees memory that libitg allocated for the caller (e.g. by
 * itg_dist_read_file); NULL is accepted. */
ITG_API void itg_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
