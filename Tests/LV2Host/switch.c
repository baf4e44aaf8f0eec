// lv2-host switch: a big font loaded while notes play, blocks paced in real time.
#include "lv2-host.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void make_real_time(void) {
    struct sched_param parameters = {.sched_priority = 70};
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) != 0) {
        printf("note: SCHED_FIFO refused; the audio thread runs at normal priority\n");
    }
}

int run_switch(LilvWorld *world, const char *font, const char *big_font) {
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
