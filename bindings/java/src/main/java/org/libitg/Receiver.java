package org.libitg;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The receiver: listens for senders on a signaling port, opens the data
 * sockets they ask for and logs every packet with its arrival time
 * (include/itg/receiver.h), all on a C thread of its own. It starts when
 * it is made and stops when it is closed.
 *
 * <pre>{@code
 * try (Receiver rx = new Receiver(new Receiver.Config().sigPort(0).logPath(log))) {
 *   Sender.send(Flow.parse("-T UDP -C 1000 -c 64 -t 1000").sigPort(rx.port()));
 * }
 * Report report = Itg.decode(log);
 * }</pre>
 *
 * <p>Listeners ({@link Config#onRecords}, {@link Config#onFlow}) run on the
 * receiver's thread: they must be quick and must not call back into the
 * receiver (doing so throws IllegalStateException). What they throw is
 * thrown again by {@link #stop()} or {@link #close()}.
 *
 * <p>Owns a C object: close it (try-with-resources). {@link #stop()},
 * {@link #stats()} and {@link #port()} may be called from any thread.
 */
public final class Receiver implements AutoCloseable {
  /** The receiver's settings; what is not set keeps libitg's default. */
  public static final class Config {
    private String bindHost;
    private Integer sigPort;
    private Path logPath;
    private Path logDir;
    private Integer logBatch;
    private Integer maxFlows;
    private Integer receiveBuffer;
    private Integer cpu;
    private Consumer<List<LogRecord>> onRecords;
    private Consumer<FlowEvent> onFlow;

    /** The address to listen on (default: any address, IPv4 and IPv6). */
    public Config bindHost(String host) {
      this.bindHost = host;
      return this;
    }

    /** The signaling port (default 9000; 0 picks a free port: read it with {@link Receiver#port()}). */
    public Config sigPort(int port) {
      this.sigPort = port;
      return this;
    }

    /** The log of every flow that names none of its own. */
    public Config logPath(Path path) {
      this.logPath = path;
      return this;
    }

    /** Where the logs flows name with -x go (default: the current directory). */
    public Config logDir(Path dir) {
      this.logDir = dir;
      return this;
    }

    /** Records per write to a log (D, default 64). */
    public Config logBatch(int records) {
      this.logBatch = records;
      return this;
    }

    /** Flows active at once (default 1024). */
    public Config maxFlows(int flows) {
      this.maxFlows = flows;
      return this;
    }

    /** The sockets' receive buffer in bytes (default 32 MiB). */
    public Config receiveBuffer(int bytes) {
      this.receiveBuffer = bytes;
      return this;
    }

    /** Pins the receiving thread to this CPU (default: not pinned). */
    public Config cpu(int cpu) {
      this.cpu = cpu;
      return this;
    }

    /** Called with each batch of records the receiver logs. */
    public Config onRecords(Consumer<List<LogRecord>> listener) {
      this.onRecords = listener;
      return this;
    }

    /** Called when a flow is set up, refused or ended. */
    public Config onFlow(Consumer<FlowEvent> listener) {
      this.onFlow = listener;
      return this;
    }

    itg_receiver_cfg toC() throws ItgException {
      itg_receiver_cfg c = new itg_receiver_cfg();
      boolean done = false;
      try {
        ItgC.itg_receiver_cfg_init(c);
        if (bindHost != null) {
          c.setBind_host(Text.fit(bindHost, ItgCConstants.ITG_HOST_MAX, "bind host"));
        }
        if (sigPort != null) {
          if (sigPort < 0 || sigPort > 0xFFFF) {
            throw new ItgException(itg_errno.ITG_EINVAL, "signaling port is 0 to 65535: " + sigPort);
          }
          c.setSig_port(sigPort);
        }
        if (logPath != null) {
          c.setLog_path(Text.fit(logPath.toString(), ItgCConstants.ITG_PATH_MAX, "receiver log path"));
        }
        if (logDir != null) {
          c.setLog_dir(Text.fit(logDir.toString(), ItgCConstants.ITG_PATH_MAX, "receiver log directory"));
        }
        if (logBatch != null) {
          c.setLog_batch(logBatch);
        }
        if (maxFlows != null) {
          c.setMax_flows(maxFlows);
        }
        if (receiveBuffer != null) {
          c.setRcvbuf(receiveBuffer);
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

  private final SharedHandle<SWIGTYPE_p_itg_receiver> handle;
  private final ListenerBridge bridge;
  private SWIGTYPE_p_itgj_listener listener;

  /** Starts a receiver with libitg's defaults (signaling on port 9000, no log). */
  public Receiver() throws ItgException {
    this(new Config());
  }

  /**
   * Creates and starts a receiver; returns once it listens.
   *
   * @throws ItgException EINVAL (a setting out of range), EADDRINUSE,
   *     EADDR, ESOCKET, an error opening the log, ETHREAD, ENOMEM
   */
  public Receiver(Config config) throws ItgException {
    SWIGTYPE_p_itg_receiver[] out = new SWIGTYPE_p_itg_receiver[1];
    boolean wantRecords = config.onRecords != null;
    boolean wantFlows = config.onFlow != null;
    bridge = wantRecords || wantFlows ? new ListenerBridge(config.onRecords, config.onFlow) : null;
    try (itg_receiver_cfg c = config.toC()) {
      if (bridge != null) {
        listener = ItgC.itgj_listener_new(c, bridge, wantRecords ? 1 : 0, wantFlows ? 1 : 0);
      }
      int rc = ItgC.itg_receiver_new(c, out);
      if (rc >= 0) {
        rc = ItgC.itg_receiver_start(out[0]);
      }
      if (rc < 0) {
        ItgC.itg_receiver_free(out[0]);
        ItgC.itgj_listener_free(listener);
        listener = null;
        String where = config.bindHost != null ? config.bindHost : "*";
        throw new ItgException(rc, "receiver on " + where + ":"
            + (config.sigPort != null ? config.sigPort : ItgCConstants.ITG_DEFAULT_SIG_PORT) + ": "
            + ItgC.itg_strerror(rc));
      }
    }
    handle = new SharedHandle<>(out[0], "receiver");
  }

  /** Returns the signaling port in use (the one picked when the configuration asked for 0). */
  public int port() throws ItgException {
    notInListener();
    return handle.use(ItgC::itg_receiver_port);
  }

  /** Returns the counters. */
  public ReceiverStats stats() throws ItgException {
    notInListener();
    return handle.use(r -> {
      try (itg_receiver_stats c = new itg_receiver_stats()) {
        ItgC.itg_receiver_get_stats(r, c);
        return ReceiverStats.of(c);
      }
    });
  }

  /**
   * Waits until every flow that started has ended and no sender is
   * connected, at most timeout (null: no limit); returns whether it came
   * to that.
   */
  public boolean awaitIdle(Duration timeout) throws ItgException {
    notInListener();
    return handle.use(
        r -> ItgException.checkWait(ItgC.itg_receiver_wait_idle(r, Timeouts.nanos(timeout))));
  }

  /**
   * Ends every flow, flushes every log and stops the receiver's thread.
   * Safe from any thread; stopping again does nothing.
   *
   * @throws ItgException the first log error
   * @throws RuntimeException what a listener threw (an Error likewise)
   */
  public void stop() throws ItgException {
    notInListener();
    finish(handle.use(ItgC::itg_receiver_stop));
  }

  /**
   * Stops the receiver (as {@link #stop()}) and frees it; closing again
   * does nothing.
   */
  @Override
  public void close() throws ItgException {
    notInListener();
    int[] rc = new int[1];
    handle.free(r -> {
      rc[0] = ItgC.itg_receiver_stop(r);
      ItgC.itg_receiver_free(r);
      ItgC.itgj_listener_free(listener);
      listener = null;
    });
    finish(rc[0]);
  }

  /**
   * Refuses a call from one of this receiver's listeners: the receiver's
   * thread would wait for itself.
   */
  private void notInListener() {
    if (bridge != null && bridge.inCallback()) {
      throw new IllegalStateException("a receiver listener cannot call its receiver");
    }
  }

  /**
   * Throws, once, what a listener threw (with a log error of stopping as a
   * suppressed exception); else the log error, if any.
   */
  private void finish(int stopStatus) throws ItgException {
    ItgException logError = stopStatus < 0
        ? new ItgException(stopStatus, "receiver log: " + ItgC.itg_strerror(stopStatus))
        : null;
    Throwable t = bridge == null ? null : bridge.takeFailure();
    if (t != null && logError != null) {
      t.addSuppressed(logError);
    }
    if (t instanceof RuntimeException e) {
      throw e;
    }
    if (t instanceof Error e) {
      throw e;
    }
    if (t != null) {
      throw new IllegalStateException("receiver listener failed", t);
    }
    if (logError != null) {
      throw logError;
    }
  }
}
