/* Tests of the random laws (itg/dist.h).
 *
 *   test_dist                    runs the tests
 *   test_dist --print-vectors    prints the reference draws, the content of
 *                                tests/vectors/dist_draws.txt
 *
 * The reference file is looked for in $ITG_VECTORS (a directory), else in
 * tests/vectors under the current directory (the top of the source tree,
 * where `make test` runs). Scratch trace files are written next to the
 * test program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_version.h>

#include "itg/parse.h"
#include "itg/dist.h"

#define NDRAWS 100000
#define NVECTOR 1000
#define ALPHA 0.01

/* Directory of the test program, with its trailing separator. */
static char scratch_dir[4096];

/* ---- helpers ---------------------------------------------------------------- */

static itg_dist *make(itg_dist_kind kind, const double *p, uint64_t seed) {
  itg_dist *d = NULL;
  int rc = itg_dist_new(kind, p, (size_t)itg_dist_kind_nparams(kind), seed, &d);
  assert_int_equal(rc, 0);
  assert_non_null(d);
  return d;
}

/* n draws of a law, in a malloc'd array. */
static double *draw_n(itg_dist_kind kind, const double *p, uint64_t seed,
                      size_t n) {
  itg_dist *d = make(kind, p, seed);
  double *x = malloc(n * sizeof *x);
  size_t i;
  assert_non_null(x);
  for (i = 0; i < n; i++)
    x[i] = itg_dist_next(d);
  itg_dist_free(d);
  return x;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* P(K > lambda) for the Kolmogorov distribution K, from whichever of its two
 * series converges fast at lambda. */
static double kolmogorov_q(double lambda) {
  double s = 0;
  int j;
  if (lambda <= 0)
    return 1;
  if (lambda < 1.18) {
    for (j = 1; j <= 20; j++) {
      double k = 2.0 * j - 1;
      s += exp(-k * k * M_PI * M_PI / (8 * lambda * lambda));
    }
    return 1 - sqrt(2 * M_PI) / lambda * s;
  }
  for (j = 1; j <= 20; j++)
    s += (j % 2 ? 2.0 : -2.0) * exp(-2.0 * j * j * lambda * lambda);
  return s;
}

typedef double (*cdf_fn)(double x, const double *p);

/* The Kolmogorov-Smirnov p-value of the sample x (sorted in place) against
 * the CDF, with Stephens' finite-sample correction of the statistic. */
static double ks_pvalue(double *x, size_t n, cdf_fn cdf, const double *p) {
  double dmax = 0, rn = sqrt((double)n);
  size_t i;
  qsort(x, n, sizeof *x, cmp_double);
  for (i = 0; i < n; i++) {
    double f = cdf(x[i], p);
    double above = (double)(i + 1) / (double)n - f;
    double below = f - (double)i / (double)n;
    if (above > dmax)
      dmax = above;
    if (below > dmax)
      dmax = below;
  }
  return kolmogorov_q((rn + 0.12 + 0.11 / rn) * dmax);
}

/* The laws' CDFs, from GSL, with the parameters in libitg's order. */
static double cdf_uniform(double x, const double *p) {
  return gsl_cdf_flat_P(x, p[0], p[1]);
}
static double cdf_exponential(double x, const double *p) {
  return gsl_cdf_exponential_P(x, p[0]);
}
static double cdf_normal(double x, const double *p) {
  return gsl_cdf_gaussian_P(x - p[0], p[1]);
}
static double cdf_pareto(double x, const double *p) {
  return gsl_cdf_pareto_P(x, p[0], p[1]);
}
static double cdf_cauchy(double x, const double *p) {
  return gsl_cdf_cauchy_P(x - p[0], p[1]);
}
static double cdf_gamma(double x, const double *p) {
  return gsl_cdf_gamma_P(x, p[0], p[1]);
}
static double cdf_weibull(double x, const double *p) {
  return gsl_cdf_weibull_P(x, p[1], p[0]);
}
static double cdf_lognormal(double x, const double *p) {
  return gsl_cdf_lognormal_P(x, p[0], p[1]);
}
/* The standard normal truncated to [0, inf). */
static double cdf_half_normal(double x, const double *p) {
  (void)p;
  return x <= 0 ? 0 : 2 * gsl_cdf_ugaussian_P(x) - 1;
}

/* The chi-square p-value of Poisson draws x[0..n-1] against Poisson(mean),
 * bins grouped from k = 0 up so each expects at least 5 draws, the upper
 * tail pooled into the last. */
static double poisson_chisq_pvalue(const double *x, size_t n, double mean) {
  size_t *count, i, kmax = 0, bins = 0;
  double chi2 = 0, exp_acc = 0, obs_acc = 0;
  unsigned k;
  for (i = 0; i < n; i++) {
    assert_true(x[i] >= 0 && x[i] == floor(x[i]));
    if ((size_t)x[i] > kmax)
      kmax = (size_t)x[i];
  }
  count = calloc(kmax + 2, sizeof *count);
  assert_non_null(count);
  for (i = 0; i < n; i++)
    count[(size_t)x[i]]++;
  for (k = 0;; k++) {
    double tail = (double)n * gsl_cdf_poisson_Q(k, mean);
    exp_acc += (double)n * gsl_ran_poisson_pdf(k, mean);
    obs_acc += k <= kmax ? (double)count[k] : 0;
    if (tail < 5) {
      size_t j;
      exp_acc += tail;
      for (j = (size_t)k + 1; j <= kmax; j++)
        obs_acc += (double)count[j];
    }
    if (exp_acc >= 5 || tail < 5) {
      chi2 += (obs_acc - exp_acc) * (obs_acc - exp_acc) / exp_acc;
      bins++;
      exp_acc = obs_acc = 0;
    }
    if (tail < 5)
      break;
  }
  free(count);
  assert_true(bins >= 3);
  return gsl_cdf_chisq_Q(chi2, (double)(bins - 1));
}

/* Builds the path of a scratch file next to the test program. */
static void scratch_path(char *buf, size_t len, const char *name) {
  int w = snprintf(buf, len, "%sdist_scratch_%s", scratch_dir, name);
  assert_true(w > 0 && (size_t)w < len);
}

/* Writes len bytes to the scratch file `name`; puts its path in path. */
static void write_scratch(char *path, size_t plen, const char *name,
                          const char *bytes, size_t len) {
  FILE *f;
  scratch_path(path, plen, name);
  f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

/* ---- goodness of fit ------------------------------------------------------ */

typedef struct fit_case {
  const char *what;
  itg_dist_kind kind;
  double p[2];
  cdf_fn cdf;
} fit_case;

/* Every continuous law, with both of GSL's code paths where it has two
 * (gamma and Weibull below and above shape 1, Pareto with and without a
 * mean), and parameters chosen so a swap of two of them would show. */
static const fit_case fit_cases[] = {
    {"uniform(-2, 5)", ITG_DIST_UNIFORM, {-2, 5}, cdf_uniform},
    {"exponential(0.75)", ITG_DIST_EXPONENTIAL, {0.75, 0}, cdf_exponential},
    {"normal(10, 2.5)", ITG_DIST_NORMAL, {10, 2.5}, cdf_normal},
    {"pareto(2.5, 1.5)", ITG_DIST_PARETO, {2.5, 1.5}, cdf_pareto},
    {"pareto(0.8, 2)", ITG_DIST_PARETO, {0.8, 2}, cdf_pareto},
    {"cauchy(5, 0.5)", ITG_DIST_CAUCHY, {5, 0.5}, cdf_cauchy},
    {"gamma(0.5, 2)", ITG_DIST_GAMMA, {0.5, 2}, cdf_gamma},
    {"gamma(3.5, 1.5)", ITG_DIST_GAMMA, {3.5, 1.5}, cdf_gamma},
    {"weibull(1.5, 3)", ITG_DIST_WEIBULL, {1.5, 3}, cdf_weibull},
    {"weibull(0.6, 2)", ITG_DIST_WEIBULL, {0.6, 2}, cdf_weibull},
    {"lognormal(0.3, 0.8)", ITG_DIST_LOGNORMAL, {0.3, 0.8}, cdf_lognormal},
};

static void test_ks_fits_every_law(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof fit_cases / sizeof fit_cases[0]; i++) {
    const fit_case *c = &fit_cases[i];
    double *x = draw_n(c->kind, c->p, 1000 + i, NDRAWS);
    double pv = ks_pvalue(x, NDRAWS, c->cdf, c->p);
    free(x);
    if (!(pv > ALPHA))
      fail_msg("%s: KS p-value %g", c->what, pv);
  }
}

static void test_chisq_fits_poisson(void **state) {
  /* GSL multiplies uniforms below mean 10 and goes through gamma and
   * binomial draws above it. */
  static const double means[] = {0.3, 4, 150, 12345.5};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof means / sizeof means[0]; i++) {
    double *x = draw_n(ITG_DIST_POISSON, &means[i], 77 + i, NDRAWS);
    double pv = poisson_chisq_pvalue(x, NDRAWS, means[i]);
    free(x);
    if (!(pv > ALPHA))
      fail_msg("poisson(%g): chi-square p-value %g", means[i], pv);
  }
}

