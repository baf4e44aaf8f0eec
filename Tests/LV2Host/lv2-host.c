// A headless LV2 host over lilv, for the plug-in's tests and its benchmark: it instantiates a
// plug-in, runs it in blocks of a chosen size with MIDI and patch messages at chosen frames, runs
// the worker on a thread of its own as jalv and Ardour do, saves and restores state through lilv,
// counts the heap calls the plug-in's run() makes and times each run().
//
//   lv2-host check BLOCK FONT BAD_PATH STATE_DIR   notes at their frames and pitches; state saved
//                                                  and restored into a fresh instance; a bad path
//                                                  keeps the old instrument; run() heap calls
//   lv2-host switch FONT BIG_FONT                  loads BIG_FONT while notes play, blocks paced in
//                                                  real time: every run()'s duration
//   lv2-host bench URI MIDI BLOCK [PROPERTY FILE [SECONDS]]
//                                                  render speed of a song through the plug-in URI
//                                                  (PROPERTY: its file parameter, set to FILE), for
//                                                  SECONDS of audio (default: the song and 2 s)
//
// LV2_PATH says where plug-ins are found. Each check prints one line; the exit status is the
// number of checks that failed.
#define _GNU_SOURCE
#include <lilv/lilv.h>
#include <lv2/atom/atom.h>
#include <lv2/atom/forge.h>
#include <lv2/atom/util.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/core/lv2.h>
#include <lv2/log/log.h>
#include <lv2/midi/midi.h>
#include <lv2/options/options.h>
#include <lv2/patch/patch.h>
#include <lv2/state/state.h>
#include <lv2/urid/urid.h>
#include <lv2/worker/worker.h>

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "CAllocationCounter.h"

#define RATE 48000.0
#define STACCATO "urn:staccato:lv2:sampler"
#define INSTRUMENT STACCATO "#instrument"
#define ERROR_PROPERTY STACCATO "#error"
#define MESSAGE_BYTES 8192
#define QUEUE_LENGTH 64

static int failures;

static void check(int passed, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    printf("%s: ", passed ? "ok" : "FAIL");
    vprintf(format, arguments);
    printf("\n");
    fflush(stdout);
    va_end(arguments);
    if (!passed) failures++;
}

static double now_seconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return time.tv_sec + time.tv_nsec * 1e-9;
}

// MARK: URIDs

static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static char *mapped[4096];
static uint32_t mapped_count;

static LV2_URID map_uri(LV2_URID_Map_Handle handle, const char *uri) {
    (void)handle;
    pthread_mutex_lock(&map_lock);
    uint32_t found = 0;
    for (uint32_t index = 0; index < mapped_count && !found; index++) {
        if (strcmp(mapped[index], uri) == 0) found = index + 1;
    }
    if (!found && mapped_count < 4096) {
        mapped[mapped_count++] = strdup(uri);
        found = mapped_count;
    }
    pthread_mutex_unlock(&map_lock);
    return found;
}

static const char *unmap_uri(LV2_URID_Unmap_Handle handle, LV2_URID urid) {
    (void)handle;
    pthread_mutex_lock(&map_lock);
    const char *uri = urid >= 1 && urid <= mapped_count ? mapped[urid - 1] : NULL;
    pthread_mutex_unlock(&map_lock);
    return uri;
}

static LV2_URID_Map map = {NULL, map_uri};
static LV2_URID_Unmap unmap = {NULL, unmap_uri};
static struct {
    LV2_URID atom_path, atom_string, atom_urid, atom_int, atom_float, atom_object, atom_sequence, atom_chunk;
    LV2_URID midi_event, patch_set, patch_get, patch_property, patch_value;
    LV2_URID min_block, max_block, nominal_block, log_error, instrument, error;
} urid;

static void map_uris(void) {
    urid.atom_path = map_uri(NULL, LV2_ATOM__Path);
    urid.atom_string = map_uri(NULL, LV2_ATOM__String);
    urid.atom_urid = map_uri(NULL, LV2_ATOM__URID);
    urid.atom_int = map_uri(NULL, LV2_ATOM__Int);
    urid.atom_float = map_uri(NULL, LV2_ATOM__Float);
    urid.atom_object = map_uri(NULL, LV2_ATOM__Object);
    urid.atom_sequence = map_uri(NULL, LV2_ATOM__Sequence);
    urid.atom_chunk = map_uri(NULL, LV2_ATOM__Chunk);
    urid.midi_event = map_uri(NULL, LV2_MIDI__MidiEvent);
    urid.patch_set = map_uri(NULL, LV2_PATCH__Set);
    urid.patch_get = map_uri(NULL, LV2_PATCH__Get);
    urid.patch_property = map_uri(NULL, LV2_PATCH__property);
    urid.patch_value = map_uri(NULL, LV2_PATCH__value);
    urid.min_block = map_uri(NULL, LV2_BUF_SIZE__minBlockLength);
    urid.max_block = map_uri(NULL, LV2_BUF_SIZE__maxBlockLength);
    urid.nominal_block = map_uri(NULL, LV2_BUF_SIZE__nominalBlockLength);
    urid.log_error = map_uri(NULL, LV2_LOG__Error);
    urid.instrument = map_uri(NULL, INSTRUMENT);
    urid.error = map_uri(NULL, ERROR_PROPERTY);
}

// MARK: Log

static int logged_errors;

static int log_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *format, va_list arguments) {
    (void)handle;
    char line[2048];
    vsnprintf(line, sizeof line, format, arguments);
    if (type == urid.log_error) __atomic_add_fetch(&logged_errors, 1, __ATOMIC_RELAXED);
    fprintf(stderr, "  [plug-in log] %s", line);
    return 0;
}

static int log_printf(LV2_Log_Handle handle, LV2_URID type, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int result = log_vprintf(handle, type, format, arguments);
    va_end(arguments);
    return result;
}

static LV2_Log_Log log_feature_data = {NULL, log_printf, log_vprintf};

// MARK: Worker

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

