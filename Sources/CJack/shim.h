#ifndef STACCATO_CJACK_SHIM_H
#define STACCATO_CJACK_SHIM_H
// Only the lock-free ring: staccato-bench measures SPSCRing beside it. Nothing here talks to a server.
#include <jack/ringbuffer.h>
#endif
