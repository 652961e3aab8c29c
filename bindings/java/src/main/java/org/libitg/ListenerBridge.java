package org.libitg;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The Java end of a receiver's callbacks: the JNI layer (itg_java.i, the
 * itgj_listener) calls {@link #records} and {@link #flow} on the
 * receiver's thread. What a listener throws is kept, the first of it, for
 * the receiver to throw when it stops; it never unwinds into C.
 */
final class ListenerBridge {
  /** Later failures kept with the first, so a listener failing on every call cannot fill memory. */
  private static final int MAX_SUPPRESSED = 8;

  private final Consumer<List<LogRecord>> onRecords;
  private final Consumer<FlowEvent> onFlow;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final ThreadLocal<Boolean> inCallback = ThreadLocal.withInitial(() -> false);

  ListenerBridge(Consumer<List<LogRecord>> onRecords, Consumer<FlowEvent> onFlow) {
    this.onRecords = onRecords;
    this.onFlow = onFlow;
  }

  /** Called from C with each batch of records logged, packed as LogRecord.pack packs them. */
  void records(long[] packed) {
    dispatch(() -> onRecords.accept(LogRecord.unpack(packed)));
  }

  /** Called from C with each flow event (byte[] are UTF-8 without NUL). */
  void flow(int kind, long flowId, int proto, int meter, int port, byte[] peer, long packets,
      long bytes, long sent, boolean sentKnown, int status, byte[] message) {
    dispatch(() -> onFlow.accept(new FlowEvent(FlowEvent.Kind.of(kind), flowId, Proto.of(proto),
        Meter.of(meter), port, new String(peer, StandardCharsets.UTF_8), packets, bytes, sent,
        sentKnown, status, new String(message, StandardCharsets.UTF_8))));
  }

  /** Returns whether the calling thread is inside a listener. */
  boolean inCallback() {
    return inCallback.get();
  }

  /** Returns the first throwable a listener threw, or null, and forgets it. */
  Throwable takeFailure() {
    return failure.getAndSet(null);
  }

  private void dispatch(Runnable call) {
    inCallback.set(true);
    try {
      call.run();
    } catch (Throwable t) {
      Throwable first = failure.compareAndExchange(null, t);
      if (first != null && first.getSuppressed().length < MAX_SUPPRESSED) {
        first.addSuppressed(t);
      }
    } finally {
      inCallback.remove();
    }
  }
}