static int queue_push(MessageQueue *queue, uint32_t size, const void *data) {
    if (size > MESSAGE_BYTES || (queue->tail + 1) % QUEUE_LENGTH == queue->head) return 0;
    memcpy(queue->bytes[queue->tail], data, size);
    queue->sizes[queue->tail] = size;
    queue->tail = (queue->tail + 1) % QUEUE_LENGTH;
    return 1;
}

// MARK: The host

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

static LV2_Worker_Status schedule_work(LV2_Worker_Schedule_Handle handle, uint32_t size, const void *data) {
    Worker *worker = handle;
    pthread_mutex_lock(&worker->lock);
    int pushed = queue_push(&worker->requests, size, data);
    pthread_cond_signal(&worker->wake);
    pthread_mutex_unlock(&worker->lock);
    return pushed ? LV2_WORKER_SUCCESS : LV2_WORKER_ERR_NO_SPACE;
}

static LV2_Worker_Status respond(LV2_Worker_Respond_Handle handle, uint32_t size, const void *data) {
    Worker *worker = handle;
    pthread_mutex_lock(&worker->lock);
    int pushed = queue_push(&worker->responses, size, data);
    pthread_mutex_unlock(&worker->lock);
    return pushed ? LV2_WORKER_SUCCESS : LV2_WORKER_ERR_NO_SPACE;
}

static void *worker_main(void *argument) {
    Worker *worker = argument;
    static __thread unsigned char message[MESSAGE_BYTES];
    pthread_mutex_lock(&worker->lock);
    for (;;) {
        while (!worker->stop && worker->requests.head == worker->requests.tail) pthread_cond_wait(&worker->wake, &worker->lock);
        if (worker->stop) break;
        uint32_t size = worker->requests.sizes[worker->requests.head];
        memcpy(message, worker->requests.bytes[worker->requests.head], size);
        worker->requests.head = (worker->requests.head + 1) % QUEUE_LENGTH;
        pthread_mutex_unlock(&worker->lock);
        Host *host = worker->host;
        host->worker_interface->work(lilv_instance_get_handle(host->instance), respond, worker, size, message);
        pthread_mutex_lock(&worker->lock);
    }
    pthread_mutex_unlock(&worker->lock);
    return NULL;
}

static int port_is(const Host *host, const LilvPort *port, const char *class_uri) {
    LilvNode *node = lilv_new_uri(host->world, class_uri);
    int is = lilv_port_is_a(host->plugin, port, node);
    lilv_node_free(node);
    return is;
}

// An instance of `uri` at 48 kHz in blocks of `block` frames; `on_grid`: the host promises blocks
// of a fixed length (bufsz:fixedBlockLength, powerOf2BlockLength), as JACK's periods are.
static Host *host_new(LilvWorld *world, const char *uri, uint32_t block, int on_grid) {
    Host *host = calloc(1, sizeof *host);
    host->world = world;
    host->block = block;
    LilvNode *plugin_uri = lilv_new_uri(world, uri);
    host->plugin = lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), plugin_uri);
    lilv_node_free(plugin_uri);
    if (!host->plugin) {
        fprintf(stderr, "lv2-host: no plug-in %s on LV2_PATH\n", uri);
        exit(2);
    }
    pthread_mutex_init(&host->worker.lock, NULL);
    pthread_cond_init(&host->worker.wake, NULL);
    host->worker.host = host;
    host->schedule = (LV2_Worker_Schedule){&host->worker, schedule_work};
    host->min_block = on_grid ? (int32_t)block : 1;
    host->max_block = (int32_t)block;
    host->options[0] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, urid.min_block, sizeof(int32_t), urid.atom_int, &host->min_block};
    host->options[1] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, urid.max_block, sizeof(int32_t), urid.atom_int, &host->max_block};
    host->options[2] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, urid.nominal_block, sizeof(int32_t), urid.atom_int, &host->max_block};
    host->options[3] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0, 0, 0, 0, NULL};
    host->map_feature = (LV2_Feature){LV2_URID__map, &map};
    host->unmap_feature = (LV2_Feature){LV2_URID__unmap, &unmap};
    host->log_feature = (LV2_Feature){LV2_LOG__log, &log_feature_data};
    host->schedule_feature = (LV2_Feature){LV2_WORKER__schedule, &host->schedule};
    host->options_feature = (LV2_Feature){LV2_OPTIONS__options, host->options};
    host->bounded_feature = (LV2_Feature){LV2_BUF_SIZE__boundedBlockLength, NULL};
    host->fixed_feature = (LV2_Feature){LV2_BUF_SIZE__fixedBlockLength, NULL};
    host->power_feature = (LV2_Feature){LV2_BUF_SIZE__powerOf2BlockLength, NULL};
    int count = 0;
    host->features[count++] = &host->map_feature;
    host->features[count++] = &host->unmap_feature;
    host->features[count++] = &host->log_feature;
    host->features[count++] = &host->schedule_feature;
    host->features[count++] = &host->options_feature;
    host->features[count++] = &host->bounded_feature;
    if (on_grid) {
        host->features[count++] = &host->fixed_feature;
        if ((block & (block - 1)) == 0) host->features[count++] = &host->power_feature;
    }
    host->features[count] = NULL;

    host->instance = lilv_plugin_instantiate(host->plugin, RATE, host->features);
    if (!host->instance) {
        fprintf(stderr, "lv2-host: %s did not instantiate\n", uri);
        exit(2);
    }
    host->worker_interface = lilv_instance_get_extension_data(host->instance, LV2_WORKER__interface);
    if (host->worker_interface) pthread_create(&host->worker.thread, NULL, worker_main, &host->worker);

    host->port_count = lilv_plugin_get_num_ports(host->plugin);
    host->controls = calloc(host->port_count, sizeof(float));
    lilv_plugin_get_port_ranges_float(host->plugin, NULL, NULL, host->controls);
    host->gain_port = host->latency_port = host->polyphony_port = host->control_port = host->notify_port = -1;
    for (uint32_t index = 0; index < host->port_count; index++) {
        const LilvPort *port = lilv_plugin_get_port_by_index(host->plugin, index);
        const char *symbol = lilv_node_as_string(lilv_port_get_symbol(host->plugin, port));
        int input = port_is(host, port, LV2_CORE__InputPort);
        if (port_is(host, port, LV2_CORE__AudioPort)) {
            float *buffer = calloc(block, sizeof(float));
            if (!input && host->audio_count < 2) {
                host->audio_ports[host->audio_count] = index;
                host->audio[host->audio_count++] = buffer;
            }
            lilv_instance_connect_port(host->instance, index, buffer);
        } else if (port_is(host, port, LV2_ATOM__AtomPort)) {
            if (input && host->control_port < 0) {
                host->control_port = (int)index;
                lilv_instance_connect_port(host->instance, index, host->control_buffer);
            } else if (!input && host->notify_port < 0) {
                host->notify_port = (int)index;
                lilv_instance_connect_port(host->instance, index, host->notify_buffer);
            } else {
                uint64_t *spare = calloc(MESSAGE_BYTES / 8, 8);
                ((LV2_Atom *)spare)->size = input ? 8 : MESSAGE_BYTES - 8;
                ((LV2_Atom *)spare)->type = input ? urid.atom_sequence : urid.atom_chunk;
                lilv_instance_connect_port(host->instance, index, spare);
            }
        } else if (port_is(host, port, LV2_CORE__ControlPort)) {
            if (isnan(host->controls[index])) host->controls[index] = 0;
            if (strcmp(symbol, "gain") == 0) host->gain_port = (int)index;
            if (strcmp(symbol, "latency") == 0) host->latency_port = (int)index;
            if (strcmp(symbol, "polyphony") == 0) host->polyphony_port = (int)index;
            lilv_instance_connect_port(host->instance, index, &host->controls[index]);
        } else {
            lilv_instance_connect_port(host->instance, index, NULL);
        }
    }
    lv2_atom_forge_init(&host->forge, &map);
    lilv_instance_activate(host->instance);
    return host;
}