/* The same tests must reject draws of another law, or passing them would
 * prove nothing. */
static void test_fit_tests_reject_wrong_laws(void **state) {
  static const double expo[] = {1}, unif[] = {0, 3};
  static const double weib[] = {1.5, 3}, weib_swapped[] = {3, 1.5};
  static const double cauchy[] = {5, 0.5}, cauchy_at_0[] = {0, 0.5};
  static const double norm[] = {10, 2.5}, norm_off[] = {10.05, 2.5};
  static const double pois = 4;
  double *x;
  (void)state;

  x = draw_n(ITG_DIST_EXPONENTIAL, expo, 1, NDRAWS);
  assert_true(ks_pvalue(x, NDRAWS, cdf_uniform, unif) < ALPHA);
  free(x);
  /* D-ITG's Weibull order, and a Cauchy law without its location. */
  x = draw_n(ITG_DIST_WEIBULL, weib, 2, NDRAWS);
  assert_true(ks_pvalue(x, NDRAWS, cdf_weibull, weib_swapped) < ALPHA);
  free(x);
  x = draw_n(ITG_DIST_CAUCHY, cauchy, 3, NDRAWS);
  assert_true(ks_pvalue(x, NDRAWS, cdf_cauchy, cauchy_at_0) < ALPHA);
  free(x);
  /* A shift of 2% of a standard deviation is seen at this sample size. */
  x = draw_n(ITG_DIST_NORMAL, norm, 4, NDRAWS);
  assert_true(ks_pvalue(x, NDRAWS, cdf_normal, norm_off) < ALPHA);
  free(x);
  x = draw_n(ITG_DIST_POISSON, &pois, 5, NDRAWS);
  assert_true(poisson_chisq_pvalue(x, NDRAWS, 4.2) < ALPHA);
  free(x);
}

/* The Kolmogorov survival function against values from
 * scipy.special.kolmogorov, across both series. */
static void test_kolmogorov_distribution(void **state) {
  (void)state;
  assert_float_equal(kolmogorov_q(0.5), 0.9639452436648751, 1e-12);
  assert_float_equal(kolmogorov_q(1.0), 0.26999967167735456, 1e-12);
  assert_float_equal(kolmogorov_q(1.18), 0.1234538094297657, 1e-12);
  assert_float_equal(kolmogorov_q(1.3581), 0.0499996304316674, 1e-12);
  assert_float_equal(kolmogorov_q(1.6276), 0.010001537333060776, 1e-12);
  assert_float_equal(kolmogorov_q(2.0), 0.0006709252557796953, 1e-12);
}

/* ---- means -------------------------------------------------------------- */

static void test_mean_matches_sample_mean(void **state) {
  static const struct {
    itg_dist_kind kind;
    double p[2];
  } cases[] = {
      {ITG_DIST_UNIFORM, {-2, 5}},    {ITG_DIST_EXPONENTIAL, {0.75, 0}},
      {ITG_DIST_POISSON, {4, 0}},     {ITG_DIST_POISSON, {150, 0}},
      {ITG_DIST_NORMAL, {10, 2.5}},   {ITG_DIST_PARETO, {4.5, 1.5}},
      {ITG_DIST_GAMMA, {0.5, 2}},     {ITG_DIST_GAMMA, {3.5, 1.5}},
      {ITG_DIST_WEIBULL, {1.5, 3}},   {ITG_DIST_WEIBULL, {0.6, 2}},
      {ITG_DIST_LOGNORMAL, {0.3, 0.5}},
  };
  size_t i, j;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double *x = draw_n(cases[i].kind, cases[i].p, 500 + i, NDRAWS);
    itg_dist *d = make(cases[i].kind, cases[i].p, 1);
    double sum = 0, sq = 0, m, sd, mean = itg_dist_mean(d);
    for (j = 0; j < NDRAWS; j++)
      sum += x[j];
    m = sum / NDRAWS;
    for (j = 0; j < NDRAWS; j++)
      sq += (x[j] - m) * (x[j] - m);
    sd = sqrt(sq / (NDRAWS - 1));
    if (!(fabs(m - mean) < 5 * sd / sqrt(NDRAWS)))
      fail_msg("%s: mean %g, sample mean %g (sd %g)",
               itg_dist_kind_name(cases[i].kind), mean, m, sd);
    itg_dist_free(d);
    free(x);
  }
}

