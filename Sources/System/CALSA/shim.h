#ifndef STACCATO_CALSA_SHIM_H
#define STACCATO_CALSA_SHIM_H
#include <alsa/asoundlib.h>

// alsa-lib prints its own diagnostics to stderr ("ALSA lib pcm.c:2666: Unknown PCM x"). Staccato
// reports every failure itself in one line, so by default those are dropped. The handler type is
// variadic, which Swift cannot declare, hence this C helper.
static void staccato_alsa_discard_error(const char *file, int line, const char *function, int err,
                                        const char *format, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)format;
}

/// Drops (quiet != 0) or restores (quiet == 0) alsa-lib's own error printing (snd_lib_error_set_handler).
static inline void staccato_alsa_set_quiet(int quiet) {
    snd_lib_error_set_handler(quiet ? staccato_alsa_discard_error : NULL);
}
#endif
