/*
 * Staccato's C API: a sampler (SoundFont 2/3, SFZ, sample sets) for applications written in any
 * language, and song rendering (MIDI file to audio, one song or a batch on every core).
 *
 * Conventions:
 * - Handles are opaque; each `_new`/`_load` has a `_free`, which takes NULL.
 * - Functions that can fail return 0 (or a handle) on success and -1 (or NULL) on failure; then
 *   staccato_last_error() gives one line naming the thing at fault and what is wrong, as the
 *   `staccato` command would print it. The library never prints.
 * - "frame": one sample per channel. Audio is stereo, float, in -1...1.
 * - Every function says which thread may call it, with one of:
 *     - Thread: control   the application's control thread (loading, MIDI, settings); one at a time
 *                         per handle
 *     - Thread: audio     the application's audio callback: never allocates, locks or waits
 *     - Thread: any       any thread, at any time
 *
 * Link with `pkg-config --cflags --libs staccato`. MIT licence.
 */
#ifndef STACCATO_H
#define STACCATO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Library
 * ------------------------------------------------------------------------------------------- */

/* The library's version, as "MAJOR.MINOR.PATCH".
 * - Thread: any. */
const char *staccato_version(void);

/* The last failure on the calling thread, in one line; "" when there was none. Valid until the
 * thread's next failing call.
 * - Thread: any. */
const char *staccato_last_error(void);

/* Told one line at a time what the library does not refuse but a user should know: samples left
 * out of an instrument, presets a song asks for that the instrument lacks (and what plays
 * instead), a song that rendered silent. The line is valid during the call only.
 * Called on the thread that did the work (a batch's render threads among them). */
typedef void (*staccato_log_callback)(void *user_data, const char *line);

/* One preset of an instrument. `name` belongs to the instrument and lives as long as it does. */
typedef struct staccato_preset {
    int bank;          /* 128: drum kits (General MIDI's channel 10) */
    int program;       /* 0...127 */
    const char *name;
} staccato_preset;

/* ---------------------------------------------------------------------------------------------
 * Instruments: loaded once, shared read-only by any number of synths and renders at once
 * ------------------------------------------------------------------------------------------- */

typedef struct staccato_instrument staccato_instrument;

/* Loads a SoundFont (.sf2, .sf3), an SFZ instrument, or a folder of recordings, for playing at
 * `sample_rate`. `path` NULL: the system's General MIDI font, as the `staccato` command chooses it
 * (STACCATO_SOUNDFONT, then Debian's fonts, then the font Staccato ships with).
 * Returns NULL on failure.
 * - Thread: control. Reads and decodes the whole instrument on the calling thread. */
staccato_instrument *staccato_instrument_load(const char *path, double sample_rate);

/* - Thread: control. No synth may be using it any more (staccato_synth_free first), and no render. */
void staccato_instrument_free(staccato_instrument *instrument);

/* The file the instrument was loaded from.
 * - Thread: any. */
const char *staccato_instrument_path(const staccato_instrument *instrument);

/* The rate it plays at.
 * - Thread: any. */
double staccato_instrument_sample_rate(const staccato_instrument *instrument);

/* How many presets it has, in bank and program order.
 * - Thread: any. */
int staccato_instrument_preset_count(const staccato_instrument *instrument);

/* Preset `index` (0 ... count - 1) into `preset`. Returns -1 for an index out of range.
 * - Thread: any. */
int staccato_instrument_preset(const staccato_instrument *instrument, int index, staccato_preset *preset);

/* ---------------------------------------------------------------------------------------------
 * A synthesizer the application plays live: MIDI in on the control thread, audio out on the
 * audio thread, through lock-free queues
 * ------------------------------------------------------------------------------------------- */

typedef struct staccato_synth staccato_synth;

/* A synth rendering at `sample_rate` (8000...384000), in calls of up to `max_block_frames`
 * frames (1...65536) at a time, with no instrument yet (every note silent).
 * Returns NULL on failure.
 * - Thread: control. */
staccato_synth *staccato_synth_new(double sample_rate, int max_block_frames);

/* - Thread: control. No staccato_synth_render may be running or follow. */
void staccato_synth_free(staccato_synth *synth);

/* Loads an SF2, SF3, SFZ or a folder of recordings on the calling thread while the old instrument
 * plays on, then swaps it in without a gap: notes already sounding end on the old one. An
 * instrument without drum kits plays channel 10 through the kit Staccato ships with.
 * Returns 0, or -1 with the old instrument still playing.
 * - Thread: control. */
int staccato_synth_load(staccato_synth *synth, const char *path);

/* Swaps in an instrument already loaded, at the synth's rate; it must outlive the synth's use of it.
 * Returns 0, or -1 for an instrument loaded at another rate.
 * - Thread: control. */
int staccato_synth_use(staccato_synth *synth, const staccato_instrument *instrument);

/* One MIDI message (a channel message: status byte and data, no running status; or a SysEx,
 * F0 ... F7, of those Staccato knows: GM/GS/XG reset, master volume), taking effect at frame
 * `frame_offset` of the next block staccato_synth_render renders. Exactly at that frame when the
 * blocks rendered so far add up to a multiple of 64 frames (every block a multiple of 64: any
 * power of two from 64 up); otherwise a message that falls in the part of a 64-frame quantum the
 * previous call already rendered takes effect at the next quantum's first frame.
 * Returns 0, or -1 for bytes that are no such message or a full queue (render to drain it; a
 * note-off is never refused).
 * - Thread: control. */
int staccato_synth_midi(staccato_synth *synth, uint32_t frame_offset, const uint8_t *bytes, size_t count);