static void test_mean_closed_forms(void **state) {
  static const double cst[] = {3}, unif[] = {2, 4}, gam[] = {2, 3};
  static const double weib_exp[] = {1, 2}, weib_rayleigh[] = {2, 1};
  static const double cauchy[] = {5, 1}, par1[] = {1, 2}, par05[] = {0.5, 2};
  static const double par3[] = {3, 2};
  itg_dist *d;
  (void)state;
  d = make(ITG_DIST_CONSTANT, cst, 0);
  assert_true(itg_dist_mean(d) == 3);
  itg_dist_free(d);
  d = make(ITG_DIST_UNIFORM, unif, 0);
  assert_true(itg_dist_mean(d) == 3);
  itg_dist_free(d);
  d = make(ITG_DIST_GAMMA, gam, 0);
  assert_true(itg_dist_mean(d) == 6);
  itg_dist_free(d);
  /* Weibull of shape 1 is exponential; of shape 2, Rayleigh. */
  d = make(ITG_DIST_WEIBULL, weib_exp, 0);
  assert_float_equal(itg_dist_mean(d), 2, 1e-12);
  itg_dist_free(d);
  d = make(ITG_DIST_WEIBULL, weib_rayleigh, 0);
  assert_float_equal(itg_dist_mean(d), sqrt(M_PI) / 2, 1e-12);
  itg_dist_free(d);
  d = make(ITG_DIST_PARETO, par3, 0);
  assert_float_equal(itg_dist_mean(d), 3, 1e-12);
  itg_dist_free(d);
  d = make(ITG_DIST_CAUCHY, cauchy, 0);
  assert_true(isnan(itg_dist_mean(d)));
  itg_dist_free(d);
  d = make(ITG_DIST_PARETO, par1, 0);
  assert_true(isnan(itg_dist_mean(d)));
  itg_dist_free(d);
  d = make(ITG_DIST_PARETO, par05, 0);
  assert_true(isnan(itg_dist_mean(d)));
  itg_dist_free(d);
}

/* ---- determinism and seeding -------------------------------------------- */

static void test_constant_is_constant(void **state) {
  static const double vals[] = {7.25, 0};
  size_t i, j;
  (void)state;
  for (i = 0; i < 2; i++) {
    itg_dist *d = make(ITG_DIST_CONSTANT, &vals[i], 99);
    for (j = 0; j < 1000; j++)
      assert_true(itg_dist_next(d) == vals[i]);
    assert_int_equal(itg_dist_get_kind(d), ITG_DIST_CONSTANT);
    itg_dist_free(d);
  }
}

/* Valid parameters for every parametric law. */
static const struct {
  itg_dist_kind kind;
  double p[2];
} any_params[] = {
    {ITG_DIST_UNIFORM, {0, 1}},   {ITG_DIST_EXPONENTIAL, {1, 0}},
    {ITG_DIST_POISSON, {20, 0}},  {ITG_DIST_NORMAL, {0, 1}},
    {ITG_DIST_PARETO, {1.5, 1}},  {ITG_DIST_CAUCHY, {1, 2}},
    {ITG_DIST_GAMMA, {2, 1}},     {ITG_DIST_WEIBULL, {1.5, 2}},
    {ITG_DIST_LOGNORMAL, {0, 1}},
};

/* Whether two seeds give the same first 100 draws of a law. */
static int same_stream(itg_dist_kind kind, const double *p, uint64_t s1,
                       uint64_t s2) {
  itg_dist *a = make(kind, p, s1), *b = make(kind, p, s2);
  int same = 1, i;
  for (i = 0; i < 100; i++)
    if (itg_dist_next(a) != itg_dist_next(b))
      same = 0;
  itg_dist_free(a);
  itg_dist_free(b);
  return same;
}

static void test_seeds(void **state) {
  static const uint64_t pairs[][2] = {
      {0, 1},
      {1, 2},
      {0, 4357},                  /* GSL turns an MT seed of 0 into 4357 */
      {0, UINT64_C(1) << 32},     /* the high half of the seed counts */
      {5, (UINT64_C(1) << 32) + 5},
      {UINT64_C(0xFFFFFFFE), 0},  /* the largest seed sure to be distinct */
      {UINT64_C(0x0123456789ABCDEF), UINT64_C(0x0123456789ABCDEE)},
  };
  size_t i, j;
  (void)state;
  for (i = 0; i < sizeof any_params / sizeof any_params[0]; i++) {
    assert_true(same_stream(any_params[i].kind, any_params[i].p, 42, 42));
    assert_true(same_stream(any_params[i].kind, any_params[i].p,
                            UINT64_MAX, UINT64_MAX));
    for (j = 0; j < sizeof pairs / sizeof pairs[0]; j++)
      if (same_stream(any_params[i].kind, any_params[i].p, pairs[j][0],
                      pairs[j][1]))
        fail_msg("%s: seeds %llu and %llu give the same draws",
                 itg_dist_kind_name(any_params[i].kind),
                 (unsigned long long)pairs[j][0],
                 (unsigned long long)pairs[j][1]);
  }
}

/* Seed 0 must not give GSL's default stream: uniform(0, 1) draws are the
 * generator's own uniforms, so the two can be compared directly. */
static void test_seed_zero_is_not_gsl_default(void **state) {
  static const double unit[] = {0, 1};
  itg_dist *d = make(ITG_DIST_UNIFORM, unit, 0);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  int same = 1, i;
  (void)state;
  assert_non_null(r);
  gsl_rng_set(r, 0);
  for (i = 0; i < 100; i++)
    if (itg_dist_next(d) != gsl_rng_uniform(r))
      same = 0;
  assert_false(same);
  gsl_rng_free(r);
  itg_dist_free(d);
}

/* ---- parameter checks ------------------------------------------------------- */

