// The checks' lines and count, and the measures of recordings they judge by.
#include "lv2-host.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

int failures;

void check(int passed, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    printf("%s: ", passed ? "ok" : "FAIL");
    vprintf(format, arguments);
    printf("\n");
    fflush(stdout);
    va_end(arguments);
    if (!passed) failures++;
}

double goertzel_power(const float *samples, int count, double frequency) {
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

double note_hertz(int key) { return 440.0 * pow(2.0, (key - 69) / 12.0); }

float peak(const float *samples, int64_t count) {
    float largest = 0;
    for (int64_t index = 0; index < count; index++) largest = fmaxf(largest, fabsf(samples[index]));
    return largest;
}

// Checks a note played at `frame` (heard `latency` frames later): silence before it, sound from
// its first frames on, and its pitch.
void check_note(const Recording *recording, int64_t frame, int latency, int key, const char *label) {
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

int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
