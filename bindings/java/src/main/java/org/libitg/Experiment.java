package org.libitg;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An experiment (include/itg/experiment.h): the flows of a distributed
 * run, one itg-send script line each, with '@' words placing their sender
 * and receiver on the ranks of a job, e.g.
 *
 * <pre>{@code
 * try (Experiment exp = Experiment.parse("@1 -a @2 -C 1000 -t 5000\n-a @1 -E 200 -t 5000\n")) {
 *   Experiment.Ranks ranks = exp.place("alpha", "beta", "gamma");
 *   // ranks.senders() == {1, 2}, ranks.receivers() == {2, 1}
 * }
 * }</pre>
 *
 * <p>Errors name their line: an {@link ItgException} whose message starts
 * "line N: ". Owns a C object: close it (try-with-resources).
 */
public final class Experiment implements AutoCloseable {
  /** Where one end of a flow runs, as its line gives it. */
  public enum Where {
    /** sender only: no '@' word, placed by {@link Experiment#place} */
    ANY(itg_experiment_where.ITG_EXPERIMENT_ANY),
    /** {@code @N}: rank N */
    RANK(itg_experiment_where.ITG_EXPERIMENT_RANK),
    /** {@code @NAME}: the first rank whose host is NAME */
    HOST(itg_experiment_where.ITG_EXPERIMENT_HOST),
    /** receiver only: an address outside the job */
    ADDRESS(itg_experiment_where.ITG_EXPERIMENT_ADDRESS);

    final int code;

    Where(int code) {
      this.code = code;
    }

    static Where of(int code) {
      for (Where w : values()) {
        if (w.code == code) {
          return w;
        }
      }
      throw new IllegalArgumentException("unknown placement " + code);
    }
  }

  /**
   * One flow's line and placements, as the line gives them.
   *
   * @param line the line it was written on, from 1
   * @param sender ANY, RANK or HOST
   * @param senderRank RANK: the rank; else -1
   * @param senderHost HOST: the host name; else ""
   * @param receiver RANK, HOST or ADDRESS
   * @param receiverRank RANK: the rank; else -1
   * @param receiverHost HOST: the host name; ADDRESS: the address; else ""
   * @param rate the weight placement gives the flow: its mean packet rate,
   *     in pkt/s
   */
  public record Placement(int line, Where sender, int senderRank, String senderHost,
      Where receiver, int receiverRank, String receiverHost, double rate) {
    static Placement of(itg_experiment_flow f) {
      return new Placement(Math.toIntExact(f.getLine()), Where.of(f.getSender()),
          f.getSender_rank(), f.getSender_host(), Where.of(f.getReceiver()),
          f.getReceiver_rank(), f.getReceiver_host(), f.getRate());
    }
  }

  /**
   * Where the flows run on a job: flow i is sent by rank {@code
   * senders()[i]} to rank {@code receivers()[i]} (-1: the receiver is an
   * address outside the job).
   */
  public static final class Ranks {
    private final int[] senders;
    private final int[] receivers;

    private Ranks(int[] senders, int[] receivers) {
      this.senders = senders;
      this.receivers = receivers;
    }

    /** Returns each flow's sender rank, in line order. */
    public int[] senders() {
      return senders.clone();
    }

    /** Returns each flow's receiver rank, in line order (-1 outside the job). */
    public int[] receivers() {
      return receivers.clone();
    }
  }

  /** Room for a message: a line number, a word of the line or a path. */
  private static final int MESSAGE_LEN = 1024;

  private final List<Flow> flows = new ArrayList<>();
  private final List<Placement> placements = new ArrayList<>();
  private SWIGTYPE_p_itg_experiment handle;

  private Experiment(SWIGTYPE_p_itg_experiment handle) throws ItgException {
    this.handle = handle;
    boolean done = false;
    try (itg_flow_cfg cfg = new itg_flow_cfg(); itg_experiment_flow f = new itg_experiment_flow()) {
      long n = ItgC.itg_experiment_count(handle);
      for (long i = 0; i < n; i++) {
        ItgException.check(ItgC.itg_experiment_flow_cfg(handle, i, cfg));
        flows.add(Flow.of(cfg));
        ItgException.check(ItgC.itg_experiment_flow_at(handle, i, f));
        placements.add(Placement.of(f));
      }
      done = true;
    } finally {
      if (!done) {
        close();
      }
    }
  }

  /**
   * Parses an experiment from its text.
   *
   * @throws ItgException EINVAL (a bad line: the message starts "line N: ";
   *     no flow at all; a limit passed; a NUL character), ENOENT (a trace
   *     file that does not exist), EIO, ENOMEM
   */
  public static Experiment parse(String text) throws ItgException {
    SWIGTYPE_p_itg_experiment[] out = new SWIGTYPE_p_itg_experiment[1];
    byte[] err = new byte[MESSAGE_LEN];
    int rc = ItgC.itg_experiment_parse(text.getBytes(StandardCharsets.UTF_8), out, err);
    ItgException.check(rc, Text.string(err));
    return new Experiment(out[0]);
  }

  /**
   * Reads and parses the experiment file at path.
   *
   * @throws ItgException as {@link #parse}, and ENOENT (no such file: the
   *     message names it), EIO, EINVAL for a file above the size limit
   */
  public static Experiment read(Path path) throws ItgException {
    SWIGTYPE_p_itg_experiment[] out = new SWIGTYPE_p_itg_experiment[1];
    byte[] err = new byte[MESSAGE_LEN];
    ItgException.check(ItgC.itg_experiment_read(path.toString(), out, err), Text.string(err));
    return new Experiment(out[0]);
  }

  /** Returns the number of flows. */
  public int count() {
    open();
    return flows.size();
  }

  /**
   * Returns the settings of flow i (0 to count() - 1, in line order) as its
   * line gives them. A receiver inside the job keeps its '@' word as the
   * destination host: {@link Flow#to} gives the address of that rank.
   */
  public Flow flow(int i) {
    open();
    return flows.get(i);
  }

  /** Returns the line and placements of flow i (0 to count() - 1). */
  public Placement placement(int i) {
    open();
    return placements.get(i);
  }

  /**
   * Places the flows on a job of nranks ranks without host names (a line
   * naming a host is then refused).
   *
   * @throws ItgException EINVAL naming the line of a rank the job does not
   *     have, or for nranks outside 1 to 4096; ENOMEM
   */
  public Ranks place(int nranks) throws ItgException {
    return place(nranks, new String[0]);
  }

  /**
   * Places the flows on a job whose rank r runs on hosts[r].
   *
   * @throws ItgException EINVAL naming the line of a rank or host the job
   *     does not have, or for a number of hosts outside 1 to 4096; ENOMEM
   * @throws IllegalArgumentException if a host name holds a NUL character
   */
  public Ranks place(String... hosts) throws ItgException {
    return place(hosts.length, hosts);
  }

  /** Frees the C object; closing again does nothing. */
  @Override
  public void close() {
    if (handle != null) {
      ItgC.itg_experiment_free(handle);
      handle = null;
    }
  }

  private Ranks place(int nranks, String[] hosts) throws ItgException {
    int[] senders = new int[flows.size()];
    int[] receivers = new int[flows.size()];
    byte[] err = new byte[MESSAGE_LEN];
    int rc = ItgC.itgswig_experiment_place(open(), nranks, Text.cStrings(List.of(hosts)), senders,
        receivers, err);
    ItgException.check(rc, Text.string(err));
    return new Ranks(senders, receivers);
  }

  private SWIGTYPE_p_itg_experiment open() {
    if (handle == null) {
      throw new IllegalStateException("experiment is closed");
    }
    return handle;
  }
}
