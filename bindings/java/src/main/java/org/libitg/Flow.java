package org.libitg;

import java.util.ArrayList;
import java.util.List;

/**
 * A flow's settings, described by the same D-ITG-style options as itg-send
 * takes (include/itg/flow.h has the reference), e.g.
 * {@code Flow.parse("-a 127.0.0.1 -T UDP -C 1000 -c 64 -t 1000")}.
 * Options apply left to right, and a later option replaces an earlier one
 * of the same kind, so {@link #with(String)} refines a flow.
 *
 * <p>A Flow is an immutable value: it keeps the options and checks them
 * when it is made, and the sender turns them into libitg's configuration
 * when the flow is added. The flows of an {@link Experiment} keep the
 * settings their lines gave, and options refine them as any other.
 */
public final class Flow {
  /** Room for a message naming an option word (a path may be in it). */
  static final int MESSAGE_LEN = 1024;
  private static final int DESCRIPTION_LEN = 1024;

  /** A piece of options: a line split as a script line, or words as given. */
  private interface Options {
    /** Applies the options to cfg; returns a status, with a message in err on failure. */
    int apply(itg_flow_cfg cfg, byte[] err);
  }

  private record Line(String line) implements Options {
    @Override
    public int apply(itg_flow_cfg cfg, byte[] err) {
      return ItgC.itg_flow_parse_line(cfg, line, err);
    }
  }

  private record Words(List<String> words) implements Options {
    @Override
    public int apply(itg_flow_cfg cfg, byte[] err) {
      return ItgC.itg_flow_parse_args(cfg, Text.cStrings(words), err);
    }
  }

  /**
   * Settings the library made (an experiment's flow), kept as the bytes of
   * their itg_flow_cfg (itg_java.i says why that is the whole value); they
   * replace the whole configuration.
   */
  private record Settings(byte[] saved) implements Options {
    @Override
    public int apply(itg_flow_cfg cfg, byte[] err) {
      return ItgC.itgj_flow_cfg_load(cfg, saved);
    }
  }

  private final long id;
  private final List<Options> options;

  private Flow(long id, List<Options> options) throws ItgException {
    if (id < 0 || id > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("flow id is 0 to 2^32 - 1: " + id);
    }
    this.id = id;
    this.options = List.copyOf(options);
    toC().close();
  }

  /**
   * Returns the flow the options describe (over the defaults: UDP to
   * 127.0.0.1, -C 1000 -c 512 for 10 s). The line is split as a script
   * line is: at white space, with double quotes grouping words and '#'
   * starting a comment.
   *
   * @throws ItgException EINVAL (an unknown option, a bad or missing
   *     value: the message names the word), ENOENT (a trace file that does
   *     not exist), EIO
   */
  public static Flow parse(String options) throws ItgException {
    return new Flow(0, List.of(new Line(options)));
  }

  /** Returns the flow the option words describe, as {@link #parse} does. */
  public static Flow of(String... words) throws ItgException {
    return new Flow(0, List.of(new Words(List.of(words))));
  }

  /** Returns the flow of libitg's configuration c, whose flow id it keeps. */
  static Flow of(itg_flow_cfg c) throws ItgException {
    byte[] saved = new byte[Math.toIntExact(ItgC.itgj_flow_cfg_bytes())];
    ItgException.check(ItgC.itgj_flow_cfg_save(c, saved));
    return new Flow(c.getFlow_id(), List.of(new Settings(saved)));
  }

  /** Returns this flow with more options applied after its own. */
  public Flow with(String options) throws ItgException {
    return plus(new Line(options));
  }

  /** Returns this flow with more option words applied after its own. */
  public Flow withWords(String... words) throws ItgException {
    return plus(new Words(List.of(words)));
  }

  /** Returns this flow sent to host (the -a option). */
  public Flow to(String host) throws ItgException {
    return withWords("-a", host);
  }

  /** Returns this flow set up through the receiver's signaling port (the -Sdp option). */
  public Flow sigPort(int port) throws ItgException {
    return withWords("-Sdp", Integer.toString(port));
  }

  /** Returns this flow with an id of its own (0: the sender numbers its flows 1, 2, ...). */
  public Flow id(long flowId) throws ItgException {
    return new Flow(flowId, options);
  }

  /** Returns the flow's id, 0 when the sender numbers it. */
  public long id() {
    return id;
  }

  /**
   * Checks the flow as the sender will: it is bounded (a duration, a
   * packet or byte count), its ports and laws are valid, its sizes fit the
   * header.
   *
   * @throws ItgException EINVAL with a message saying what is wrong,
   *     ENOENT, EIO
   */
  public void validate() throws ItgException {
    try (itg_flow_cfg cfg = toC()) {
      byte[] err = new byte[MESSAGE_LEN];
      ItgException.check(ItgC.itg_flow_validate(cfg, err), Text.string(err));
    }
  }

  /**
   * Returns a one-line description, e.g. "UDP 127.0.0.1:8999 IDT
   * constant(0.001 s) size constant(64 B) for 1 s".
   */
  public String describe() {
    try (itg_flow_cfg cfg = toC()) {
      byte[] buf = new byte[DESCRIPTION_LEN];
      ItgC.itg_flow_describe(cfg, buf);
      return Text.string(buf);
    } catch (ItgException e) {
      throw new IllegalStateException("options checked when the flow was made no longer apply", e);
    }
  }

  @Override
  public String toString() {
    return describe();
  }

  /** Returns libitg's configuration of the flow, for the caller to close. */
  itg_flow_cfg toC() throws ItgException {
    itg_flow_cfg cfg = new itg_flow_cfg();
    boolean done = false;
    try {
      ItgC.itg_flow_cfg_init(cfg);
      byte[] err = new byte[MESSAGE_LEN];
      for (Options o : options) {
        ItgException.check(o.apply(cfg, err), Text.string(err));
      }
      // After the options: settings that replace the whole configuration
      // would replace the id too.
      cfg.setFlow_id(id);
      done = true;
      return cfg;
    } finally {
      if (!done) {
        cfg.close();
      }
    }
  }

  private Flow plus(Options more) throws ItgException {
    List<Options> all = new ArrayList<>(options);
    all.add(more);
    return new Flow(id, all);
  }
}
