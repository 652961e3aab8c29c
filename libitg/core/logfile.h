/* Log files in a directory where peers name them (-x names at a receiver,
 * names a client asks of a log server): the one rule that turns such a
 * name into a new file, and the check that the directory is there. */
#ifndef ITG_CORE_LOGFILE_H
#define ITG_CORE_LOGFILE_H

#include "itg/log.h"

/* The largest k of a NAME.k made because NAME was taken. */
#define ITG__LOG_SUFFIX_MAX 999u

/* Creates the log file base, or else base.1, base.2, ... up to
 * base.ITG__LOG_SUFFIX_MAX, the first name that does not exist, and writes
 * its header. Nothing that exists is ever replaced, truncated or followed
 * (a symbolic link included), so a name can never reach another file.
 * Copies the path made into path[0..pathlen). Returns 0, ITG_EINVAL (a
 * header the reader would refuse), ITG_ERANGE (the path does not fit),
 * ITG_EBUSY (every name taken), or an error of itg__file_create. */
int itg__logwriter_create(const char *base, const itg_log_hdr *hdr,
                          char *path, size_t pathlen, itg_logwriter **out);

#endif
