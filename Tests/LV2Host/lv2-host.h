// What the lilv host's files share: the host and its instances, their recordings, and the checks
// made on them (lv2-host.c says what the program does).
#ifndef LV2_HOST_H
#define LV2_HOST_H

#define _GNU_SOURCE
#include <lilv/lilv.h>
#include <lv2/atom/forge.h>
#include <lv2/core/lv2.h>
#include <lv2/log/log.h>
#include <lv2/options/options.h>
#include <lv2/urid/urid.h>
#include <lv2/worker/worker.h>

#include <pthread.h>
#include <stdint.h>

#define RATE 48000.0
#define STACCATO "urn:staccato:lv2:sampler"
#define INSTRUMENT STACCATO "#instrument"
#define ERROR_PROPERTY STACCATO "#error"
#define MESSAGE_BYTES 8192
#define QUEUE_LENGTH 64

// -rdynamic exports the program's symbols so that the allocation counter's malloc and free stand
// in for the plug-in's; the host's own stay hidden, so that none can take the place of a library's
// symbol of the same name.
#pragma GCC visibility push(hidden)

// MARK: Checks (measures.c)

extern int failures;
void check(int passed, const char *format, ...);

// MARK: URIDs and log (features.c)

typedef struct {
    LV2_URID atom_path, atom_string, atom_urid, atom_int, atom_float, atom_object, atom_sequence, atom_chunk;
    LV2_URID midi_event, patch_set, patch_get, patch_property, patch_value;
    LV2_URID min_block, max_block, nominal_block, log_error, instrument, error;
} Urids;

extern LV2_URID_Map map;
extern LV2_URID_Unmap unmap;
extern Urids urid;
extern int logged_errors;
extern LV2_Log_Log log_feature_data;

LV2_URID map_uri(LV2_URID_Map_Handle handle, const char *uri);
void map_uris(void);

// MARK: The host (host.c)

// Requests go from run() to the worker thread, responses back to the audio thread, through
// fixed queues under a mutex (the host's side; the plug-in's run() only calls schedule_work).
typedef struct {
    unsigned char bytes[QUEUE_LENGTH][MESSAGE_BYTES];
    uint32_t sizes[QUEUE_LENGTH];
    int head, tail;
} MessageQueue;

typedef struct Host Host;

typedef struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    MessageQueue requests, responses;
    int stop;
    Host *host;
} Worker;

struct Host {
    LilvWorld *world;
    const LilvPlugin *plugin;
    LilvInstance *instance;
    const LV2_Worker_Interface *worker_interface;
    Worker worker;
    uint32_t block;
    uint32_t port_count;
    float *controls;
    float *audio[2];
    uint32_t audio_ports[2];
    int audio_count;
    int gain_port, latency_port, polyphony_port;
    int control_port, notify_port;
    uint64_t control_buffer[MESSAGE_BYTES * 4 / 8];
    uint64_t notify_buffer[MESSAGE_BYTES * 4 / 8];
    LV2_Atom_Forge forge;
    LV2_Atom_Forge_Frame sequence_frame;
    int sequence_open;
    int64_t frame;
    // What the notify port said last.
    char loaded[MESSAGE_BYTES];
    int loaded_count;
    char error[MESSAGE_BYTES];
    int error_count;
    // Heap calls and time in the plug-in's audio-thread functions.
    long run_allocations, run_frees;
    double longest_run, total_run;
    long runs;
    // The features this instance was made with.
    LV2_Worker_Schedule schedule;
    LV2_Feature map_feature, unmap_feature, log_feature, schedule_feature, options_feature;
    LV2_Feature bounded_feature, fixed_feature, power_feature;
    const LV2_Feature *features[10];
    LV2_Options_Option options[4];
    int32_t min_block, max_block;
};

int port_is(const Host *host, const LilvPort *port, const char *class_uri);
Host *host_new(LilvWorld *world, const char *uri, uint32_t block, int on_grid);
void host_free(Host *host);

// MARK: Blocks (blocks.c)

// A recording of the plug-in's output, frame by frame from its first block.
typedef struct {
    float *left, *right;
    int64_t count, capacity;
} Recording;

// A note to play at an absolute frame of the recording.
typedef struct {
    int64_t frame;
    uint8_t status, data1, data2;
} TimedMessage;

double now_seconds(void);
void send_midi(Host *host, uint32_t offset, uint8_t status, uint8_t data1, uint8_t data2);
void send_patch(Host *host, LV2_URID property, const char *path);
void run_block(Host *host, float *left, float *right);
void record_block(Host *host, Recording *recording);
int run_until_answer(Host *host, Recording *recording, int answers_before, double seconds);
void play(Host *host, Recording *recording, const TimedMessage *messages, int count, int64_t end);

// MARK: Measures (measures.c)

double goertzel_power(const float *samples, int count, double frequency);
double note_hertz(int key);
float peak(const float *samples, int64_t count);
void check_note(const Recording *recording, int64_t frame, int latency, int key, const char *label);
int compare_doubles(const void *a, const void *b);

// MARK: The commands (check.c, switch.c, bench.c)

int run_check(LilvWorld *world, uint32_t block, const char *font, const char *bad_path, const char *state_dir);
int run_switch(LilvWorld *world, const char *font, const char *big_font);
int run_bench(LilvWorld *world, const char *uri, const char *midi_path, uint32_t block, const char *property, const char *file,
              double seconds);

#pragma GCC visibility pop

#endif