static void test_bad_parameters(void **state) {
  static const struct {
    itg_dist_kind kind;
    double p[3];
    size_t n;
  } bad[] = {
      {ITG_DIST_CONSTANT, {-1}, 1},
      {ITG_DIST_CONSTANT, {NAN}, 1},
      {ITG_DIST_CONSTANT, {INFINITY}, 1},
      {ITG_DIST_CONSTANT, {1}, 0},
      {ITG_DIST_CONSTANT, {1, 1}, 2},
      {ITG_DIST_UNIFORM, {2, 1}, 2},
      {ITG_DIST_UNIFORM, {NAN, 1}, 2},
      {ITG_DIST_UNIFORM, {0, NAN}, 2},
      {ITG_DIST_UNIFORM, {0, INFINITY}, 2},
      {ITG_DIST_UNIFORM, {-INFINITY, 0}, 2},
      {ITG_DIST_UNIFORM, {0}, 1},
      {ITG_DIST_UNIFORM, {0, 1, 2}, 3},
      {ITG_DIST_EXPONENTIAL, {0}, 1},
      {ITG_DIST_EXPONENTIAL, {-1}, 1},
      {ITG_DIST_EXPONENTIAL, {NAN}, 1},
      {ITG_DIST_EXPONENTIAL, {INFINITY}, 1},
      {ITG_DIST_EXPONENTIAL, {1, 1}, 2},
      {ITG_DIST_POISSON, {0}, 1},
      {ITG_DIST_POISSON, {-2}, 1},
      {ITG_DIST_POISSON, {4.5e9}, 1},
      {ITG_DIST_POISSON, {NAN}, 1},
      {ITG_DIST_POISSON, {INFINITY}, 1},
      {ITG_DIST_POISSON, {1}, 0},
      {ITG_DIST_NORMAL, {0, -1}, 2},
      {ITG_DIST_NORMAL, {NAN, 1}, 2},
      {ITG_DIST_NORMAL, {INFINITY, 1}, 2},
      {ITG_DIST_NORMAL, {0, INFINITY}, 2},
      {ITG_DIST_NORMAL, {0, NAN}, 2},
      {ITG_DIST_NORMAL, {0}, 1},
      {ITG_DIST_PARETO, {0, 1}, 2},
      {ITG_DIST_PARETO, {1, 0}, 2},
      {ITG_DIST_PARETO, {-1, 1}, 2},
      {ITG_DIST_PARETO, {1, -1}, 2},
      {ITG_DIST_PARETO, {NAN, 1}, 2},
      {ITG_DIST_PARETO, {1, INFINITY}, 2},
      {ITG_DIST_PARETO, {1, 1, 1}, 3},
      {ITG_DIST_CAUCHY, {0, 0}, 2},
      {ITG_DIST_CAUCHY, {0, -1}, 2},
      {ITG_DIST_CAUCHY, {NAN, 1}, 2},
      {ITG_DIST_CAUCHY, {INFINITY, 1}, 2},
      {ITG_DIST_CAUCHY, {0, INFINITY}, 2},
      {ITG_DIST_CAUCHY, {1}, 1},
      {ITG_DIST_GAMMA, {0, 1}, 2},
      {ITG_DIST_GAMMA, {1, 0}, 2},
      {ITG_DIST_GAMMA, {-1, 1}, 2},
      {ITG_DIST_GAMMA, {INFINITY, 1}, 2},
      {ITG_DIST_GAMMA, {1, NAN}, 2},
      {ITG_DIST_GAMMA, {1}, 1},
      {ITG_DIST_WEIBULL, {0, 1}, 2},
      {ITG_DIST_WEIBULL, {1, 0}, 2},
      {ITG_DIST_WEIBULL, {-1, 1}, 2},
      {ITG_DIST_WEIBULL, {1, -INFINITY}, 2},
      {ITG_DIST_WEIBULL, {NAN, 1}, 2},
      {ITG_DIST_WEIBULL, {1, 1, 1}, 3},
      {ITG_DIST_LOGNORMAL, {0, 0}, 2},
      {ITG_DIST_LOGNORMAL, {0, -1}, 2},
      {ITG_DIST_LOGNORMAL, {NAN, 1}, 2},
      {ITG_DIST_LOGNORMAL, {INFINITY, 1}, 2},
      {ITG_DIST_LOGNORMAL, {0, INFINITY}, 2},
      {ITG_DIST_LOGNORMAL, {0}, 1},
      {ITG_DIST_EMPIRICAL, {0}, 0},
      {ITG_DIST_EMPIRICAL, {1}, 1},
      {(itg_dist_kind)11, {1}, 1},
      {(itg_dist_kind)-1, {1}, 1},
  };
  static const double one[] = {1};
  itg_dist *d;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    d = NULL;
    if (itg_dist_new(bad[i].kind, bad[i].p, bad[i].n, 1, &d) != ITG_EINVAL)
      fail_msg("case %zu (kind %d, %zu params) was not refused", i,
               (int)bad[i].kind, bad[i].n);
    assert_null(d);
  }
  d = NULL;
  assert_int_equal(itg_dist_new(ITG_DIST_EXPONENTIAL, NULL, 1, 1, &d),
                   ITG_EINVAL);
  assert_null(d);
  assert_int_equal(itg_dist_new(ITG_DIST_EXPONENTIAL, one, 1, 1, NULL),
                   ITG_EINVAL);
}

/* The edges of each domain are accepted and behave. */
static void test_domain_edges(void **state) {
  static const double flat[] = {1.1, 1.1}, sure[] = {-3.5, 0};
  static const double big_poisson[] = {4e9}, tiny_shape[] = {1e-3, 1};
  itg_dist *d;
  int i, saturated = 0;
  (void)state;
  d = make(ITG_DIST_UNIFORM, flat, 1);
  for (i = 0; i < 1000; i++)
    assert_true(itg_dist_next(d) == 1.1);
  itg_dist_free(d);
  d = make(ITG_DIST_NORMAL, sure, 1);
  for (i = 0; i < 1000; i++)
    assert_true(itg_dist_next(d) == -3.5);
  itg_dist_free(d);
  d = make(ITG_DIST_POISSON, big_poisson, 1);
  for (i = 0; i < 100; i++) {
    double x = itg_dist_next(d);
    assert_true(fabs(x - 4e9) < 10 * sqrt(4e9) && x == floor(x));
  }
  itg_dist_free(d);
  /* Pareto(0.001) overflows double for about half its draws. */
  d = make(ITG_DIST_PARETO, tiny_shape, 1);
  for (i = 0; i < 1000; i++) {
    double x = itg_dist_next(d);
    assert_true(isfinite(x) && x >= 1);
    saturated += x == DBL_MAX;
  }
  assert_true(saturated > 100);
  itg_dist_free(d);
}

/* Frequencies of the models' whole values, and their means, against
 * D-ITG 2.8.1's tables (traffic.cpp), over NDRAWS seeded draws: a value
 * of probability p is off by more than 5 standard deviations only with a
 * broken table. */
static void check_table(itg_dist_kind kind, const double *v, const double *p,
                        size_t n, double mean) {
  double *x = draw_n(kind, NULL, 4242, NDRAWS);
  double sum = 0;
  size_t i, j;
  for (j = 0; j < n; j++) {
    size_t hits = 0;
    double sd = sqrt(p[j] * (1 - p[j]) / NDRAWS);
    for (i = 0; i < NDRAWS; i++)
      hits += x[i] == v[j];
    if (fabs((double)hits / NDRAWS - p[j]) > 5 * sd + 1e-9)
      fail_msg("%s: value %g drawn %zu times, want p %g",
               itg_dist_kind_name(kind), v[j], hits, p[j]);
  }
  for (i = 0; i < NDRAWS; i++)
    sum += x[i];
  assert_true(fabs(sum / NDRAWS - mean) < 0.05);
  free(x);
}

