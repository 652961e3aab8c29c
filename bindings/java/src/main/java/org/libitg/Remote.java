package org.libitg;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A connection to an agent (itg-agent, itg-send --daemon) that runs flows
 * on command (include/itg/remote.h): both sides prove they hold a shared
 * token, which never crosses the network.
 *
 * <pre>{@code
 * try (Remote a = Remote.connect("10.0.0.2", 9003, token, Duration.ofSeconds(5))) {
 *   Remote.Clock c = a.clock(20);
 *   a.start(List.of("-a 10.0.0.3 -Sdp 9000 -C 100 -t 2000"),
 *       Itg.realtimeNanos() + c.offsetNs() + 500_000_000L);
 *   Remote.Status st = a.results(Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>Every call waits for the agent's answer, at most the timeout given to
 * {@link #connect}; calls are serialised (one at a time on a connection).
 * Owns a C object: close it (try-with-resources).
 */
public final class Remote implements AutoCloseable {
  /** The agents' default control port. */
  public static final int DEFAULT_PORT = ItgCConstants.ITG_REMOTE_DEFAULT_PORT;

  private static final int MESSAGE_LEN = 600;

  /**
   * The agent's wall clock against this host's.
   *
   * @param offsetNs the agent's clock less this host's
   * @param rttNs the round trip of the exchange it comes from: the offset
   *     is right within half of it
   */
  public record Clock(long offsetNs, long rttNs) {}

  /**
   * A flow the agent's receiver took and has ended.
   *
   * @param flowId the flow's id, as its sender numbered it
   * @param proto its transport
   * @param port its data port
   * @param peer the sender, "host:port"
   * @param packets packets received
   * @param bytes bytes received
   * @param sent the sender's count, when sentKnown
   * @param sentKnown whether the sender told it
   * @param logFile the receiver log it went to, as fetchLog takes it: the name its sender gave
   *     (-x), or NAME.1, NAME.2, ... when NAME existed at the agent ("" if it named none)
   */
  public record RxFlow(long flowId, Proto proto, int port, String peer, long packets, long bytes,
      long sent, boolean sentKnown, String logFile) {}

  /**
   * The agent's state and counters.
   *
   * @param state "idle", "held", "running" or "ended"
   * @param startStatus 0, or the error of the last START when no flow could be set up
   * @param startWallNs when the flows were released, on the agent's clock (0 before a START)
   * @param flows its sender flows (live counters while they run)
   * @param rxFlows the flows its receiver has ended
   * @param rxPackets packets its receiver took, all flows together
   * @param rxBytes and their bytes
   * @param rxMalformed datagrams its receiver dropped
   */
  public record Status(String state, int startStatus, long startWallNs, List<FlowResult> flows,
      List<RxFlow> rxFlows, long rxPackets, long rxBytes, long rxMalformed) {
    /** Returns whether every flow has ended (the results are final). */
    public boolean ended() {
      return state.equals("ended");
    }
  }

  private SWIGTYPE_p_itg_remote handle;

  private Remote(SWIGTYPE_p_itg_remote handle) {
    this.handle = handle;
  }

  /**
   * Connects to the agent at host:port and runs the handshake with token.
   *
   * @param timeout bounds the connection and every exchange on it
   * @throws ItgException EPERM (the token refused, or the agent's proof
   *     wrong), ECONNREFUSED, ETIMEDOUT, ECLOSED (an address the agent does
   *     not allow), EBUSY (another client controls it), EINVAL, ...
   */
  public static Remote connect(String host, int port, byte[] token, Duration timeout)
      throws ItgException {
    SWIGTYPE_p_itg_remote[] out = new SWIGTYPE_p_itg_remote[1];
    byte[] err = new byte[MESSAGE_LEN];
    int rc = ItgC.itg_remote_connect(host, port, token, Timeouts.nanos(timeout), out, err);
    ItgException.check(rc, Text.string(err));
    return new Remote(out[0]);
  }

  /** Like {@link #connect(String, int, byte[], Duration)} with a text token (UTF-8). */
  public static Remote connect(String host, int port, String token, Duration timeout)
      throws ItgException {
    return connect(host, port, token.getBytes(StandardCharsets.UTF_8), timeout);
  }

  private SWIGTYPE_p_itg_remote open() {
    if (handle == null) {
      throw new IllegalStateException("connection is closed");
    }
    return handle;
  }

  /** Returns the agent's software and version ("libitg 0.9.0"). */
  public synchronized String software() {
    return ItgC.itg_remote_agent_software(open());
  }

  /** Returns the agent's receiver signaling port (what a flow towards it gives as -Sdp). */
  public synchronized int receiverPort() {
    return ItgC.itg_remote_receiver_port(open());
  }

  /** Measures the agent's clock: rounds exchanges (1 to 1000), the fastest kept. */
  public synchronized Clock clock(int rounds) throws ItgException {
    try (itgswig_clock c = new itgswig_clock()) {
      ItgException.check(ItgC.itgswig_remote_clock(open(), rounds, c));
      return new Clock(c.getOffset_ns(), c.getRtt_ns());
    }
  }

  /**
   * Gives the agent flows (itg-send script lines) to release together at
   * atWallNs on its wall clock (0: at once); returns once they are set up.
   *
   * @throws ItgException EINVAL naming a line the agent cannot parse (no
   *     flow started), ESTATE (flows of an earlier start still run), ...
   */
  public synchronized void start(List<String> lines, long atWallNs) throws ItgException {
    byte[] err = new byte[MESSAGE_LEN];
    int rc = ItgC.itg_remote_start(open(), Text.cStrings(lines), atWallNs, err);
    ItgException.check(rc, Text.string(err));
  }

  /** Returns the agent's state and live counters. */
  public synchronized Status status() throws ItgException {
    try (itg_remote_status c = new itg_remote_status()) {
      ItgException.check(ItgC.itgswig_remote_status(open(), c));
      return status(c);
    }
  }

  /**
   * Waits at most wait (null: no limit) for the agent's flows to end and
   * returns its state ({@link Status#ended()} says whether they have).
   */
  public synchronized Status results(Duration wait) throws ItgException {
    try (itg_remote_status c = new itg_remote_status()) {
      long ns = wait == null ? 3600L * 1_000_000_000L : Timeouts.nanos(wait);
      int rc = ItgC.itg_remote_results(open(), ns, c);
      if (rc != itg_errno.ITG_ETIMEDOUT) {
        ItgException.check(rc);
      }
      return status(c);
    }
  }

  /** Asks the agent to end its flows now. */
  public synchronized void stop() throws ItgException {
    ItgException.check(ItgC.itg_remote_stop(open()));
  }

  /**
   * Fetches a log the agent wrote (named by its configuration or a flow's
   * -x) into the file dest.
   *
   * @throws ItgException ENOENT (no such log of the agent's), EIO (dest
   *     cannot be written), ...
   */
  public synchronized void fetchLog(String name, Path dest) throws ItgException {
    int rc = ItgC.itgswig_remote_fetch_log(open(), name, dest.toString());
    ItgException.check(rc, "log '" + name + "' into " + dest + ": " + ItgC.itg_strerror(rc));
  }

  private Status status(itg_remote_status c) throws ItgException {
    SWIGTYPE_p_itg_remote r = open();
    List<FlowResult> flows = new ArrayList<>();
    try (itg_flow_result f = new itg_flow_result()) {
      for (long i = 0; i < c.getFlows(); i++) {
        ItgException.check(ItgC.itg_remote_flow_result(r, i, f));
        flows.add(FlowResult.of(f));
      }
    }
    List<RxFlow> rx = new ArrayList<>();
    try (itg_remote_rx_flow f = new itg_remote_rx_flow()) {
      for (long i = 0; i < c.getRx_flows(); i++) {
        ItgException.check(ItgC.itgswig_remote_rx_flow(r, i, f));
        rx.add(new RxFlow(f.getFlow_id(), Proto.of(f.getProto()), f.getPort(), f.getPeer(),
            f.getPackets(), f.getBytes(), f.getSent(), f.getSent_known() != 0, f.getLog_file()));
      }
    }
    return new Status(ItgC.itg_remote_state_name(c.getState()), c.getStart_status(),
        c.getStart_wall_ns(), List.copyOf(flows), List.copyOf(rx), c.getRx_packets(),
        c.getRx_bytes(), c.getRx_malformed());
  }

  /** Says goodbye (the agent keeps its flows and results) and frees the connection. */
  @Override
  public synchronized void close() {
    if (handle != null) {
      ItgC.itg_remote_close(handle);
      handle = null;
    }
  }

  /**
   * An agent in this JVM: a receiver, and a sender for the flows a client
   * holding the token gives it. It starts when it is made and stops when
   * it is closed.
   *
   * <pre>{@code
   * try (Remote.Agent agent = new Remote.Agent(new Remote.Agent.Config(token).port(0))) {
   *   int port = agent.port();
   * }
   * }</pre>
   */
  public static final class Agent implements AutoCloseable {
    /** The agent's settings; what is not set keeps libitg's default. */
    public static final class Config {
      private final byte[] token;
      private String listenHost;
      private Integer port;
      private Integer receiverPort;
      private Path logDir;
      private String allow;

      /** Settings with the token clients must prove they hold (1 to 256 bytes). */
      public Config(byte[] token) {
        this.token = token.clone();
      }

      /** The control port's address (default 127.0.0.1; "" any). */
      public Config listenHost(String host) {
        this.listenHost = host;
        return this;
      }

      /** The control port (default 9003; 0 picks a free one: read it with {@link Agent#port()}). */
      public Config port(int port) {
        this.port = port;
        return this;
      }

      /** The receiver's signaling port (default 9000; 0 picks a free one). */
      public Config receiverPort(int port) {
        this.receiverPort = port;
        return this;
      }

      /** Where the logs go, and the only place a client may fetch one from. */
      public Config logDir(Path dir) {
        this.logDir = dir;
        return this;
      }

      /** The networks clients may come from, "ADDR/PREFIX,..." (default: loopback only). */
      public Config allow(String networks) {
        this.allow = networks;
        return this;
      }
    }

    private SWIGTYPE_p_itg_agent handle;

    /**
     * Makes and starts an agent.
     *
     * @throws ItgException EINVAL (a setting out of range), EADDRINUSE, ...
     */
    public Agent(Config config) throws ItgException {
      SWIGTYPE_p_itg_agent[] out = new SWIGTYPE_p_itg_agent[1];
      byte[] err = new byte[MESSAGE_LEN];
      try (itg_agent_cfg c = new itg_agent_cfg()) {
        ItgC.itg_agent_cfg_init(c);
        ItgException.check(ItgC.itgswig_agent_cfg_token(c, config.token), "token: 1 to "
            + ItgCConstants.ITG_REMOTE_TOKEN_MAX + " bytes, not " + config.token.length);
        if (config.listenHost != null) {
          c.setListen_host(Text.fit(config.listenHost, ItgCConstants.ITG_HOST_MAX, "listen host"));
        }
        if (config.port != null) {
          c.setListen_port(config.port);
        }
        if (config.receiverPort != null) {
          c.setRecv_port(config.receiverPort);
        }
        if (config.logDir != null) {
          c.setLog_dir(Text.fit(config.logDir.toString(), ItgCConstants.ITG_PATH_MAX, "log directory"));
        }
        if (config.allow != null) {
          int rc = ItgC.itgswig_agent_cfg_allow(c, config.allow, err);
          ItgException.check(rc, "allow: '" + Text.string(err) + "' is not a network");
        }
        ItgException.check(ItgC.itg_agent_new(c, out, err), Text.string(err));
        clearToken(c);
      }
      int rc = ItgC.itg_agent_start(out[0], err);
      if (rc < 0) {
        ItgC.itg_agent_free(out[0]);
        throw new ItgException(rc, Text.string(err));
      }
      handle = out[0];
    }

    /** Overwrites the token the C settings hold, once the agent has its copy. */
    private static void clearToken(itg_agent_cfg c) {
      ItgC.itgswig_agent_cfg_token(c, new byte[(int) ItgCConstants.ITG_REMOTE_TOKEN_MAX]);
    }

    private SWIGTYPE_p_itg_agent open() {
      if (handle == null) {
        throw new IllegalStateException("agent is closed");
      }
      return handle;
    }

    /** Returns the control port. */
    public synchronized int port() {
      return ItgC.itg_agent_port(open());
    }

    /** Returns the receiver's signaling port. */
    public synchronized int receiverPort() {
      return ItgC.itg_agent_receiver_port(open());
    }

    /** Stops serving, ends the flows, stops the receiver and frees the agent. */
    @Override
    public synchronized void close() {
      if (handle != null) {
        ItgC.itg_agent_free(handle);
        handle = null;
      }
    }
  }
}