static void host_free(Host *host) {
    if (host->worker_interface) {
        pthread_mutex_lock(&host->worker.lock);
        host->worker.stop = 1;
        pthread_cond_signal(&host->worker.wake);
        pthread_mutex_unlock(&host->worker.lock);
        pthread_join(host->worker.thread, NULL);
    }
    lilv_instance_deactivate(host->instance);
    lilv_instance_free(host->instance);
    for (int channel = 0; channel < host->audio_count; channel++) free(host->audio[channel]);
    free(host->controls);
    free(host);
}

// The block's control sequence, opened by the first event of the block.
static LV2_Atom_Forge *block_forge(Host *host) {
    if (!host->sequence_open) {
        lv2_atom_forge_set_buffer(&host->forge, (uint8_t *)host->control_buffer, sizeof host->control_buffer);
        lv2_atom_forge_sequence_head(&host->forge, &host->sequence_frame, 0);
        host->sequence_open = 1;
    }
    return &host->forge;
}

// A MIDI message `offset` frames into the next block.
static void send_midi(Host *host, uint32_t offset, uint8_t status, uint8_t data1, uint8_t data2) {
    LV2_Atom_Forge *forge = block_forge(host);
    uint8_t bytes[3] = {status, data1, data2};
    lv2_atom_forge_frame_time(forge, offset);
    lv2_atom_forge_atom(forge, (status & 0xF0) == 0xC0 ? 2 : 3, urid.midi_event);
    lv2_atom_forge_write(forge, bytes, (status & 0xF0) == 0xC0 ? 2 : 3);
}

// A patch:Set of `property` to the path `path` (or a patch:Get of nothing, path NULL).
static void send_patch(Host *host, LV2_URID property, const char *path) {
    LV2_Atom_Forge *forge = block_forge(host);
    LV2_Atom_Forge_Frame frame;
    lv2_atom_forge_frame_time(forge, 0);
    lv2_atom_forge_object(forge, &frame, 0, path ? urid.patch_set : urid.patch_get);
    if (path) {
        lv2_atom_forge_key(forge, urid.patch_property);
        lv2_atom_forge_urid(forge, property);
        lv2_atom_forge_key(forge, urid.patch_value);
        lv2_atom_forge_path(forge, path, (uint32_t)strlen(path));
    }
    lv2_atom_forge_pop(forge, &frame);
}

// Runs one block: the queued events, run() (timed, its heap calls counted), the worker's
// answers (work_response, counted too), then what the notify port says.
static void run_block(Host *host, float *left, float *right) {
    if (!host->sequence_open) block_forge(host);
    lv2_atom_forge_pop(&host->forge, &host->sequence_frame);
    host->sequence_open = 0;
    LV2_Atom *notify = (LV2_Atom *)host->notify_buffer;
    notify->size = sizeof host->notify_buffer - sizeof(LV2_Atom);
    notify->type = urid.atom_chunk;

    double start = now_seconds();
    staccato_allocation_counting_begin();
    lilv_instance_run(host->instance, host->block);
    staccato_allocation_counting_end();
    double elapsed = now_seconds() - start;
    host->run_allocations += staccato_allocation_count();
    host->run_frees += staccato_free_count();
    host->runs++;
    host->total_run += elapsed;
    if (elapsed > host->longest_run) host->longest_run = elapsed;

    if (host->worker_interface) {
        static unsigned char message[MESSAGE_BYTES];
        for (;;) {
            pthread_mutex_lock(&host->worker.lock);
            MessageQueue *queue = &host->worker.responses;
            uint32_t size = 0;
            if (queue->head != queue->tail) {
                size = queue->sizes[queue->head];
                memcpy(message, queue->bytes[queue->head], size);
                queue->head = (queue->head + 1) % QUEUE_LENGTH;
            }
            pthread_mutex_unlock(&host->worker.lock);
            if (size == 0) break;
            staccato_allocation_counting_begin();
            host->worker_interface->work_response(lilv_instance_get_handle(host->instance), size, message);
            staccato_allocation_counting_end();
            host->run_allocations += staccato_allocation_count();
            host->run_frees += staccato_free_count();
        }
        if (host->worker_interface->end_run) host->worker_interface->end_run(lilv_instance_get_handle(host->instance));
    }

    if (notify->type == urid.atom_sequence) {
        LV2_ATOM_SEQUENCE_FOREACH((LV2_Atom_Sequence *)notify, event) {
            if (event->body.type != urid.atom_object) continue;
            const LV2_Atom_Object *object = (const LV2_Atom_Object *)&event->body;
            if (object->body.otype != urid.patch_set) continue;
            const LV2_Atom *property = NULL, *value = NULL;
            lv2_atom_object_get(object, urid.patch_property, &property, urid.patch_value, &value, 0);
            if (!property || property->type != urid.atom_urid || !value) continue;
            LV2_URID key = ((const LV2_Atom_URID *)property)->body;
            const char *text = LV2_ATOM_BODY_CONST(value);
            if (key == urid.instrument) {
                snprintf(host->loaded, sizeof host->loaded, "%.*s", (int)value->size, text);
                host->loaded_count++;
            } else if (key == urid.error) {
                snprintf(host->error, sizeof host->error, "%.*s", (int)value->size, text);
                host->error_count++;
            }
        }
    }
    for (int channel = 0; channel < host->audio_count; channel++) {
        float *destination = channel == 0 ? left : right;
        if (destination) memcpy(destination, host->audio[channel], host->block * sizeof(float));
    }
    host->frame += host->block;
}