/* Renders the next `frame_count` frames into `left` and `right`, overwriting them. Allocates
 * nothing, takes no lock, waits for nothing. Calls longer than max_block_frames are split.
 * - Thread: audio. One call at a time per synth. */
void staccato_synth_render(staccato_synth *synth, float *left, float *right, uint32_t frame_count);

/* The output level, 0...1 (default 1), reached with a click-free ramp.
 * - Thread: control. */
void staccato_synth_set_volume(staccato_synth *synth, float volume);
/* - Thread: control. */
float staccato_synth_volume(const staccato_synth *synth);

/* Voices sounding, as of the last block rendered.
 * - Thread: any. */
int staccato_synth_active_voices(const staccato_synth *synth);

/* Frames rendered so far.
 * - Thread: any. */
uint64_t staccato_synth_frames_rendered(const staccato_synth *synth);

/* The presets of the instrument playing (none before one is loaded), as for an instrument.
 * - Thread: control. */
int staccato_synth_preset_count(const staccato_synth *synth);
/* - Thread: control. */
int staccato_synth_preset(const staccato_synth *synth, int index, staccato_preset *preset);

/* Where the synth's warnings go (NULL: nowhere).
 * - Thread: control. */
void staccato_synth_set_log_callback(staccato_synth *synth, staccato_log_callback callback, void *user_data);

/* ---------------------------------------------------------------------------------------------
 * Rendering MIDI files, faster than real time
 * ------------------------------------------------------------------------------------------- */

/* How songs render. Start from staccato_render_options_init: it sets the `staccato render` defaults. */
typedef struct staccato_render_options {
    double sample_rate;             /* 48000; an instrument passed in must be loaded at it */
    int threads;                    /* threads rendering one song's voices; 0: every core */
    int effects;                    /* 1: the song's reverb and chorus sends play; 0: dry */
    int program;                    /* -1: the file's programs; 0...127: every melodic channel plays it */
    float gain_db;                  /* the song's gain, -40...20; default -14 */
    int voices;                     /* voice pool, 1...16384; default 256 */
    int linear_interpolation;       /* 0: four-point cubic, the default; 1: two-point linear, faster */
    staccato_log_callback log;      /* warnings; NULL: dropped */
    void *log_user_data;
} staccato_render_options;

/* - Thread: any. */
void staccato_render_options_init(staccato_render_options *options);

/* Renders the MIDI file at `midi_path` through the instrument at `instrument_path` (NULL: the
 * system's General MIDI font) to `out_path` (.wav as 32-bit float, .flac, .ogg or .mp3), as
 * `staccato render --out` writes it. A song with notes that rendered silent still writes the file
 * and returns -1, saying why.
 * - Thread: control. */
int staccato_render_file(const char *midi_path, const char *instrument_path, double sample_rate, const char *out_path);

/* Renders the MIDI file at `midi_path` through `instrument` (loaded at options->sample_rate; NULL
 * options: the defaults) to `out_path`, as staccato_render_file does.
 * - Thread: control. Any number of threads may render at once, sharing one instrument. */
int staccato_render_song_to_file(const char *midi_path, const staccato_instrument *instrument,
                                 const staccato_render_options *options, const char *out_path);

/* A rendered song: interleaved stereo frames. */
typedef struct staccato_audio staccato_audio;

/* Renders a song through `instrument` (loaded at options->sample_rate; NULL options: the
 * defaults) into memory: the MIDI file at `midi_path`. Returns NULL on failure; a song that
 * rendered silent returns its audio and says why through options->log.
 * - Thread: control. Any number of threads may render at once, sharing one instrument. */
staccato_audio *staccato_render_song(const char *midi_path, const staccato_instrument *instrument,
                                     const staccato_render_options *options);

/* staccato_render_song for a MIDI file's bytes; `name` stands for it in messages (NULL: "song").
 * - Thread: control. As staccato_render_song. */
staccato_audio *staccato_render_song_bytes(const uint8_t *bytes, size_t count, const char *name,
                                           const staccato_instrument *instrument, const staccato_render_options *options);

/* - Thread: any. */
uint64_t staccato_audio_frame_count(const staccato_audio *audio);
/* The frames, interleaved left and right: 2 * frame_count floats, owned by `audio`.
 * - Thread: any. */
const float *staccato_audio_samples(const staccato_audio *audio);
/* - Thread: any. */
void staccato_audio_free(staccato_audio *audio);

/* Told of each song of a batch as it ends, on the batch's threads, in the order they end:
 * `index` into the paths given; `error` NULL and either `audio` (a render into memory, handed
 * over: the callback owns it and frees it with staccato_audio_free, now or later) or
 * `output_path` (the file written) for a song rendered, else `error`, one line naming the song
 * and what is wrong. */
typedef void (*staccato_batch_callback)(void *user_data, size_t index, const char *error,
                                        const staccato_audio *audio, const char *output_path);

/* Renders `count` MIDI files through one `instrument`, `workers` at a time (0: every core), each
 * song on one thread with an engine of its own: into `out_dir` (made when missing) as NAME.FORMAT,
 * `format` one of "wav", "flac", "ogg", "mp3" (NULL: "wav"); or, with `out_dir` NULL, into memory,
 * each song's audio handed to `callback` (with NULL `callback`, freed). A song that fails (missing, not MIDI,
 * silent, unwritable) is an error for that song only. Returns the number of songs that failed, or
 * -1 when the batch could not start (the folder, the format, the options).
 * - Thread: control. Blocks until the last song is done. */
int staccato_render_batch(const char *const *midi_paths, size_t count, const staccato_instrument *instrument,
                          const staccato_render_options *options, const char *out_dir, const char *format, int workers,
                          staccato_batch_callback callback, void *user_data);

#ifdef __cplusplus
}
#endif

#endif /* STACCATO_H */
