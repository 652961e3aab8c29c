package org.libitg;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The sender: runs flows towards receivers (include/itg/sender.h). For
 * each flow it sets up the data port with the receiver over signaling,
 * then paces the packets on a C thread of its own: pacing never runs in
 * Java.
 *
 * <pre>{@code
 * try (Sender s = new Sender()) {
 *   s.add(Flow.parse("-a 127.0.0.1 -T UDP -C 1000 -c 64 -t 1000"));
 *   List<FlowResult> results = s.run();
 * }
 * }</pre>
 *
 * <p>Owns a C object: close it (try-with-resources); closing stops a run
 * still going. Configure, start and wait from one thread; {@link #stop()}
 * and the results may be called from any thread.
 */
public final class Sender implements AutoCloseable {
  /** The sender's settings; what is not set keeps libitg's default. */
  public static final class Config {
    private WaitMode waitMode;
    private StartMode startMode;
    private Path logPath;
    private Integer logBatch;
    private String logServer;
    private Integer logServerPort;
    private Duration connectTimeout;
    private Integer cpu;

    /** How to wait for each departure (default HYBRID). */
    public Config waitMode(WaitMode mode) {
      this.waitMode = mode;
      return this;
    }

    /** When flows of one start delay start (default SPREAD). */
    public Config startMode(StartMode mode) {
      this.startMode = mode;
      return this;
    }

    /** Writes the sender's log (its TX records) to path. */
    public Config logPath(Path path) {
      this.logPath = path;
      return this;
    }

    /** Records per write to the log (D, default 64). */
    public Config logBatch(int records) {
      this.logBatch = records;
      return this;
    }

    /**
     * Ships the sender's log to the log server at host:port (a {@link
     * LogServer}, itg-log) instead; logPath then names the file asked of it.
     */
    public Config logServer(String host, int port) {
      this.logServer = host;
      this.logServerPort = port;
      return this;
    }

    /** The longest a flow's signaling set-up may take (default 5 s). */
    public Config connectTimeout(Duration timeout) {
      this.connectTimeout = timeout;
      return this;
    }

    /** Pins the sending thread to a CPU. */
    public Config cpu(int cpu) {
      this.cpu = cpu;
      return this;
    }

    itg_sender_cfg toC() throws ItgException {
      itg_sender_cfg c = new itg_sender_cfg();
      boolean done = false;
      try {
        ItgC.itg_sender_cfg_init(c);
        if (waitMode != null) {
          c.setWait(waitMode.code);
        }
        if (startMode != null) {
          c.setStart(startMode.code);
        }
        if (logPath != null) {
          c.setLog_path(Text.fit(logPath.toString(), ItgCConstants.ITG_PATH_MAX, "sender log path"));
        }
        if (logBatch != null) {
          c.setLog_batch(logBatch);
        }
        if (logServer != null) {
          c.setLog_server(Text.fit(logServer, ItgCConstants.ITG_HOST_MAX, "log server"));
          if (logServerPort < 0 || logServerPort > 0xFFFF) {
            throw new ItgException(itg_errno.ITG_EINVAL, "log server port is 0 to 65535: " + logServerPort);
          }
          c.setLog_server_port(logServerPort);
        }
        if (connectTimeout != null) {
          c.setConnect_timeout_ns(Timeouts.nanos(connectTimeout));
        }
        if (cpu != null) {
          c.setCpu(cpu);
        }
        done = true;
        return c;
      } finally {
        if (!done) {
          c.close();
        }
      }
    }
  }

  private final SharedHandle<SWIGTYPE_p_itg_sender> handle;

  /**
   * Creates a sender with libitg's defaults.
   *
   * @throws ItgException ENOMEM
   */
  public Sender() throws ItgException {
    this(new Config());
  }

  /**
   * Creates a sender.
   *
   * @throws ItgException EINVAL (a setting out of range) or ENOMEM
   */
  public Sender(Config config) throws ItgException {
    SWIGTYPE_p_itg_sender[] out = new SWIGTYPE_p_itg_sender[1];
    try (itg_sender_cfg c = config.toC()) {
      ItgException.check(ItgC.itg_sender_new(c, out));
    }
    handle = new SharedHandle<>(out[0], "sender");
  }

  /**
   * Sends flows and returns their results: a sender made, run and closed.
   *
   * @throws ItgException as {@link #run()}
   */
  public static List<FlowResult> send(Flow... flows) throws ItgException {
    try (Sender s = new Sender()) {
      for (Flow f : flows) {
        s.add(f);
      }
      return s.run();
    }
  }

  /**
   * Adds a flow before the sender starts.
   *
   * @throws ItgException with the library's message: EINVAL (the flow does
   *     not validate), EEXIST (another flow of this sender has its id),
   *     ESTATE (already started), ENOMEM
   */
  public Sender add(Flow flow) throws ItgException {
    byte[] err = new byte[Flow.MESSAGE_LEN];
    int rc = handle.use(s -> {
      try (itg_flow_cfg c = flow.toC()) {
        return ItgC.itg_sender_add_flow(s, c, err);
      }
    });
    ItgException.check(rc, Text.string(err));
    return this;
  }

  /**
   * Sets up every flow with its receiver and starts sending; returns once
   * the packets are on their way. A flow its receiver refuses ends with an
   * error in its result while the others go on.
   *
   * @throws ItgException when no flow could be set up (the first flow's
   *     error and message), ESTATE, ETHREAD
   */
  public void start() throws ItgException {
    handle.use(s -> check(s, ItgC.itg_sender_start(s)));
  }

  /**
   * Waits for every flow to end, at most timeout (null: no limit), and
   * returns whether they all have.
   *
   * @throws ItgException ESTATE if the sender never started
   */
  public boolean await(Duration timeout) throws ItgException {
    return handle.use(s -> ItgException.checkWait(ItgC.itg_sender_wait(s, Timeouts.nanos(timeout))));
  }

  /** Asks every flow to end now (the receivers are told, logs flushed). Safe from any thread. */
  public void stop() throws ItgException {
    handle.use(ItgC::itg_sender_stop);
  }

  /**
   * Starts, waits for every flow to end, and returns their results.
   *
   * @throws ItgException the first failed flow's error, with its message
   *     (the results of every flow stay readable through {@link #results()})
   */
  public List<FlowResult> run() throws ItgException {
    return handle.use(s -> {
      check(s, ItgC.itg_sender_run(s));
      return results(s);
    });
  }

  /** Returns the number of flows added. */
  public int flowCount() throws ItgException {
    return handle.use(s -> (int) ItgC.itg_sender_flow_count(s));
  }

  /**
   * Returns each flow's result, in the order the flows were added: final
   * once the sender has ended, a snapshot while it runs.
   */
  public List<FlowResult> results() throws ItgException {
    return handle.use(Sender::results);
  }

  /** Stops a run still going, waits for it and frees the sender; closing again does nothing. */
  @Override
  public void close() throws ItgException {
    handle.free(ItgC::itg_sender_free);
  }

  private static List<FlowResult> results(SWIGTYPE_p_itg_sender s) throws ItgException {
    long n = ItgC.itg_sender_flow_count(s);
    List<FlowResult> all = new ArrayList<>((int) n);
    try (itg_flow_result c = new itg_flow_result()) {
      for (long i = 0; i < n; i++) {
        ItgException.check(ItgC.itg_sender_flow_result(s, i, c));
        all.add(FlowResult.of(c));
      }
    }
    return all;
  }

  /** Returns status, or throws it with the message of the first flow that failed with it. */
  private static int check(SWIGTYPE_p_itg_sender s, int status) throws ItgException {
    if (status >= 0) {
      return status;
    }
    for (FlowResult r : results(s)) {
      if (r.status() == status && !r.error().isEmpty()) {
        throw new ItgException(status, "flow " + r.flowId() + ": " + r.error());
      }
    }
    throw new ItgException(status, null);
  }
}
