/* Random laws for inter-departure times (IDT) and packet sizes (PS).
 *
 * An itg_dist draws from one law with its own GSL generator (MT19937),
 * seeded explicitly: the same law, parameters and seed give the same
 * sequence of draws on every platform (up to the last bits of the math
 * library's exp, log and pow; tests/vectors/dist_draws.txt is the
 * reference). A dist is not thread-safe; each flow owns its own.
 *
 * Seeding. MT19937 takes a 32-bit seed, and GSL replaces a seed of 0 by its
 * default 4357, so the 64-bit seed is reduced explicitly (never through
 * `unsigned long`, which is 32 bits on Windows):
 *     s32 = (seed mod 2^32) XOR ((seed div 2^32) * 0x9E3779B9 mod 2^32)
 *     mt_seed = (s32 mod 0xFFFFFFFF) + 1            (1 .. 2^32 - 1, never 0)
 * Seeds 0 to 2^32 - 2 therefore all give distinct streams (seed 0 is not
 * GSL's default stream). MT19937 has only 2^32 - 1 seedable streams, so
 * some larger seeds share a stream with a smaller one.
 *
 * Parameters, in the order they are passed (p[0], p[1], ...). Units are the
 * caller's (the flow layer's itg_dist_spec says which). Every parameter
 * must be finite.
 *   CONSTANT     value                 value >= 0
 *   UNIFORM      min, max              min <= max
 *   EXPONENTIAL  mean                  mean > 0
 *   POISSON      mean                  0 < mean <= 4e9; draws whole numbers
 *   NORMAL       mean, std             std >= 0
 *   PARETO       shape, scale          shape > 0, scale > 0; x >= scale
 *   CAUCHY       location, scale       scale > 0
 *   GAMMA        shape, scale          shape > 0, scale > 0
 *   WEIBULL      shape, scale          shape > 0, scale > 0
 *                (F(x) = 1 - exp(-(x/scale)^shape); D-ITG swapped these two,
 *                libitg keeps the textbook order shape then scale)
 *   LOGNORMAL    mu, sigma             sigma > 0 (mu, sigma of log x)
 *   STUDENT      location, scale, dof  scale > 0, dof > 0: location +
 *                scale * T, T of Student's t law with dof degrees of
 *                freedom (D-ITG's Student(mu, sigma, nu))
 *   EMPIRICAL    no parameters: a sequence of values given at creation,
 *                replayed in order and from the start again when exhausted
 *                (a trace). The seed is not used.
 * D-ITG 2.8.1's application models, without parameters (its
 * traffic.cpp; ms for times, bytes for sizes, as D-ITG draws them):
 *   TELNET       Telnet's packet sizes: 21 + k bytes, k = 0..14 with
 *                probabilities .65 .13 .07 .05 .03, .01 four times, .005
 *                six times (mean 22.145 B)
 *   QUAKE3       Quake 3's IDTs: exponential of mean 4.29 ms with
 *                probability 0.6, else the constant 10.75 ms (mean
 *                6.874 ms)
 *   CS_ACTIVE    Counter-Strike's sizes, active player: normal(34.8352,
 *                4.3915) with probability 0.3732, else normal(49.4904,
 *                3.6186) (mean 44.0)
 *   CS_IDLE      Counter-Strike's sizes, idle player: 27, 28, 29, 30, 31,
 *                32, 33 and 35 B with probabilities .8312 .0018 .0453
 *                .0195 .0879 .0024 .0106 .0013
 * CONSTANT and EMPIRICAL need no generator and own none.
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
  ITG_DIST_EMPIRICAL = 10,
  ITG_DIST_STUDENT = 11,
  ITG_DIST_TELNET = 12,
  ITG_DIST_QUAKE3 = 13,
  ITG_DIST_CS_ACTIVE = 14,
  ITG_DIST_CS_IDLE = 15
} itg_dist_kind;

#define ITG_DIST_MAX_PARAMS 3

typedef struct itg_dist itg_dist;

/* Creates a dist of a parametric law or model (any kind but EMPIRICAL;
 * params may be NULL for a kind without parameters).
 * Returns 0, ITG_EINVAL for an unknown kind, a wrong parameter count or a
 * parameter outside its domain (checked here, never passed on to GSL), or
 * ITG_ENOMEM. */
ITG_API int itg_dist_new(itg_dist_kind kind, const double *params,
                         size_t nparams, uint64_t seed, itg_dist **out);

/* Creates an EMPIRICAL dist that replays a copy of values[0..n-1].
 * Returns 0, ITG_EINVAL if n is 0 or a value is not finite, or ITG_ENOMEM. */
ITG_API int itg_dist_new_empirical(const double *values, size_t n,
                                   itg_dist **out);

/* The most values a trace file may hold (32 MiB of doubles), and the
 * longest line it may have (1 MiB, its line end not counted): a file
 * without end (/dev/zero, a pipe) is refused once past them, never read
 * to the end of memory. */
#define ITG_DIST_TRACE_MAX ((size_t)1 << 22)
#define ITG_DIST_LINE_MAX ((size_t)1 << 20)

/* Reads a trace file for an EMPIRICAL dist: one number per line, with
 * optional blanks around it; LF and CRLF line ends are both accepted, and
 * lines of up to ITG_DIST_LINE_MAX bytes. Blank lines and lines whose
 * first non-blank character is '#' are skipped. On success *values is an
 * array the caller frees with itg_free and *n its length. Returns 0,
 * ITG_EINVAL (a NULL argument, or an empty trace), ITG_ENOENT, ITG_EIO,
 * ITG_ENOMEM, ITG_ELIMIT (more than ITG_DIST_TRACE_MAX values) or
 * ITG_EBADMSG (a line that is not a finite number, holds a NUL byte or is
 * longer than ITG_DIST_LINE_MAX; *bad_line, if not NULL, gets its 1-based
 * number, and is set to 0 on any other outcome). */
ITG_API int itg_dist_read_file(const char *path, double **values, size_t *n,
                               size_t *bad_line);

/* Returns the next draw of the law, always a finite number: a draw that
 * overflows (only with extreme parameters, e.g. PARETO with a tiny shape)
 * saturates to +DBL_MAX or -DBL_MAX. Negative draws can come out (NORMAL,
 * CAUCHY, UNIFORM with min < 0): use itg_dist_next_in to bound them. */
ITG_API double itg_dist_next(itg_dist *d);

/* Returns the next draw inside [lo, hi] (either bound may be infinite): a
 * draw outside the interval is drawn again (the law is truncated to
 * [lo, hi]); after 64 rejections in a row the last draw is clamped to the
 * nearer bound, so a law whose mass lies outside the interval still yields
 * a value. Returns NaN, without drawing, if lo > hi or a bound is NaN. */
ITG_API double itg_dist_next_in(itg_dist *d, double lo, double hi);

/* Returns the law's mean, or NaN where it has none (CAUCHY, PARETO with
 * shape <= 1); it may be +inf when parameters are extreme. For EMPIRICAL,
 * the mean of the trace. This is the mean of itg_dist_next, not of
 * itg_dist_next_in, which truncates the law. */
ITG_API double itg_dist_mean(const itg_dist *d);

/* Returns the share of the law's draws (of itg_dist_next) that lie below
 * x, strictly: its distribution function just left of x, from 0 to 1 (for
 * EMPIRICAL, the share of the trace's values). NaN for a NaN x. */
ITG_API double itg_dist_below(const itg_dist *d, double x);

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