static void test_ditg_models(void **state) {
  static const double telnet_v[] = {21, 22, 23, 24, 25, 26, 27, 28,
                                    29, 30, 31, 32, 33, 34, 35};
  static const double telnet_p[] = {0.65, 0.13, 0.07, 0.05, 0.03,
                                    0.01, 0.01, 0.01, 0.01, 0.005,
                                    0.005, 0.005, 0.005, 0.005, 0.005};
  static const double idle_v[] = {27, 28, 29, 30, 31, 32, 33, 35};
  static const double idle_p[] = {0.8312, 0.0018, 0.0453, 0.0195,
                                  0.0879, 0.0024, 0.0106, 0.0013};
  static const double quake_v[] = {10.75};
  static const double quake_p[] = {0.4};
  static const double student[] = {41.6994, 0.104821, 0.704073};
  itg_dist *d;
  double *x;
  size_t i, below;
  (void)state;
  check_table(ITG_DIST_TELNET, telnet_v, telnet_p, 15, 22.145);
  check_table(ITG_DIST_CS_IDLE, idle_v, idle_p, 8, 27.5885);
  /* Quake 3: 40 % at 10.75 ms, the rest exponential of mean 4.29 ms. */
  check_table(ITG_DIST_QUAKE3, quake_v, quake_p, 1, 0.6 * 4.29 + 0.4 * 10.75);
  d = make(ITG_DIST_QUAKE3, NULL, 1);
  assert_true(fabs(itg_dist_mean(d) - 6.874) < 1e-12);
  itg_dist_free(d);
  /* Counter-Strike, active: a mixture of normal(34.8, 4.4) and (49.5,
   * 3.6): its mean, and the share below 40 B (0.3732 * 0.8802 plus
   * 0.6268 * 0.0043). */
  x = draw_n(ITG_DIST_CS_ACTIVE, NULL, 77, NDRAWS);
  below = 0;
  for (i = 0; i < NDRAWS; i++)
    below += x[i] < 40;
  free(x);
  d = make(ITG_DIST_CS_ACTIVE, NULL, 1);
  assert_true(fabs(itg_dist_mean(d) -
                   (0.3732 * 34.8352 + 0.6268 * 49.4904)) < 1e-12);
  assert_true(fabs((double)below / NDRAWS - itg_dist_below(d, 40)) < 0.006);
  assert_true(fabs(itg_dist_below(d, 40) -
                   (0.3732 * 0.88022 + 0.6268 * 0.00436)) < 1e-4);
  itg_dist_free(d);
  /* Student: location + scale * t; half the draws below the location,
   * and no mean with fewer than one degree of freedom. */
  x = draw_n(ITG_DIST_STUDENT, student, 5, NDRAWS);
  below = 0;
  for (i = 0; i < NDRAWS; i++)
    below += x[i] < student[0];
  free(x);
  assert_true(fabs((double)below / NDRAWS - 0.5) < 0.01);
  d = make(ITG_DIST_STUDENT, student, 1);
  assert_true(isnan(itg_dist_mean(d)));
  assert_true(fabs(itg_dist_below(d, student[0]) - 0.5) < 1e-12);
  itg_dist_free(d);
}

/* itg_dist_below: the share of draws strictly below x. */
static void test_below(void **state) {
  static const double expo[] = {50}, cons[] = {36}, pois[] = {4},
                      unif[] = {10, 20}, par[] = {1.5, 20};
  static const double trace[] = {10, 20, 30, 40};
  itg_dist *d;
  (void)state;
  d = make(ITG_DIST_EXPONENTIAL, expo, 1);
  assert_true(fabs(itg_dist_below(d, 36) - (1 - exp(-36.0 / 50))) < 1e-12);
  assert_true(itg_dist_below(d, -1) == 0);
  assert_true(isnan(itg_dist_below(d, NAN)));
  itg_dist_free(d);
  d = make(ITG_DIST_CONSTANT, cons, 1);
  assert_true(itg_dist_below(d, 36) == 0);
  assert_true(itg_dist_below(d, 36.5) == 1);
  itg_dist_free(d);
  /* Poisson(4) below 2: P(0) + P(1) = 5 e^-4; below 2.5 the same as 3. */
  d = make(ITG_DIST_POISSON, pois, 1);
  assert_true(fabs(itg_dist_below(d, 2) - 5 * exp(-4.0)) < 1e-12);
  assert_true(fabs(itg_dist_below(d, 2.5) - 13 * exp(-4.0)) < 1e-12);
  itg_dist_free(d);
  d = make(ITG_DIST_UNIFORM, unif, 1);
  assert_true(fabs(itg_dist_below(d, 12.5) - 0.25) < 1e-12);
  itg_dist_free(d);
  d = make(ITG_DIST_PARETO, par, 1);
  assert_true(itg_dist_below(d, 20) == 0);
  assert_true(fabs(itg_dist_below(d, 40) - (1 - pow(0.5, 1.5))) < 1e-12);
  itg_dist_free(d);
  d = make(ITG_DIST_TELNET, NULL, 1);
  assert_true(itg_dist_below(d, 21) == 0);
  assert_true(fabs(itg_dist_below(d, 22) - 0.65) < 1e-12);
  assert_true(itg_dist_below(d, 36) == 1);
  itg_dist_free(d);
  d = make(ITG_DIST_CS_IDLE, NULL, 1);
  assert_true(fabs(itg_dist_below(d, 28) - 0.8312) < 1e-12);
  itg_dist_free(d);
  assert_int_equal(itg_dist_new_empirical(trace, 4, &d), 0);
  assert_true(itg_dist_below(d, 30) == 0.5);
  itg_dist_free(d);
}

static void test_kind_names(void **state) {
  static const char *names[] = {"constant", "uniform",   "exponential",
                                "poisson",  "normal",    "pareto",
                                "cauchy",   "gamma",     "weibull",
                                "lognormal", "empirical", "student",
                                "telnet",   "quake3",    "cs-active",
                                "cs-idle"};
  static const int nparams[] = {1, 2, 1, 1, 2, 2, 2, 2, 2, 2, 0, 3, 0, 0, 0, 0};
  int k;
  (void)state;
  for (k = 0; k <= ITG_DIST_CS_IDLE; k++) {
    assert_string_equal(itg_dist_kind_name((itg_dist_kind)k), names[k]);
    assert_int_equal(itg_dist_kind_nparams((itg_dist_kind)k), nparams[k]);
  }
  assert_null(itg_dist_kind_name((itg_dist_kind)16));
  assert_null(itg_dist_kind_name((itg_dist_kind)-1));
  assert_int_equal(itg_dist_kind_nparams((itg_dist_kind)16), -1);
  assert_int_equal(itg_dist_kind_nparams((itg_dist_kind)-1), -1);
}

/* ---- bounded draws ------------------------------------------------------- */

static void test_next_in_truncates(void **state) {
  static const double std_normal[] = {0, 1};
  itg_dist *d = make(ITG_DIST_NORMAL, std_normal, 31);
  double *x = malloc(NDRAWS * sizeof *x);
  size_t i;
  (void)state;
  assert_non_null(x);
  for (i = 0; i < NDRAWS; i++) {
    x[i] = itg_dist_next_in(d, 0, INFINITY);
    assert_true(x[i] >= 0);
  }
  /* Redrawing, not folding or clamping, gives the half-normal law. */
  assert_true(ks_pvalue(x, NDRAWS, cdf_half_normal, NULL) > ALPHA);
  free(x);
  itg_dist_free(d);
}

