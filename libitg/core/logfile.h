/* Log files in a directory where peers name them (-x names at a receiver,
 * names a client asks of a log server): the one rule that turns such a
 * name into a new file, and the check that the directory is there. */
#ifndef ITG_CORE_LOGFILE_H
#define ITG_CORE_LOGFILE_H

#include <stdio.h>

#include "itg/log.h"

/* The largest k of a NAME.k made because NAME was taken. */
#define ITG__LOG_SUFFIX_MAX 999u

/* Creates the file base, or else base.1, base.2, ... up to
 * base.ITG__LOG_SUFFIX_MAX, the first name that does not exist (nothing
 * that exists is replaced, truncated or followed), empty, open for
 * writing in *out. Copies the path made into path[0..pathlen). Returns 0,
 * ITG_ERANGE (the path does not fit), ITG_EBUSY (every name taken), or an
 * error of itg__file_create. */
int itg__file_create_new(const char *base, char *path, size_t pathlen,
                         FILE **out);

/* Creates the log file base, or else base.1, base.2, ... up to
 * base.ITG__LOG_SUFFIX_MAX, the first name that does not exist, and writes
 * its header. Nothing that exists is ever replaced, truncated or followed
 * (a symbolic link included), so a name can never reach another file.
 * Copies the path made into path[0..pathlen). Returns 0, ITG_EINVAL (a
 * header the reader would refuse), ITG_ERANGE (the path does not fit),
 * ITG_EBUSY (every name taken), or an error of itg__file_create. */
int itg__logwriter_create(const char *base, const itg_log_hdr *hdr,
                          char *path, size_t pathlen, itg_logwriter **out);

/* Renames a session's file, that ended without its client leaving, to
 * path.incomplete, or path.incomplete.k for the first k free: an earlier
 * session of the same name (a client that registered again after a
 * failure) may have left one, and it holds records its client was told
 * are safe. Keeps path if none is free. Appends the suffix given to
 * file[0..filelen), the name the session's events show. */
void itg__log_mark_incomplete(const char *path, char *file, size_t filelen);

#endif