// A recording of the plug-in's output, frame by frame from its first block.
typedef struct {
    float *left, *right;
    int64_t count, capacity;
} Recording;

static void record_block(Host *host, Recording *recording) {
    if (recording->count + host->block > recording->capacity) {
        recording->capacity = (recording->capacity + host->block) * 2;
        recording->left = realloc(recording->left, recording->capacity * sizeof(float));
        recording->right = realloc(recording->right, recording->capacity * sizeof(float));
    }
    run_block(host, recording->left + recording->count, recording->right + recording->count);
    recording->count += host->block;
}

// Runs blocks (paced a little, so the worker gets the CPU) until the notify port has answered
// `answers_before + 1` times in all, or `seconds` of wall time pass. Returns whether it answered.
static int run_until_answer(Host *host, Recording *recording, int answers_before, double seconds) {
    double deadline = now_seconds() + seconds;
    while (host->loaded_count + host->error_count <= answers_before && now_seconds() < deadline) {
        record_block(host, recording);
        usleep(200);
    }
    return host->loaded_count + host->error_count > answers_before;
}

// A note to play at an absolute frame of the recording.
typedef struct {
    int64_t frame;
    uint8_t status, data1, data2;
} TimedMessage;

// Renders until `end`, sending each message in the block that holds its frame.
static void play(Host *host, Recording *recording, const TimedMessage *messages, int count, int64_t end) {
    while (host->frame < end) {
        for (int index = 0; index < count; index++) {
            if (messages[index].frame >= host->frame && messages[index].frame < host->frame + host->block) {
                send_midi(host, (uint32_t)(messages[index].frame - host->frame), messages[index].status, messages[index].data1, messages[index].data2);
            }
        }
        record_block(host, recording);
    }
}

static double goertzel_power(const float *samples, int count, double frequency) {
    double coefficient = 2 * cos(2 * M_PI * frequency / RATE), previous = 0, before = 0;
    for (int index = 0; index < count; index++) {
        double window = 0.5 - 0.5 * cos(2 * M_PI * index / (count - 1));
        double current = samples[index] * window + coefficient * previous - before;
        before = previous;
        previous = current;
    }
    return previous * previous + before * before - coefficient * previous * before;
}

// The strongest frequency within 3 % of `expected`, in 0.05 % steps.
static double strongest_near(const float *samples, int count, double expected) {
    double best = 0, best_power = -1;
    for (double ratio = 0.97; ratio <= 1.03; ratio += 0.0005) {
        double power = goertzel_power(samples, count, expected * ratio);
        if (power > best_power) {
            best_power = power;
            best = expected * ratio;
        }
    }
    return best;
}

static double note_hertz(int key) { return 440.0 * pow(2.0, (key - 69) / 12.0); }

static float peak(const float *samples, int64_t count) {
    float largest = 0;
    for (int64_t index = 0; index < count; index++) largest = fmaxf(largest, fabsf(samples[index]));
    return largest;
}

// Checks a note played at `frame` (heard `latency` frames later): silence before it, sound from
// its first frames on, and its pitch.
static void check_note(const Recording *recording, int64_t frame, int latency, int key, const char *label) {
    int64_t onset = frame + latency;
    // Before it, at most what is left of the notes before (released, below -100 dB); from its frame
    // on, its attack, ten times that or more. A voice one frame early or 32 late fails one or the other.
    float before = peak(recording->left + onset - 256, 256);
    float first = peak(recording->left + onset, 32);
    float threshold = fmaxf(1e-5f, 10 * before);
    int64_t first_sound = -1;
    for (int64_t index = onset - 256; index < onset + 4800 && first_sound < 0; index++) {
        if (fabsf(recording->left[index]) > threshold) first_sound = index;
    }
    check(before < 1e-5f && first > threshold && first_sound >= onset,
          "%s: key %d sent at frame %lld sounds from frame %lld (+%d latency reported): before it peak %.1e, in its first 32 frames %.1e",
          label, key, (long long)frame, (long long)first_sound, latency, before, first);
    double expected = note_hertz(key);
    double found = strongest_near(recording->left + onset + 2400, 16384, expected);
    check(fabs(found / expected - 1) < 0.005, "%s: key %d strongest partial near %.2f Hz is %.2f Hz (%.2f %% off)",
          label, key, expected, found, 100 * (found / expected - 1));
}

static void set_port_value(const char *symbol, void *user_data, const void *value, uint32_t size, uint32_t type) {
    Host *host = user_data;
    if (type != urid.atom_float || size != sizeof(float)) return;
    for (uint32_t index = 0; index < host->port_count; index++) {
        const LilvPort *port = lilv_plugin_get_port_by_index(host->plugin, index);
        if (strcmp(lilv_node_as_string(lilv_port_get_symbol(host->plugin, port)), symbol) == 0) host->controls[index] = *(const float *)value;
    }
}