static void test_next_in_clamps(void **state) {
  static const double above[] = {10, 20}, below[] = {-20, -10};
  static const double cst[] = {7};
  itg_dist *d, *twin;
  int i;
  (void)state;
  d = make(ITG_DIST_UNIFORM, above, 8);
  twin = make(ITG_DIST_UNIFORM, above, 8);
  assert_true(itg_dist_next_in(d, 0, 5) == 5);
  /* It gave up after exactly 64 draws. */
  for (i = 0; i < 64; i++)
    itg_dist_next(twin);
  assert_true(itg_dist_next(d) == itg_dist_next(twin));
  itg_dist_free(twin);
  itg_dist_free(d);
  d = make(ITG_DIST_UNIFORM, below, 8);
  assert_true(itg_dist_next_in(d, 0, 5) == 0);
  itg_dist_free(d);
  d = make(ITG_DIST_CONSTANT, cst, 0);
  assert_true(itg_dist_next_in(d, 1, 2) == 2);
  assert_true(itg_dist_next_in(d, 8, 9) == 8);
  assert_true(itg_dist_next_in(d, 7, 7) == 7);
  itg_dist_free(d);
}

static void test_next_in_bad_bounds(void **state) {
  static const double unit[] = {0, 1};
  itg_dist *d = make(ITG_DIST_UNIFORM, unit, 9);
  itg_dist *twin = make(ITG_DIST_UNIFORM, unit, 9);
  (void)state;
  assert_true(isnan(itg_dist_next_in(d, 2, 1)));
  assert_true(isnan(itg_dist_next_in(d, NAN, 1)));
  assert_true(isnan(itg_dist_next_in(d, 0, NAN)));
  /* Nothing was drawn. */
  assert_true(itg_dist_next(d) == itg_dist_next(twin));
  itg_dist_free(twin);
  itg_dist_free(d);
}

/* ---- empirical ---------------------------------------------------------- */

static void test_empirical_replays_and_wraps(void **state) {
  double v[] = {1, 2.5, 3};
  static const double want[] = {1, 2.5, 3, 1, 2.5, 3, 1};
  itg_dist *d = NULL;
  size_t i;
  (void)state;
  assert_int_equal(itg_dist_new_empirical(v, 3, &d), 0);
  v[0] = 100; /* the dist keeps its own copy */
  assert_int_equal(itg_dist_get_kind(d), ITG_DIST_EMPIRICAL);
  assert_float_equal(itg_dist_mean(d), 6.5 / 3, 1e-15);
  for (i = 0; i < sizeof want / sizeof want[0]; i++)
    assert_true(itg_dist_next(d) == want[i]);
  itg_dist_free(d);
}

static void test_empirical_next_in_skips(void **state) {
  static const double v[] = {1, 10, 2, -4};
  itg_dist *d = NULL;
  (void)state;
  assert_int_equal(itg_dist_new_empirical(v, 4, &d), 0);
  assert_true(itg_dist_next_in(d, 0, 5) == 1);
  assert_true(itg_dist_next_in(d, 0, 5) == 2);
  assert_true(itg_dist_next_in(d, 0, 5) == 1);
  itg_dist_free(d);
}

static void test_empirical_bad_input(void **state) {
  static const double ok[] = {1}, nan_in[] = {1, NAN}, inf_in[] = {INFINITY};
  static const double huge[] = {DBL_MAX, DBL_MAX};
  itg_dist *d = NULL;
  (void)state;
  assert_int_equal(itg_dist_new_empirical(NULL, 1, &d), ITG_EINVAL);
  assert_int_equal(itg_dist_new_empirical(ok, 0, &d), ITG_EINVAL);
  assert_int_equal(itg_dist_new_empirical(nan_in, 2, &d), ITG_EINVAL);
  assert_int_equal(itg_dist_new_empirical(inf_in, 1, &d), ITG_EINVAL);
  assert_int_equal(itg_dist_new_empirical(ok, 1, NULL), ITG_EINVAL);
  assert_null(d);
  /* A mean whose plain sum would overflow. */
  assert_int_equal(itg_dist_new_empirical(huge, 2, &d), 0);
  assert_true(itg_dist_mean(d) == DBL_MAX);
  itg_dist_free(d);
  itg_dist_free(NULL);
  itg_free(NULL);
}

/* ---- trace files ---------------------------------------------------------- */

/* Reads the scratch file `name` holding `text`; returns the result code. */
static int read_text(const char *name, const char *text, size_t len,
                     double **v, size_t *n, size_t *bad) {
  char path[4200];
  int rc;
  write_scratch(path, sizeof path, name, text, len);
  rc = itg_dist_read_file(path, v, n, bad);
  remove(path);
  return rc;
}

static void expect_values(const char *name, const char *text,
                          const double *want, size_t nwant) {
  double *v = NULL;
  size_t n = 0, bad = 99, i;
  assert_int_equal(read_text(name, text, strlen(text), &v, &n, &bad), 0);
  assert_int_equal(bad, 0);
  assert_int_equal(n, nwant);
  for (i = 0; i < n; i++)
    assert_true(v[i] == want[i]);
  itg_free(v);
}

static void expect_bad_line(const char *name, const char *text, size_t len,
                            size_t line) {
  double *v = NULL;
  size_t n = 0, bad = 0;
  assert_int_equal(read_text(name, text, len, &v, &n, &bad), ITG_EBADMSG);
  assert_int_equal(bad, line);
  assert_null(v);
}

static void test_read_file_good(void **state) {
  static const double plain[] = {1.5, 2, 3.25, -0.004};
  static const double two[] = {1, 2};
  static const double three[] = {1, 2.5, 3};
  double *v = NULL;
  size_t n = 0;
  itg_dist *d = NULL;
  (void)state;
  expect_values("plain", "1.5\n2\n  3.25\t \n-4e-3\n", plain, 4);
  expect_values("comments", "# a trace\n\n1\n   # indented\n\t\n2\n", two, 2);
  expect_values("crlf", "1\r\n2.5\r\n\r\n#c\r\n3\r\n", three, 3);
  expect_values("no_final_newline", "1\n2", two, 2);
  /* The values make an EMPIRICAL dist. */
  assert_int_equal(read_text("for_dist", "4\n8\n", 4, &v, &n, NULL), 0);
  assert_int_equal(itg_dist_new_empirical(v, n, &d), 0);
  itg_free(v);
  assert_true(itg_dist_next(d) == 4);
  assert_true(itg_dist_next(d) == 8);
  assert_true(itg_dist_next(d) == 4);
  itg_dist_free(d);
}

