package org.libitg;

import java.util.Arrays;

/**
 * A random law drawing inter-departure times or sizes
 * (include/itg/dist.h), with its own MT19937 generator seeded explicitly:
 * the same law, parameters and seed give the same draws on every platform
 * and in every binding.
 *
 * <p>Owns a C object: close it (try-with-resources). Not thread-safe: use
 * a dist from one thread at a time.
 */
public final class Dist implements AutoCloseable {
  /** The laws, with their parameters in the order they are passed. */
  public enum Kind {
    /** value (>= 0) */
    CONSTANT(itg_dist_kind.ITG_DIST_CONSTANT),
    /** min, max */
    UNIFORM(itg_dist_kind.ITG_DIST_UNIFORM),
    /** mean */
    EXPONENTIAL(itg_dist_kind.ITG_DIST_EXPONENTIAL),
    /** mean; draws whole numbers */
    POISSON(itg_dist_kind.ITG_DIST_POISSON),
    /** mean, std */
    NORMAL(itg_dist_kind.ITG_DIST_NORMAL),
    /** shape, scale */
    PARETO(itg_dist_kind.ITG_DIST_PARETO),
    /** location, scale */
    CAUCHY(itg_dist_kind.ITG_DIST_CAUCHY),
    /** shape, scale */
    GAMMA(itg_dist_kind.ITG_DIST_GAMMA),
    /** shape, scale (the textbook order) */
    WEIBULL(itg_dist_kind.ITG_DIST_WEIBULL),
    /** mu, sigma of the logarithm */
    LOGNORMAL(itg_dist_kind.ITG_DIST_LOGNORMAL),
    /** a trace of values replayed in order: see {@link Dist#empirical} */
    EMPIRICAL(itg_dist_kind.ITG_DIST_EMPIRICAL),
    /** location, scale, degrees of freedom (Student's t) */
    STUDENT(itg_dist_kind.ITG_DIST_STUDENT),
    /** none: D-ITG's Telnet packet sizes (bytes) */
    TELNET(itg_dist_kind.ITG_DIST_TELNET),
    /** none: D-ITG's Quake 3 IDTs (ms) */
    QUAKE3(itg_dist_kind.ITG_DIST_QUAKE3),
    /** none: D-ITG's Counter-Strike sizes, active player (bytes) */
    CS_ACTIVE(itg_dist_kind.ITG_DIST_CS_ACTIVE),
    /** none: D-ITG's Counter-Strike sizes, idle player (bytes) */
    CS_IDLE(itg_dist_kind.ITG_DIST_CS_IDLE);

    final int code;

    Kind(int code) {
      this.code = code;
    }

    /** Returns the law's name in libitg ("exponential", ...). */
    public String cName() {
      return ItgC.itg_dist_kind_name(code);
    }

    /** Returns the number of parameters the law takes. */
    public int parameterCount() {
      return ItgC.itg_dist_kind_nparams(code);
    }

    /**
     * Returns the law libitg names name.
     *
     * @throws IllegalArgumentException for a name it does not know
     */
    public static Kind ofName(String name) {
      for (Kind k : values()) {
        if (k.cName().equals(name)) {
          return k;
        }
      }
      throw new IllegalArgumentException("unknown law '" + name + "'");
    }

    static Kind of(int code) {
      for (Kind k : values()) {
        if (k.code == code) {
          return k;
        }
      }
      throw new IllegalArgumentException("unknown law " + code);
    }
  }

  private SWIGTYPE_p_itg_dist handle;

  private Dist(SWIGTYPE_p_itg_dist handle) {
    this.handle = handle;
  }

  /**
   * Creates a dist of a parametric law (any kind but EMPIRICAL).
   *
   * @param seed the 64-bit seed (reduced to MT19937's 32 bits as dist.h
   *     says)
   * @throws ItgException EINVAL for a wrong parameter count or a parameter
   *     outside its domain; ENOMEM
   */
  public static Dist of(Kind kind, long seed, double... params) throws ItgException {
    SWIGTYPE_p_itg_dist[] out = new SWIGTYPE_p_itg_dist[1];
    int rc = ItgC.itg_dist_new(kind.code, params, seed, out);
    if (rc < 0) {
      throw new ItgException(rc, kind.cName() + " " + Arrays.toString(params) + ": "
          + ItgC.itg_strerror(rc));
    }
    return new Dist(out[0]);
  }

  /**
   * Creates an EMPIRICAL dist replaying values in order, from the start
   * again when they run out.
   *
   * @throws ItgException EINVAL if there is no value or one is not finite
   */
  public static Dist empirical(double... values) throws ItgException {
    SWIGTYPE_p_itg_dist[] out = new SWIGTYPE_p_itg_dist[1];
    ItgException.check(ItgC.itg_dist_new_empirical(values, out));
    return new Dist(out[0]);
  }

  /** Returns the next draw, always finite (an overflow saturates). */
  public double next() {
    return ItgC.itg_dist_next(open());
  }

  /**
   * Returns the next draw inside [lo, hi]: the law is truncated there (a
   * draw outside is drawn again, up to 64 times, then clamped). NaN if
   * lo > hi or a bound is NaN.
   */
  public double nextIn(double lo, double hi) {
    return ItgC.itg_dist_next_in(open(), lo, hi);
  }

  /** Returns the law's mean, NaN where it has none. */
  public double mean() {
    return ItgC.itg_dist_mean(open());
  }

  /** Returns the law. */
  public Kind kind() {
    return Kind.of(ItgC.itg_dist_get_kind(open()));
  }

  /** Frees the C object; closing again does nothing. */
  @Override
  public void close() {
    if (handle != null) {
      ItgC.itg_dist_free(handle);
      handle = null;
    }
  }

  private SWIGTYPE_p_itg_dist open() {
    if (handle == null) {
      throw new IllegalStateException("dist is closed");
    }
    return handle;
  }
}