static const void *get_port_value(const char *symbol, void *user_data, uint32_t *size, uint32_t *type) {
    Host *host = user_data;
    for (uint32_t index = 0; index < host->port_count; index++) {
        const LilvPort *port = lilv_plugin_get_port_by_index(host->plugin, index);
        if (port_is(host, port, LV2_CORE__InputPort) && port_is(host, port, LV2_CORE__ControlPort) &&
            strcmp(lilv_node_as_string(lilv_port_get_symbol(host->plugin, port)), symbol) == 0) {
            *size = sizeof(float);
            *type = urid.atom_float;
            return &host->controls[index];
        }
    }
    *size = 0;
    *type = 0;
    return NULL;
}

// The next frame at or after `frame` that falls where `reference` does on the 64-frame grid.
static int64_t same_phase(int64_t frame, int64_t reference) {
    int64_t phase = ((reference % 64) - (frame % 64) + 64) % 64;
    return frame + phase;
}

// A fresh instance with the state saved at `state_path` restored into it, the worker passed to
// restore (state:threadSafeRestore), run until it reports its instrument (`answered`) or 120 s pass.
static Host *restore_into_new_instance(LilvWorld *world, const char *state_path, uint32_t block, int on_grid,
                                       Recording *recording, int *answered) {
    LilvState *state = lilv_state_new_from_file(world, &map, NULL, state_path);
    Host *host = host_new(world, STACCATO, block, on_grid);
    const LV2_Feature *features[] = {&host->map_feature, &host->schedule_feature, NULL};
    lilv_state_restore(state, host->instance, set_port_value, host, 0, features);
    lilv_state_free(state);
    *answered = run_until_answer(host, recording, 0, 120);
    return host;
}

// MARK: check