static void test_read_file_bad_lines(void **state) {
  static const char nul_line[] = "1\n2\0 3\n4\n";
  (void)state;
  expect_bad_line("word", "1\n2\nabc\n4\n", 10, 3);
  expect_bad_line("two_numbers", "1\n2 3\n", 6, 2);
  expect_bad_line("trailing_comment", "1.5 # ms\n", 9, 1);
  expect_bad_line("nan", "# x\r\nnan\r\n", 10, 2);
  expect_bad_line("inf", "inf\n", 4, 1);
  expect_bad_line("overflow", "1\n1e999\n", 8, 2);
  expect_bad_line("nul_byte", nul_line, sizeof nul_line - 1, 2);
  expect_bad_line("last_line", "1\n2\n3x", 6, 3);
}

/* Lines longer than the reader's chunk: a number, a comment, a bad line. */
static void test_read_file_long_lines(void **state) {
  const size_t zeros = 200000;
  char *text = malloc(3 * zeros + 100);
  char *t = text;
  double *v = NULL;
  size_t n = 0, bad = 0;
  (void)state;
  assert_non_null(text);
  t += sprintf(t, "1.");
  memset(t, '0', zeros);
  t += zeros;
  t += sprintf(t, "\n#");
  memset(t, 'c', zeros);
  t += zeros;
  t += sprintf(t, "\n2\n");
  assert_int_equal(read_text("long", text, (size_t)(t - text), &v, &n, &bad),
                   0);
  assert_int_equal(n, 2);
  assert_true(v[0] == 1 && v[1] == 2);
  itg_free(v);
  memset(t, 'x', zeros);
  t += zeros;
  expect_bad_line("long_bad", text, (size_t)(t - text), 4);
  free(text);
}

/* A trace has at most ITG_DIST_TRACE_MAX values and lines of at most
 * ITG_DIST_LINE_MAX bytes; a file with no end (/dev/zero grew the reader
 * to gigabytes in seconds) is refused at its first bytes. */
static void test_read_file_bounds(void **state) {
  const size_t max = ITG_DIST_TRACE_MAX;
  char *text = malloc(2 * max + 2);
  double *v = NULL;
  size_t n = 0, bad = 99;
  FILE *zero;
  (void)state;
  assert_non_null(text);
  for (size_t i = 0; i < max + 1; i++)
    memcpy(text + 2 * i, "7\n", 2);
  assert_int_equal(read_text("max", text, 2 * max, &v, &n, &bad), 0);
  assert_int_equal(n, max);
  itg_free(v);
  v = NULL;
  assert_int_equal(read_text("over_max", text, 2 * max + 2, &v, &n, &bad),
                   ITG_ELIMIT);
  assert_int_equal(bad, 0);
  assert_null(v);

  /* "1\n", then a comment line of ITG_DIST_LINE_MAX bytes, then one
   * byte longer. */
  memset(text, 'c', ITG_DIST_LINE_MAX + 4);
  memcpy(text, "1\n#", 3);
  text[ITG_DIST_LINE_MAX + 2] = '\n';
  assert_int_equal(
      read_text("longest", text, ITG_DIST_LINE_MAX + 3, &v, &n, &bad), 0);
  assert_int_equal(n, 1);
  itg_free(v);
  v = NULL;
  text[ITG_DIST_LINE_MAX + 2] = 'c';
  text[ITG_DIST_LINE_MAX + 3] = '\n';
  expect_bad_line("too_long", text, ITG_DIST_LINE_MAX + 4, 2);
  memset(text, 0, 100000);
  expect_bad_line("zeros", text, 100000, 1);
  free(text);

  zero = fopen("/dev/zero", "rb");
  if (zero != NULL) {
    fclose(zero);
    assert_int_equal(itg_dist_read_file("/dev/zero", &v, &n, &bad),
                     ITG_EBADMSG);
    assert_int_equal(bad, 1);
  }
}

static void test_read_file_errors(void **state) {
  char path[4200];
  double *v = NULL;
  size_t n = 0, bad = 99;
  (void)state;
  scratch_path(path, sizeof path, "does_not_exist");
  remove(path);
  assert_int_equal(itg_dist_read_file(path, &v, &n, &bad), ITG_ENOENT);
  assert_int_equal(bad, 0);
  assert_null(v);
  assert_int_equal(read_text("empty", "", 0, &v, &n, &bad), ITG_EINVAL);
  assert_int_equal(read_text("only_comments", "# a\n\n  \r\n# b", 12, &v, &n,
                             &bad),
                   ITG_EINVAL);
  assert_int_equal(bad, 0);
  assert_null(v);
  assert_int_equal(itg_dist_read_file(NULL, &v, &n, &bad), ITG_EINVAL);
  assert_int_equal(itg_dist_read_file(path, NULL, &n, &bad), ITG_EINVAL);
  assert_int_equal(itg_dist_read_file(path, &v, NULL, &bad), ITG_EINVAL);
}

/* ---- reference vectors ---------------------------------------------------- */

/* How many kinds there are (EMPIRICAL, which has no reference draws,
 * among them). */
#define NKINDS (ITG_DIST_CS_IDLE + 1)

/* The laws, parameters and seeds of tests/vectors/dist_draws.txt: every
 * parametric law, both Poisson and gamma code paths, and seeds that test
 * the reduction to 32 bits (0, one above 2^32). */
static const struct {
  itg_dist_kind kind;
  double p[ITG_DIST_MAX_PARAMS];
  uint64_t seed;
} vector_cases[] = {
    {ITG_DIST_CONSTANT, {3.5, 0}, 1},
    {ITG_DIST_UNIFORM, {-2, 5}, 2},
    {ITG_DIST_EXPONENTIAL, {0.75, 0}, 3},
    {ITG_DIST_POISSON, {4, 0}, 4},
    {ITG_DIST_POISSON, {150, 0}, 5},
    {ITG_DIST_NORMAL, {10, 2.5}, 6},
    {ITG_DIST_PARETO, {2.5, 1.5}, 7},
    {ITG_DIST_CAUCHY, {5, 0.5}, 8},
    {ITG_DIST_GAMMA, {0.5, 2}, 9},
    {ITG_DIST_GAMMA, {3.5, 1.5}, 10},
    {ITG_DIST_WEIBULL, {1.5, 3}, UINT64_C(0x0123456789ABCDEF)},
    {ITG_DIST_LOGNORMAL, {0.3, 0.8}, 0},
    {ITG_DIST_STUDENT, {41.6994, 0.104821, 0.704073}, 11},
    {ITG_DIST_TELNET, {0}, 12},
    {ITG_DIST_QUAKE3, {0}, 13},
    {ITG_DIST_CS_ACTIVE, {0}, 14},
    {ITG_DIST_CS_IDLE, {0}, 15},
};

