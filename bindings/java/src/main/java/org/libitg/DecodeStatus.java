package org.libitg;

import java.nio.file.Path;

/**
 * What happened to one log file read by {@link Stats#addFiles}.
 *
 * @param path the file
 * @param error 0 when it was read to its clean end, else the ITG_E* code
 *     that stopped it, or EBADMSG when it was read to its end past damaged
 *     blocks (see {@link #errorName()})
 * @param opened whether its header was read (error then says where the
 *     records stopped); false when it could not be opened or is not a
 *     libitg log
 * @param offset the byte offset where reading stopped
 * @param records records read and added
 * @param header the file's header, null when not opened
 * @param damaged damaged stretches of a version 2 file that were skipped
 * @param skipped records lost in them
 * @param firstDamage the first of them, null when there is none
 */
public record DecodeStatus(Path path, int error, boolean opened, long offset, long records,
    LogHeader header, long damaged, long skipped, LogDamage firstDamage) {
  /** Returns whether the file was read to its clean end. */
  public boolean ok() {
    return error == 0;
  }

  /** Returns the error's name ("ETRUNC", ...), "OK" when there is none. */
  public String errorName() {
    return error == 0 ? "OK" : ItgC.itg_err_name(error);
  }
}
