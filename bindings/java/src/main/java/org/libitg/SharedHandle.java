package org.libitg;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A C handle that several threads may use at once (a sender or receiver:
 * stop and the counters are safe from any thread) and that one of them
 * frees: uses share a read lock, freeing takes the write lock, so a handle
 * is never freed under a call still using it.
 */
final class SharedHandle<T> {
  /** A call on the handle. */
  interface Call<T, R> {
    R apply(T handle) throws ItgException;
  }

  /** What frees the handle. */
  interface Free<T> {
    void apply(T handle) throws ItgException;
  }

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final String what;
  private T handle;

  SharedHandle(T handle, String what) {
    this.handle = handle;
    this.what = what;
  }

  /**
   * Returns what call returns on the handle.
   *
   * @throws IllegalStateException if the handle was freed
   */
  <R> R use(Call<T, R> call) throws ItgException {
    lock.readLock().lock();
    try {
      if (handle == null) {
        throw new IllegalStateException(what + " is closed");
      }
      return call.apply(handle);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Frees the handle with free once no call uses it; does nothing if it was freed already. */
  void free(Free<T> free) throws ItgException {
    lock.writeLock().lock();
    try {
      if (handle != null) {
        T h = handle;
        handle = null;
        free.apply(h);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }
}