static int run_check(LilvWorld *world, uint32_t block, const char *font, const char *bad_path, const char *state_dir) {
    int on_grid = block % 64 == 0;
    Host *host = host_new(world, STACCATO, block, on_grid);
    Recording recording = {0};
    char label[64];
    snprintf(label, sizeof label, "blocks of %u", block);
    host->controls[host->gain_port] = -6;

    send_patch(host, urid.instrument, font);
    int answered = run_until_answer(host, &recording, 0, 120);
    check(answered && host->loaded_count == 1 && strcmp(host->loaded, font) == 0,
          "%s: patch:Set of %s loaded on the worker and was reported on the notify port (%s) after %.2f s of audio",
          label, font, host->loaded_count ? host->loaded : host->error, recording.count / RATE);
    check(peak(recording.left, recording.count) == 0 && peak(recording.right, recording.count) == 0,
          "%s: silence until the instrument was in (%lld frames, peak %.1e)", label, (long long)recording.count,
          peak(recording.left, recording.count));
    int latency = (int)host->controls[host->latency_port];
    check(latency == (on_grid ? 0 : 63), "%s: reported latency %d frames", label, latency);

    // Dry (no reverb or chorus send), so that silence before each note is exact; four notes at
    // frames in different places of their blocks.
    int64_t start = host->frame + block;
    const int keys[4] = {60, 64, 67, 72};
    const int offsets[4] = {0, 37, 99, 211};
    TimedMessage messages[10];
    messages[0] = (TimedMessage){start, 0xB0, 91, 0};
    messages[1] = (TimedMessage){start, 0xB0, 93, 0};
    int64_t note_frames[4];
    for (int index = 0; index < 4; index++) {
        note_frames[index] = start + 12000 + index * 96000 + offsets[index];
        messages[2 + 2 * index] = (TimedMessage){note_frames[index], 0x90, (uint8_t)keys[index], 100};
        messages[3 + 2 * index] = (TimedMessage){note_frames[index] + 24000, 0x80, (uint8_t)keys[index], 0};
    }
    play(host, &recording, messages, 10, note_frames[3] + 48000);
    for (int index = 0; index < 4; index++) check_note(&recording, note_frames[index], latency, keys[index], label);

    // A path that cannot load: reported on the notify port and the log; the old instrument plays.
    int errors_before = __atomic_load_n(&logged_errors, __ATOMIC_RELAXED);
    send_patch(host, urid.instrument, bad_path);
    int answers = host->loaded_count + host->error_count;
    answered = run_until_answer(host, &recording, answers, 30);
    check(answered && host->error_count == 1 && strstr(host->error, bad_path) != NULL,
          "%s: patch:Set of a bad path answered with an error on the notify port: \"%s\"", label, host->error);
    check(__atomic_load_n(&logged_errors, __ATOMIC_RELAXED) > errors_before, "%s: and with a log:log error line", label);
    int64_t after_bad = host->frame + 96000 + 17;
    TimedMessage again[2] = {{after_bad, 0x90, 69, 100}, {after_bad + 24000, 0x80, 69, 0}};
    play(host, &recording, again, 2, after_bad + 48000);
    check_note(&recording, after_bad, latency, 69, "after the bad path, the old instrument");

    // patch:Get is answered with the playing instrument.
    answers = host->loaded_count;
    send_patch(host, 0, NULL);
    run_until_answer(host, &recording, host->loaded_count + host->error_count, 10);
    check(host->loaded_count == answers + 1 && strcmp(host->loaded, font) == 0, "%s: patch:Get answered with %s", label, host->loaded);

    // Save, then restore into a fresh instance: the same instrument, gain and polyphony, the same samples.
    host->controls[host->polyphony_port] = 200;
    // As jalv saves: files the state names are linked from the state's folder (lilv 0.24, given no
    // link folder, removes the file at the path it names before linking it to itself).
    LilvState *state = lilv_state_new_from_instance(host->plugin, host->instance, &map, NULL, state_dir, state_dir, state_dir,
                                                    get_port_value, host, LV2_STATE_IS_POD | LV2_STATE_IS_PORTABLE, NULL);
    int saved = state && lilv_state_save(world, &map, &unmap, state, NULL, state_dir, "state.ttl") == 0;
    check(saved, "%s: state saved to %s/state.ttl", label, state_dir);
    lilv_state_free(state);
    char state_path[4096];
    snprintf(state_path, sizeof state_path, "%s/state.ttl", state_dir);
    Recording fresh_recording = {0};
    Host *fresh = restore_into_new_instance(world, state_path, block, on_grid, &fresh_recording, &answered);
    char *restored_real = realpath(fresh->loaded, NULL), *font_real = realpath(font, NULL);
    check(answered && restored_real && font_real && strcmp(restored_real, font_real) == 0 && fresh->controls[fresh->gain_port] == -6
              && fresh->controls[fresh->polyphony_port] == 200,
          "%s: a fresh instance restored from the state plays %s at gain %.1f dB, polyphony %.0f", label, fresh->loaded,
          fresh->controls[fresh->gain_port], fresh->controls[fresh->polyphony_port]);

    free(restored_real);
    free(font_real);

    // Both play on for 3 s in real time, so that what they stream from the file has caught up and
    // the notes before have died away; then the same chord on both, at the same place of the
    // renderer's 64-frame grid.
    for (int64_t frame = 0; frame < 3 * (int64_t)RATE; frame += block) {
        record_block(host, &recording);
        record_block(fresh, &fresh_recording);
        usleep((useconds_t)(block / RATE * 1e6));
    }
    int64_t reference = host->frame + 4 * block + 23;
    int64_t fresh_start = same_phase(fresh->frame + 4 * block, reference);
    TimedMessage chord[8], fresh_chord[8];
    for (int index = 0; index < 3; index++) {
        chord[2 * index] = (TimedMessage){reference, 0x90, (uint8_t)keys[index], 90};
        chord[2 * index + 1] = (TimedMessage){reference + 36000, 0x80, (uint8_t)keys[index], 0};
    }
    chord[6] = (TimedMessage){0, 0xB0, 91, 0};
    chord[7] = (TimedMessage){0, 0xB0, 93, 0};
    for (int index = 0; index < 8; index++) {
        fresh_chord[index] = chord[index];
        fresh_chord[index].frame = index < 6 ? chord[index].frame - reference + fresh_start : fresh->frame;
    }
    chord[6].frame = chord[7].frame = host->frame;
    play(host, &recording, chord, 8, reference + 72000);
    play(fresh, &fresh_recording, fresh_chord, 8, fresh_start + 72000);
    float largest = 0, difference = 0;
    for (int64_t index = 0; index < 72000; index++) {
        float value = recording.left[reference + index], other = fresh_recording.left[fresh_start + index];
        largest = fmaxf(largest, fabsf(value));
        difference = fmaxf(difference, fabsf(value - other));
    }
    check(largest > 1e-3f && difference <= 1e-6f * largest,
          "%s: the restored instance renders the chord as the saved one does (peak %.3f, largest difference %.1e)", label, largest, difference);

    // Polyphony: sixteen notes held one after another, 0.1 s apart (a FluidR3 piano note takes two
    // voices, one a side), with the whole pool and then with 16 voices. Each note's power at its
    // fundamental once the last has begun, both sides: limited, the first notes have been taken
    // over and the last sound as with the whole pool.
    double powers[2][16];
    for (int limited = 0; limited <= 1; limited++) {
        host->controls[host->polyphony_port] = limited ? 16 : 256;
        int64_t first = host->frame + 2 * block;
        TimedMessage notes[32];
        for (int index = 0; index < 16; index++) {
            notes[2 * index] = (TimedMessage){first + index * 4800, 0x90, (uint8_t)(48 + 2 * index), 100};
            notes[2 * index + 1] = (TimedMessage){first + 96000, 0x80, (uint8_t)(48 + 2 * index), 0};
        }
        play(host, &recording, notes, 32, first + 144000);
        int64_t start = first + 15 * 4800 + latency + 2400;
        float *both = malloc(16384 * sizeof(float));
        for (int frame = 0; frame < 16384; frame++) both[frame] = recording.left[start + frame] + recording.right[start + frame];
        for (int index = 0; index < 16; index++) powers[limited][index] = goertzel_power(both, 16384, note_hertz(48 + 2 * index));
        free(both);
    }
    double first_kept = 0, last_kept = INFINITY;
    for (int index = 0; index < 4; index++) first_kept = fmax(first_kept, powers[1][index] / powers[0][index]);
    for (int index = 14; index < 16; index++) last_kept = fmin(last_kept, powers[1][index] / powers[0][index]);
    check(first_kept < 1e-2 && last_kept > 0.5,
          "%s: polyphony 16 against 256, sixteen held two-voice notes: the first four keep at most %.1e of their power, "
          "the last two at least %.2f", label, first_kept, last_kept);

    // The session moved without the file beside it: the saved absolute path finds the instrument.
    char link_path[4096];
    snprintf(link_path, sizeof link_path, "%s/%s", state_dir, strrchr(font, '/') + 1);
    int unlinked = unlink(link_path) == 0;
    Recording moved_recording = {0};
    Host *moved = restore_into_new_instance(world, state_path, block, on_grid, &moved_recording, &answered);
    check(unlinked && answered && strcmp(moved->loaded, font) == 0,
          "%s: with the state's own link to the file gone, restore finds it by its absolute path: %s", label, moved->loaded);
    free(moved_recording.left);
    free(moved_recording.right);

    long allocations = host->run_allocations + fresh->run_allocations + moved->run_allocations;
    long frees = host->run_frees + fresh->run_frees + moved->run_frees;
    long calls = host->runs + fresh->runs + moved->runs;
    host_free(moved);
    check(staccato_allocation_counting_available() && allocations == 0 && frees == 0,
          "%s: run() and work_response() made %ld allocations and %ld frees in %ld calls", label, allocations, frees,
          calls);
    host_free(fresh);
    host_free(host);
    free(recording.left);
    free(recording.right);
    free(fresh_recording.left);
    free(fresh_recording.right);

    // lilv unloads a plug-in's code when its last instance is freed. Threads the plug-in's runtime
    // started and cannot join (Dispatch's workers, from the parallel decoding, idle up to 5 s
    // before they end) must not wake into code that is gone: the host lives on past that.
    sleep(6);
    check(1, "%s: 6 s after the last instance was freed, the host runs on (no thread of the plug-in's woke into unloaded code)",
          label);
    return failures;
}

