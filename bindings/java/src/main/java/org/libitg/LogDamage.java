package org.libitg;

/**
 * A stretch of a version 2 log file that a reader skipped as damaged (its
 * block's checksum failed, or it was not a block at all).
 *
 * @param block the number of its first block, the block after the header
 *     being 0
 * @param offset the byte offset where it starts
 * @param records the records lost with it, reckoned from its length (for
 *     one damaged block: that block's count)
 */
public record LogDamage(long block, long offset, long records) {
  /** Returns the fields of a C damage report. */
  static LogDamage of(itg_log_damage d) {
    return new LogDamage(d.getBlock(), d.getOffset(), d.getRecords());
  }
}
