package org.libitg;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The log server, itg-log's engine: collects the logs senders and
 * receivers ship to it ({@link Sender.Config#logServer}) and writes each
 * client's session to a file of its own in a directory, in the ordinary
 * log format, on a C thread of its own. It starts when it is made and
 * stops when it is closed; closing flushes every session (one whose
 * client had not left is renamed NAME.incomplete).
 *
 * <pre>{@code
 * try (LogServer ls = new LogServer(new LogServer.Config().dir(dir).port(0))) {
 *   new Sender(new Sender.Config().logPath(Path.of("sent.itglog"))
 *       .logServer("127.0.0.1", ls.port())) ...
 * }
 * }</pre>
 *
 * <p>Clients must come from loopback or an allowed network and, with a
 * token set, present it. {@link #stats()}, {@link #port()} and {@link
 * #close()} may be called from any thread.
 */
public final class LogServer implements AutoCloseable {
  /** The server's settings; what is not set keeps libitg's default. */
  public static final class Config {
    private String bindHost;
    private Integer port;
    private Path dir;
    private String token;
    private final List<String> allow = new ArrayList<>();
    private Integer maxClients;

    /** The address to listen on (default: any address, IPv4 and IPv6). */
    public Config bindHost(String host) {
      this.bindHost = host;
      return this;
    }

    /** The TCP port, and the UDP one (default 9001; 0 picks free ports). */
    public Config port(int port) {
      this.port = port;
      return this;
    }

    /** Where the sessions' files go (default: the current directory). */
    public Config dir(Path dir) {
      this.dir = dir;
      return this;
    }

    /** The token clients must present (default: none). */
    public Config token(String token) {
      this.token = token;
      return this;
    }

    /** Allows clients from a network, "ADDR/PREFIX", besides loopback. */
    public Config allow(String network) {
      this.allow.add(network);
      return this;
    }

    /** Clients connected at once (default 1024). */
    public Config maxClients(int clients) {
      this.maxClients = clients;
      return this;
    }

    itg_logserver_cfg toC() throws ItgException {
      itg_logserver_cfg c = new itg_logserver_cfg();
      boolean done = false;
      try {
        ItgC.itg_logserver_cfg_init(c);
        if (bindHost != null) {
          c.setBind_host(Text.fit(bindHost, ItgCConstants.ITG_HOST_MAX, "bind host"));
        }
        if (port != null) {
          if (port < 0 || port > 0xFFFF) {
            throw new ItgException(itg_errno.ITG_EINVAL, "log server port is 0 to 65535: " + port);
          }
          c.setPort(port);
        }
        if (dir != null) {
          c.setDir(Text.fit(dir.toString(), ItgCConstants.ITG_PATH_MAX, "log server directory"));
        }
        if (token != null) {
          c.setToken(Text.fit(token, ItgCConstants.ITG_LOGSERVER_TOKEN_MAX + 1, "token"));
        }
        for (String net : allow) {
          ItgException.check(ItgC.itg_logserver_cfg_allow(c, net),
              "allowed network: '" + net + "' is not ADDR/PREFIX");
        }
        if (maxClients != null) {
          c.setMax_clients(maxClients);
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

  private final SharedHandle<SWIGTYPE_p_itg_logserver> handle;

  /**
   * Creates and starts a log server; returns once it listens.
   *
   * @throws ItgException EINVAL (a setting out of range), EADDRINUSE,
   *     EADDR, ESOCKET, ENOENT (no such directory), ETHREAD, ENOMEM
   */
  public LogServer(Config config) throws ItgException {
    SWIGTYPE_p_itg_logserver[] out = new SWIGTYPE_p_itg_logserver[1];
    try (itg_logserver_cfg c = config.toC()) {
      int rc = ItgC.itg_logserver_new(c, out);
      if (rc >= 0) {
        rc = ItgC.itg_logserver_start(out[0]);
      }
      if (rc < 0) {
        ItgC.itg_logserver_free(out[0]);
        throw new ItgException(rc, "log server on port "
            + (config.port != null ? config.port : c.getPort()) + ": " + ItgC.itg_strerror(rc));
      }
    }
    handle = new SharedHandle<>(out[0], "log server");
  }

  /** Returns the TCP port in use (the one picked when the configuration asked for 0). */
  public int port() throws ItgException {
    return handle.use(ItgC::itg_logserver_port);
  }

  /** Returns the UDP port UDP clients send their records to. */
  public int udpPort() throws ItgException {
    return handle.use(ItgC::itg_logserver_udp_port);
  }

  /** Returns the counters. */
  public LogServerStats stats() throws ItgException {
    return handle.use(s -> {
      try (itg_logserver_stats c = new itg_logserver_stats()) {
        ItgException.check(ItgC.itg_logserver_get_stats(s, c));
        return LogServerStats.of(c);
      }
    });
  }

  /** Closes every session, stops the server's thread and frees it; closing again does nothing. */
  @Override
  public void close() {
    handle.free(ItgC::itg_logserver_free);
  }
}