// MARK: switch

static void make_real_time(void) {
    struct sched_param parameters = {.sched_priority = 70};
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) != 0) {
        printf("note: SCHED_FIFO refused; the audio thread runs at normal priority\n");
    }
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int run_switch(LilvWorld *world, const char *font, const char *big_font) {
    const uint32_t block = 256;
    Host *host = host_new(world, STACCATO, block, 1);
    Recording recording = {0};
    // With no instrument chosen, the system's General MIDI font loads by itself.
    check(run_until_answer(host, &recording, 0, 120) && strncmp(host->loaded, "/usr/share/sound", 16) == 0,
          "switch: with no instrument chosen it played the system's General MIDI font: %s", host->loaded);
    send_patch(host, urid.instrument, font);
    check(run_until_answer(host, &recording, 1, 120) && strcmp(host->loaded, font) == 0, "switch: %s loaded next", font);

    make_real_time();
    double period = block / RATE;
    long capacity = (long)(120 / period);
    double *durations = malloc(capacity * sizeof(double));
    long count = 0, over = 0;
    float *left = malloc(block * sizeof(float)), *right = malloc(block * sizeof(float));
    double start = now_seconds();
    double asked = -1, answered_at = -1;
    int answers = host->loaded_count + host->error_count;
    float loudest_after = 0;
    unsigned seed = 1;
    int held[8] = {0};
    for (long index = 0; index < capacity; index++) {
        double elapsed = index * period;
        if (asked < 0 && elapsed >= 0.5) {
            send_patch(host, urid.instrument, big_font);
            asked = elapsed;
        }
        // A note every 100 ms on channels 1-8 with their own programs, each held 400 ms.
        if (index % (long)(0.1 / period) == 0) {
            int channel = (index / (long)(0.1 / period)) % 8;
            if (held[channel]) send_midi(host, 0, 0x80 | channel, (uint8_t)held[channel], 0);
            seed = seed * 1103515245 + 12345;
            held[channel] = 48 + (seed >> 16) % 36;
            if (index < 8 * (long)(0.1 / period)) send_midi(host, 0, 0xC0 | channel, (uint8_t)(channel * 8), 0);
            send_midi(host, 7, 0x90 | channel, (uint8_t)held[channel], 90);
        }
        double before = now_seconds();
        run_block(host, left, right);
        double duration = now_seconds() - before;
        durations[count++] = duration;
        if (duration > period) over++;
        if (answered_at < 0 && host->loaded_count + host->error_count > answers) answered_at = elapsed;
        if (answered_at >= 0) loudest_after = fmaxf(loudest_after, peak(left, block));
        // On for 10 s after it is in, while the rest of the font decodes in the background.
        if (answered_at >= 0 && elapsed > answered_at + 10) break;
        // Paced as a device would: the next block when its period comes.
        struct timespec next;
        double target = start + (index + 1) * period;
        next.tv_sec = (time_t)target;
        next.tv_nsec = (long)((target - next.tv_sec) * 1e9);
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    qsort(durations, count, sizeof(double), compare_doubles);
    check(answered_at >= 0 && strcmp(host->loaded, big_font) == 0,
          "switch: %s loaded while playing, reported %.2f s after it was asked for", big_font, answered_at - asked);
    check(loudest_after > 1e-3f, "switch: notes sound on it (peak %.3f)", loudest_after);
    check(over == 0,
          "switch: %ld blocks of %u frames (%.2f ms each): longest run() %.3f ms, 99.9th percentile %.3f ms, median %.3f ms; %ld over the block's duration",
          count, block, period * 1e3, durations[count - 1] * 1e3, durations[(long)(count * 0.999)] * 1e3,
          durations[count / 2] * 1e3, over);
    check(host->run_allocations == 0, "switch: run() made %ld allocations during the switch", host->run_allocations);
    host_free(host);
    free(durations);
    free(left);
    free(right);
    return failures;
}

// MARK: bench

// A Standard MIDI File's channel messages, each at its frame at 48 kHz (tempo changes followed).
typedef struct {
    TimedMessage *messages;
    int count;
    int64_t end;
} Song;

static uint32_t read_variable(const uint8_t **cursor, const uint8_t *end) {
    uint32_t value = 0;
    while (*cursor < end) {
        uint8_t byte = *(*cursor)++;
        value = (value << 7) | (byte & 0x7F);
        if (!(byte & 0x80)) break;
    }
    return value;
}

typedef struct {
    uint64_t tick;
    int track;
    int order;
    TimedMessage message;
    uint32_t tempo;  // nonzero: a tempo change
} TickEvent;

static int compare_ticks(const void *a, const void *b) {
    const TickEvent *x = a, *y = b;
    if (x->tick != y->tick) return x->tick < y->tick ? -1 : 1;
    if ((x->tempo != 0) != (y->tempo != 0)) return x->tempo ? -1 : 1;
    if (x->track != y->track) return x->track - y->track;
    return x->order - y->order;
}

static Song read_song(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        fprintf(stderr, "lv2-host: cannot open %s\n", path);
        exit(2);
    }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    uint8_t *bytes = malloc(size);
    if (fread(bytes, 1, size, file) != (size_t)size) exit(2);
    fclose(file);
    if (size < 14 || memcmp(bytes, "MThd", 4) != 0) {
        fprintf(stderr, "lv2-host: %s is no MIDI file\n", path);
        exit(2);
    }
    int tracks = bytes[10] << 8 | bytes[11];
    int division = bytes[12] << 8 | bytes[13];
    TickEvent *events = NULL;
    int count = 0, capacity = 0;
    const uint8_t *cursor = bytes + 14, *end = bytes + size;
    for (int track = 0; track < tracks && cursor + 8 <= end; track++) {
        uint32_t length = (uint32_t)cursor[4] << 24 | cursor[5] << 16 | cursor[6] << 8 | cursor[7];
        const uint8_t *chunk = cursor + 8, *chunk_end = chunk + length > end ? end : chunk + length;
        cursor = chunk_end;
        uint64_t tick = 0;
        uint8_t running = 0;
        int order = 0;
        while (chunk < chunk_end) {
            tick += read_variable(&chunk, chunk_end);
            if (chunk >= chunk_end) break;
            uint8_t status = *chunk;
            if (status & 0x80) chunk++; else status = running;
            if (status == 0xFF) {
                uint8_t type = *chunk++;
                uint32_t meta_length = read_variable(&chunk, chunk_end);
                if (type == 0x51 && meta_length == 3) {
                    if (count == capacity) events = realloc(events, (capacity = capacity * 2 + 256) * sizeof *events);
                    events[count++] = (TickEvent){tick, track, order++, {0}, (uint32_t)chunk[0] << 16 | chunk[1] << 8 | chunk[2]};
                }
                chunk += meta_length;
                continue;
            }
            if (status == 0xF0 || status == 0xF7) {
                chunk += read_variable(&chunk, chunk_end);
                continue;
            }
            running = status;
            int data_count = (status & 0xF0) == 0xC0 || (status & 0xF0) == 0xD0 ? 1 : 2;
            uint8_t data1 = chunk < chunk_end ? chunk[0] : 0, data2 = data_count == 2 && chunk + 1 < chunk_end ? chunk[1] : 0;
            chunk += data_count;
            if (count == capacity) events = realloc(events, (capacity = capacity * 2 + 256) * sizeof *events);
            events[count++] = (TickEvent){tick, track, order++, {0, status, data1, data2}, 0};
        }
    }
    qsort(events, count, sizeof *events, compare_ticks);
    Song song = {calloc(count + 1, sizeof(TimedMessage)), 0, 0};
    double seconds = 0, tempo = 500000;
    uint64_t last_tick = 0;
    for (int index = 0; index < count; index++) {
        seconds += (events[index].tick - last_tick) * tempo / 1e6 / division;
        last_tick = events[index].tick;
        if (events[index].tempo) {
            tempo = events[index].tempo;
            continue;
        }
        TimedMessage message = events[index].message;
        message.frame = (int64_t)(seconds * RATE);
        song.messages[song.count++] = message;
    }
    song.end = (int64_t)(seconds * RATE);
    free(events);
    free(bytes);
    return song;
}

