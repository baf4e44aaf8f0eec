#ifndef STACCATO_CJACK_SHIM_H
#define STACCATO_CJACK_SHIM_H
// The JACK client API (the native backend, staccato-bench's round trip) and JACK's lock-free ring
// (staccato-bench measures SPSCRing beside it).
#include <jack/jack.h>
#include <jack/midiport.h>
#include <jack/thread.h>
#include <jack/ringbuffer.h>

// jack_client_open is variadic, which Swift cannot call: the server name, when there is one, goes
// through this fixed-argument form.
static inline jack_client_t *staccato_jack_client_open(const char *name, jack_options_t options,
                                                       jack_status_t *status, const char *server) {
    if (server != 0) return jack_client_open(name, (jack_options_t)(options | JackServerName), status, server);
    return jack_client_open(name, options, status);
}

// libjack prints every failure (a missing server, a refused connection) to stderr as it happens;
// the backend reports them itself, in one line, so these messages go nowhere.
static inline void staccato_jack_quiet_message(const char *message) { (void)message; }
static inline void staccato_jack_silence_messages(void) {
    jack_set_error_function(staccato_jack_quiet_message);
    jack_set_info_function(staccato_jack_quiet_message);
}
#endif
