// lv2-host bench: how fast a plug-in renders a Standard MIDI File.
#include "lv2-host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int run_bench(LilvWorld *world, const char *uri, const char *midi_path, uint32_t block, const char *property, const char *file,
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
