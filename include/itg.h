/* libitg: an embeddable network traffic generator.
 *
 * This header is the whole public contract; everything else in the library
 * is private. It includes only <stddef.h> and <stdint.h> from the system.
 *
 *   itg/common.h    error codes, export macro, version
 *   itg/dist.h      random laws for inter-departure times and sizes
 *   itg/pacer.h     clocks and the absolute-schedule pacer
 *   itg/wire.h      the packet header format
 *   itg/log.h       log records, log files, the ring-buffered logger
 *   itg/stats.h     streaming QoS statistics and reports
 *   itg/ditg.h      D-ITG's logs, read into the statistics and written
 *   itg/flow.h      flow settings and their options
 *   itg/sender.h    the sender
 *   itg/receiver.h  the receiver
 *   itg/logserver.h the log server (remote logging)
 *   itg/remote.h    the remote control: an agent and its client
 */
#ifndef ITG_H
#define ITG_H

#include "itg/version.h"
#include "itg/common.h"
#include "itg/dist.h"
#include "itg/pacer.h"
#include "itg/wire.h"
#include "itg/log.h"
#include "itg/stats.h"
#include "itg/ditg.h"
#include "itg/flow.h"
#include "itg/experiment.h"
#include "itg/parse.h"
#include "itg/sender.h"
#include "itg/receiver.h"
#include "itg/logserver.h"
#include "itg/remote.h"

#endif
