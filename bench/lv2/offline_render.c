// Staccato's own offline render of a song, timed in the process (the instrument loaded once, before
// the clock starts), for the LV2 comparison beside the plug-in's render of the same song
// (bench/lv2/compare-plugins). Prints one JSON line.
//   offline_render INSTRUMENT MIDI [PASSES]
#include <staccato.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_seconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return time.tv_sec + time.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: offline_render INSTRUMENT MIDI [PASSES]\n");
        return 2;
    }
    int passes = argc > 3 ? atoi(argv[3]) : 3;
    staccato_render_options options;
    staccato_render_options_init(&options);
    options.threads = 1;  // as the plug-in renders: on the host's one audio thread
    staccato_instrument *instrument = staccato_instrument_load(argv[1], options.sample_rate);
    if (!instrument) {
        fprintf(stderr, "offline_render: %s\n", staccato_last_error());
        return 1;
    }
    double times[64];
    double seconds = 0;
    for (int pass = 0; pass < passes && pass < 64; pass++) {
        double start = now_seconds();
        staccato_audio *audio = staccato_render_song(argv[2], instrument, &options);
        times[pass] = now_seconds() - start;
        if (!audio) {
            fprintf(stderr, "offline_render: %s\n", staccato_last_error());
            return 1;
        }
        seconds = staccato_audio_frame_count(audio) / options.sample_rate;
        staccato_audio_free(audio);
    }
    qsort(times, passes, sizeof(double), compare_doubles);
    printf("{\"renderer\": \"staccato offline\", \"audio_seconds\": %.3f, \"median_seconds\": %.4f, \"min_seconds\": %.4f, "
           "\"max_seconds\": %.4f, \"realtime_factor\": %.2f}\n",
           seconds, times[passes / 2], times[0], times[passes - 1], seconds / times[passes / 2]);
    staccato_instrument_free(instrument);
    return 0;
}
