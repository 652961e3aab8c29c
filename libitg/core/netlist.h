/* Lists of allowed networks: whom itg-log serves (-A), and the log servers
 * a receiver ships logs to (--log-servers). Loopback is always inside. */
#ifndef ITG_CORE_NETLIST_H
#define ITG_CORE_NETLIST_H

#include "itg/logserver.h"
#include "platform/platform.h"

/* Parses one network written "ADDR/PREFIX", or a bare address (a network
 * of one). Returns 0 or ITG_EINVAL. */
int itg__net_parse(const char *cidr, itg_logserver_net *out);

/* Normalises an address to 16 bytes (IPv4 as IPv4-mapped IPv6) so both
 * families compare alike: what the receiver and the log server count
 * their peers by. */
void itg__net_ip_key(const struct sockaddr *sa, uint8_t key[16]);

/* Returns 1 if sa (IPv4 or IPv6; IPv4-mapped IPv6 taken as IPv4) is
 * inside net. */
int itg__net_contains(const itg_logserver_net *net, const struct sockaddr *sa);

/* Returns 1 if sa (IPv4 or IPv6; IPv4-mapped IPv6 taken as IPv4) is a
 * loopback address (127.0.0.0/8, ::1) or inside one of nets[0..n). */
int itg__net_allowed(const struct sockaddr *sa, const itg_logserver_net *nets,
                     uint32_t n);

#endif