static void print_vectors(FILE *out) {
  size_t i, j;
  fprintf(out,
          "# Reference draws of libitg's random laws (include/itg/dist.h): "
          "the check\n"
          "# that seeding and sampling give the same sequences on every "
          "platform.\n"
          "# tests/test_dist.c compares each build's draws with these, to a "
          "relative 1e-12.\n"
          "# Format: '#' starts a comment line; each law begins with a line\n"
          "#   law <name> params [<p0> <p1> ...] seed <seed>\n"
          "# followed by %d lines of itg_dist_next draws, printed with "
          "%%.17g.\n"
          "# Regenerate only when a change of the sequences is intended:\n"
          "#   make tests && build/tests/test_dist --print-vectors > "
          "tests/vectors/dist_draws.txt\n"
          "# Generated with GSL %s.\n",
          NVECTOR, GSL_VERSION);
  for (i = 0; i < sizeof vector_cases / sizeof vector_cases[0]; i++) {
    itg_dist_kind kind = vector_cases[i].kind;
    int np = itg_dist_kind_nparams(kind);
    itg_dist *d = make(kind, vector_cases[i].p, vector_cases[i].seed);
    fprintf(out, "law %s params", itg_dist_kind_name(kind));
    for (j = 0; j < (size_t)np; j++)
      fprintf(out, " %.17g", vector_cases[i].p[j]);
    fprintf(out, " seed %llu\n", (unsigned long long)vector_cases[i].seed);
    for (j = 0; j < NVECTOR; j++)
      fprintf(out, "%.17g\n", itg_dist_next(d));
    itg_dist_free(d);
  }
}

/* Cuts the line end (LF or CRLF, as a checkout may have it). */
static void chomp(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
    s[--n] = '\0';
}

/* Parses "law <name> params <p...> seed <n>" and creates its dist. */
static itg_dist *dist_of_header(char *line, int *kind_seen) {
  double p[ITG_DIST_MAX_PARAMS];
  uint64_t seed;
  char *tok = strtok(line, " ");
  int k, np, j;
  assert_non_null(tok);
  assert_string_equal(tok, "law");
  tok = strtok(NULL, " ");
  assert_non_null(tok);
  for (k = 0; k < NKINDS; k++)
    if (k != ITG_DIST_EMPIRICAL &&
        strcmp(tok, itg_dist_kind_name((itg_dist_kind)k)) == 0)
      break;
  if (k == NKINDS)
    fail_msg("unknown law '%s' in the reference file", tok);
  np = itg_dist_kind_nparams((itg_dist_kind)k);
  tok = strtok(NULL, " ");
  assert_non_null(tok);
  assert_string_equal(tok, "params");
  for (j = 0; j < np; j++) {
    tok = strtok(NULL, " ");
    assert_non_null(tok);
    assert_int_equal(itg_parse_double(tok, &p[j]), 0);
  }
  tok = strtok(NULL, " ");
  assert_non_null(tok);
  assert_string_equal(tok, "seed");
  tok = strtok(NULL, " ");
  assert_non_null(tok);
  assert_int_equal(itg_parse_u64(tok, 0, UINT64_MAX, &seed), 0);
  assert_null(strtok(NULL, " "));
  kind_seen[k] = 1;
  return make((itg_dist_kind)k, p, seed);
}

static void test_reference_vectors(void **state) {
  const char *dir = getenv("ITG_VECTORS");
  char path[4200], line[256];
  int kind_seen[NKINDS] = {0};
  itg_dist *d = NULL;
  int k, left = 0, blocks = 0;
  size_t lineno = 0;
  FILE *f;
  (void)state;
  snprintf(path, sizeof path, "%s/dist_draws.txt",
           dir != NULL ? dir : "tests/vectors");
  f = fopen(path, "r");
  if (f == NULL)
    fail_msg("cannot open %s (run from the source tree or set ITG_VECTORS)",
             path);
  while (fgets(line, sizeof line, f) != NULL) {
    lineno++;
    assert_non_null(strchr(line, '\n'));
    chomp(line);
    if (line[0] == '#')
      continue;
    if (left == 0) {
      itg_dist_free(d);
      d = dist_of_header(line, kind_seen);
      left = NVECTOR;
      blocks++;
    } else {
      double want, got = itg_dist_next(d);
      assert_int_equal(itg_parse_double(line, &want), 0);
      if (!(fabs(got - want) <= 1e-12 * fmax(fabs(got), fabs(want))))
        fail_msg("%s line %zu: expected %.17g, this build draws %.17g", path,
                 lineno, want, got);
      left--;
    }
  }
  fclose(f);
  itg_dist_free(d);
  assert_int_equal(left, 0);
  assert_int_equal(blocks, sizeof vector_cases / sizeof vector_cases[0]);
  for (k = 0; k < NKINDS; k++)
    if (k != ITG_DIST_EMPIRICAL && !kind_seen[k])
      fail_msg("no reference draws for %s",
               itg_dist_kind_name((itg_dist_kind)k));
}

/* ---- main ---------------------------------------------------------------- */

/* Keeps the directory part of argv[0] for the scratch files. */
static void set_scratch_dir(const char *argv0) {
  const char *slash = strrchr(argv0, '/');
  const char *bslash = strrchr(argv0, '\\');
  size_t len;
  if (bslash != NULL && (slash == NULL || bslash > slash))
    slash = bslash;
  len = slash != NULL ? (size_t)(slash - argv0) + 1 : 0;
  if (len >= sizeof scratch_dir)
    len = 0;
  memcpy(scratch_dir, argv0, len);
  scratch_dir[len] = '\0';
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kolmogorov_distribution),
      cmocka_unit_test(test_ks_fits_every_law),
      cmocka_unit_test(test_chisq_fits_poisson),
      cmocka_unit_test(test_fit_tests_reject_wrong_laws),
      cmocka_unit_test(test_mean_matches_sample_mean),
      cmocka_unit_test(test_mean_closed_forms),
      cmocka_unit_test(test_constant_is_constant),
      cmocka_unit_test(test_seeds),
      cmocka_unit_test(test_seed_zero_is_not_gsl_default),
      cmocka_unit_test(test_bad_parameters),
      cmocka_unit_test(test_domain_edges),
      cmocka_unit_test(test_kind_names),
      cmocka_unit_test(test_ditg_models),
      cmocka_unit_test(test_below),
      cmocka_unit_test(test_next_in_truncates),
      cmocka_unit_test(test_next_in_clamps),
      cmocka_unit_test(test_next_in_bad_bounds),
      cmocka_unit_test(test_empirical_replays_and_wraps),
      cmocka_unit_test(test_empirical_next_in_skips),
      cmocka_unit_test(test_empirical_bad_input),
      cmocka_unit_test(test_read_file_good),
      cmocka_unit_test(test_read_file_bad_lines),
      cmocka_unit_test(test_read_file_long_lines),
      cmocka_unit_test(test_read_file_bounds),
      cmocka_unit_test(test_read_file_errors),
      cmocka_unit_test(test_reference_vectors),
  };
  if (argc == 2 && strcmp(argv[1], "--print-vectors") == 0) {
    print_vectors(stdout);
    return fflush(stdout) == 0 ? 0 : 1;
  }
  set_scratch_dir(argv[0]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
