// An instance of a plug-in with the features it asks for, its ports connected to the host's
// buffers, and its worker thread.
#include "lv2-host.h"

#include <lv2/atom/atom.h>
#include <lv2/buf-size/buf-size.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: Worker

static int queue_push(MessageQueue *queue, uint32_t size, const void *data) {
    if (size > MESSAGE_BYTES || (queue->tail + 1) % QUEUE_LENGTH == queue->head) return 0;
    memcpy(queue->bytes[queue->tail], data, size);
    queue->sizes[queue->tail] = size;
    queue->tail = (queue->tail + 1) % QUEUE_LENGTH;
    return 1;
}

// MARK: The host

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

int port_is(const Host *host, const LilvPort *port, const char *class_uri) {
    LilvNode *node = lilv_new_uri(host->world, class_uri);
    int is = lilv_port_is_a(host->plugin, port, node);
    lilv_node_free(node);
    return is;
}

// An instance of `uri` at 48 kHz in blocks of `block` frames; `on_grid`: the host promises blocks
// of a fixed length (bufsz:fixedBlockLength, powerOf2BlockLength), as JACK's periods are.
Host *host_new(LilvWorld *world, const char *uri, uint32_t block, int on_grid) {
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

void host_free(Host *host) {
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
