/* A flow's payload bytes from a file (-Fp): read once, then laid after
 * each packet's header as D-ITG lays them (see payload.c). */
#ifndef ITG_CORE_PAYLOAD_H
#define ITG_CORE_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

/* Reads the whole file at path into *out (freed with free), its length in
 * *len. Returns 0, ITG_ENOENT, ITG_EINVAL (an empty file), ITG_ELIMIT (more
 * than ITG_FLOW_PAYLOAD_MAX bytes), ITG_EPERM, ITG_ENOMEM or ITG_EIO. */
int itg__payload_read(const char *path, uint8_t **out, size_t *len);

/* Writes the payload of a packet whose bytes after the header are
 * dst[0..room), taking file[*off..) as D-ITG does: the bytes run on from
 * packet to packet; a packet that finds fewer left than its room takes
 * them, zeros the rest and the next packet starts again at the file's
 * first byte. Advances *off. */
void itg__payload_fill(const uint8_t *file, size_t len, size_t *off,
                       uint8_t *dst, size_t room);

/* Moves *off as itg__payload_fill would, without writing. */
void itg__payload_advance(size_t len, size_t *off, size_t room);

#endif
