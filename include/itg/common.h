/* libitg: what every part of the API shares (export macro, error codes).
 *
 * Conventions, kept everywhere so the bindings stay thin:
 *   - functions return 0 (or a count) on success and a negative ITG_E* code
 *     on failure; results come back through out-parameters;
 *   - constructors are itg_x_new(..., itg_x **out), destructors itg_x_free(x)
 *     accept NULL;
 *   - configuration structs are filled with defaults by itg_x_cfg_init(&cfg)
 *     before the caller changes the fields it cares about;
 *   - times are int64_t nanoseconds; wall-clock times count from the Unix
 *     epoch (UTC), so a run across midnight keeps its delays right.
 *
 * Growable structs. Every configuration and result struct the caller
 * allocates begins with `size_t struct_size`, the size of the struct as
 * the caller's header declared it, so that a later release may append
 * fields (README.md, "ABI") and a program built against an earlier one
 * keeps working without a rebuild:
 *   - a configuration's size is set by its itg_x_cfg_init(cfg), a macro
 *     passing sizeof *cfg, taken at the caller's compile time, to the
 *     exported itg_x_cfg_init_size. Every function taking the struct
 *     starts from the defaults in the library's own layout and copies the
 *     caller's struct_size bytes over them, so a field the caller's layout
 *     lacks keeps its default and no code inside the library reads past
 *     the caller's struct;
 *   - a result's getter is likewise a macro passing sizeof *out to the
 *     exported itg_x_..._size function, which writes only that many bytes
 *     and sets out->struct_size to it (an optional result left out is
 *     passed to the _size function as NULL with size 0);
 *   - a size below sizeof(size_t) (not even the size itself) or above the
 *     library's own layout (a header newer than the library) is refused
 *     with ITG_EINVAL, and the struct left as it was; where the function
 *     has an error buffer, the message names the struct.
 * Why a size rather than opaque objects with a setter per field: these
 * structs stay plain data the caller fills in one place, copies and keeps
 * on the stack, the bindings map field by field, and one mechanism serves
 * them all. Objects with behaviour are opaque (itg_sender, itg_pacer...).
 * Fixed layouts: structs of a file or wire format (itg_logrec, itg_log_hdr,
 * itg_pkt_hdr) and structs held inside another (itg_dist_spec in
 * itg_flow_cfg, itg_log_damage in itg_decode_status) never change; a new
 * layout would be a new type. The structs the library hands to callbacks
 * (itg_flow_event, itg_log_session_event, itg_log_error) are the library's
 * memory and only ever grow at their end.
 *
 * Ownership of pointers in configurations (itg_logger_cfg.path,
 * .server_host, .token, .spill_path, .flow_ids; itg_flow_parse_args's
 * argv): the caller owns what they point to. The library reads it during
 * the call that takes the configuration and copies what it keeps before
 * that call returns, so the memory may be freed or reused as soon as the
 * call has returned. The exception is `user` (and `error_user`): the
 * library keeps the pointer as it is and hands it to the callbacks, so
 * what it points to must live until the object is freed. Text in a
 * struct's char arrays is copied with the struct.
 */
#ifndef ITG_COMMON_H
#define ITG_COMMON_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#if defined(ITG_BUILDING_DLL)
#define ITG_API __declspec(dllexport)
#elif defined(ITG_DLL)
#define ITG_API __declspec(dllimport)
#else
#define ITG_API
#endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#define ITG_API __attribute__((visibility("default")))
#else
#define ITG_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The error table: name, value, message. Values are part of the ABI and
 * never change; new codes are appended. */
#define ITG_ERRNO_MAP(XX)                                                      \
  XX(EINVAL, -1, "invalid argument")                                           \
  XX(ENOMEM, -2, "out of memory")                                              \
  XX(ERANGE, -3, "value out of range")                                         \
  XX(EIO, -4, "input/output error")                                            \
  XX(ENOENT, -5, "no such file or directory")                                  \
  XX(ETRUNC, -6, "data truncated")                                             \
  XX(EBADMSG, -7, "malformed data")                                            \
  XX(EVERSION, -8, "unsupported format or protocol version")                   \
  XX(EADDR, -9, "bad or unresolvable address")                                 \
  XX(ESOCKET, -10, "socket operation failed")                                  \
  XX(ECONNREFUSED, -11, "connection refused")                                  \
  XX(ETIMEDOUT, -12, "timed out")                                              \
  XX(ECLOSED, -13, "connection closed by peer")                                \
  XX(EPROTO, -14, "protocol error")                                            \
  XX(EREFUSED, -15, "request refused by peer")                                 \
  XX(EBUSY, -16, "resource busy")                                              \
  XX(ENOTSUP, -17, "not supported")                                            \
  XX(ESTATE, -18, "operation not valid in this state")                         \
  XX(ECANCELED, -19, "operation canceled")                                     \
  XX(ELIMIT, -20, "limit reached")                                             \
  XX(ETHREAD, -21, "thread operation failed")                                  \
  XX(EADDRINUSE, -22, "address already in use")                                \
  XX(EPERM, -23, "operation not permitted")                                    \
  XX(ENOSPC, -24, "no space left on device")                                  \
  XX(EEXIST, -25, "already exists")

typedef enum itg_errno {
  ITG_OK = 0,
#define ITG__ERRNO_ENUM(name, value, msg) ITG_##name = value,
  ITG_ERRNO_MAP(ITG__ERRNO_ENUM)
#undef ITG__ERRNO_ENUM
} itg_errno;

/* Returns a human-readable message for an ITG_E* code (never NULL; an
 * unknown code gives "unknown error"). */
ITG_API const char *itg_strerror(int err);

/* Returns the code's name without the ITG_ prefix, e.g. "EINVAL" (never
 * NULL; an unknown code gives "UNKNOWN"). Bindings use it to name their
 * exceptions. */
ITG_API const char *itg_err_name(int err);

/* Raises the process's limit on open descriptors to the highest it may set
 * (RLIMIT_NOFILE's hard limit), so that a receiver or log server serving
 * many connections, each a descriptor, is not stopped at a default such as
 * 1 024. Returns the limit then in force, or 0 where there is none to mind
 * (no limit, Windows). */
ITG_API uint64_t itg_fd_limit_raise(void);

/* Returns the library's version as "MAJOR.MINOR.PATCH". */
ITG_API const char *itg_version_string(void);

/* Returns the version as MAJOR*10000 + MINOR*100 + PATCH. */
ITG_API unsigned itg_version_number(void);

/* Returns the library's version as ITG_VERSION_HEX encodes it,
 * (MAJOR << 16) | (MINOR << 8) | PATCH, to compare the library a program
 * runs with against the header it was built with. */
ITG_API unsigned itg_version_hex(void);

#ifdef __cplusplus
}
#endif
#endif
