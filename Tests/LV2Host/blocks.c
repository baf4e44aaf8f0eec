// Running an instance block by block: the messages sent into each block, the worker's answers and
// the notify port's, and recordings of what it plays.
#include "lv2-host.h"

#include <lv2/atom/atom.h>
#include <lv2/atom/util.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "CAllocationCounter.h"

double now_seconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return time.tv_sec + time.tv_nsec * 1e-9;
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
void send_midi(Host *host, uint32_t offset, uint8_t status, uint8_t data1, uint8_t data2) {
    LV2_Atom_Forge *forge = block_forge(host);
    uint8_t bytes[3] = {status, data1, data2};
    lv2_atom_forge_frame_time(forge, offset);
    lv2_atom_forge_atom(forge, (status & 0xF0) == 0xC0 ? 2 : 3, urid.midi_event);
    lv2_atom_forge_write(forge, bytes, (status & 0xF0) == 0xC0 ? 2 : 3);
}

// A patch:Set of `property` to the path `path` (or a patch:Get of nothing, path NULL).
void send_patch(Host *host, LV2_URID property, const char *path) {
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
void run_block(Host *host, float *left, float *right) {
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

void record_block(Host *host, Recording *recording) {
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
int run_until_answer(Host *host, Recording *recording, int answers_before, double seconds) {
    double deadline = now_seconds() + seconds;
    while (host->loaded_count + host->error_count <= answers_before && now_seconds() < deadline) {
        record_block(host, recording);
        usleep(200);
    }
    return host->loaded_count + host->error_count > answers_before;
}

// Renders until `end`, sending each message in the block that holds its frame.
void play(Host *host, Recording *recording, const TimedMessage *messages, int count, int64_t end) {
    while (host->frame < end) {
        for (int index = 0; index < count; index++) {
            if (messages[index].frame >= host->frame && messages[index].frame < host->frame + host->block) {
                send_midi(host, (uint32_t)(messages[index].frame - host->frame), messages[index].status, messages[index].data1, messages[index].data2);
            }
        }
        record_block(host, recording);
    }
}