static int run_bench(LilvWorld *world, const char *uri, const char *midi_path, uint32_t block, const char *property, const char *file,
                     double seconds) {
    Song song = read_song(midi_path);
    Host *host = host_new(world, uri, block, block % 64 == 0);
    Recording recording = {0};
    double load_start = now_seconds();
    if (property && file) {
        send_patch(host, map_uri(NULL, property), file);
        urid.instrument = map_uri(NULL, property);
        run_until_answer(host, &recording, 0, 120);
    }
    // Whatever the plug-in still reads in the background settles before the clock starts.
    while (now_seconds() < load_start + 8) {
        record_block(host, &recording);
        usleep(2000);
    }
    float *left = malloc(block * sizeof(float)), *right = malloc(block * sizeof(float));
    const int passes = 3;
    double times[3];
    int64_t frames = seconds > 0 ? (int64_t)(seconds * RATE) : song.end + (int64_t)(2 * RATE);
    float loudest = 0;
    for (int pass = 0; pass < passes; pass++) {
        for (int channel = 0; channel < 16; channel++) send_midi(host, 0, 0xB0 | channel, 123, 0);
        int next = 0;
        double start = now_seconds();
        for (int64_t frame = 0; frame < frames; frame += block) {
            while (next < song.count && song.messages[next].frame < frame + block) {
                TimedMessage *message = &song.messages[next++];
                int64_t offset = message->frame - frame;
                send_midi(host, (uint32_t)(offset < 0 ? 0 : offset), message->status, message->data1, message->data2);
            }
            run_block(host, left, right);
            loudest = fmaxf(loudest, peak(left, block));
        }
        times[pass] = now_seconds() - start;
    }
    qsort(times, passes, sizeof(double), compare_doubles);
    printf("{\"plugin\": \"%s\", \"block\": %u, \"audio_seconds\": %.3f, \"median_seconds\": %.4f, \"min_seconds\": %.4f, "
           "\"max_seconds\": %.4f, \"realtime_factor\": %.2f, \"peak\": %.4f, \"run_allocations\": %ld}\n",
           uri, block, frames / RATE, times[1], times[0], times[2], frames / RATE / times[1], loudest, host->run_allocations);
    host_free(host);
    return loudest > 1e-4f ? 0 : 1;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    LilvWorld *world = lilv_world_new();
    lilv_world_load_all(world);
    map_uris();
    int result;
    if (argc == 6 && strcmp(argv[1], "check") == 0) {
        result = run_check(world, (uint32_t)atoi(argv[2]), argv[3], argv[4], argv[5]);
    } else if (argc == 4 && strcmp(argv[1], "switch") == 0) {
        result = run_switch(world, argv[2], argv[3]);
    } else if ((argc == 5 || argc == 7 || argc == 8) && strcmp(argv[1], "bench") == 0) {
        result = run_bench(world, argv[2], argv[3], (uint32_t)atoi(argv[4]), argc >= 7 ? argv[5] : NULL, argc >= 7 ? argv[6] : NULL,
                           argc == 8 ? atof(argv[7]) : 0);
    } else {
        fprintf(stderr, "usage: lv2-host check BLOCK FONT BAD_PATH STATE_DIR | switch FONT BIG_FONT | bench URI MIDI BLOCK [PROPERTY FILE [SECONDS]]\n");
        return 2;
    }
    lilv_world_free(world);
    return result;
}
