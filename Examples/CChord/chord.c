/* Plays a C major chord (C4 E4 G4) through a SoundFont with Staccato's C API, the way an
 * application's audio callback would: MIDI on the control side, 512-frame blocks rendered into
 * one buffer per channel. Writes the first three seconds as a 32-bit float WAV.
 *
 *   cc chord.c $(pkg-config --cflags --libs staccato) -o chord
 *   ./chord FONT.sf2 chord.wav
 *
 * The chord is held for one second; the same chord as a MIDI file renders to the same samples
 * with `staccato render`. */
#include <staccato.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RATE = 48000, BLOCK = 512, SECONDS = 3, NOTE_OFF_FRAME = RATE };

static void log_line(void *user_data, const char *line) {
    (void)user_data;
    fprintf(stderr, "chord: %s\n", line);
}

static void put_u32(FILE *file, unsigned value) {
    unsigned char bytes[4] = {value, value >> 8, value >> 16, value >> 24};
    fwrite(bytes, 1, 4, file);
}

static void put_u16(FILE *file, unsigned value) {
    unsigned char bytes[2] = {value, value >> 8};
    fwrite(bytes, 1, 2, file);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: chord FONT OUT.wav\n");
        return 2;
    }
    staccato_synth *synth = staccato_synth_new(RATE, BLOCK);
    if (!synth || (staccato_synth_set_log_callback(synth, log_line, NULL), staccato_synth_load(synth, argv[1])) != 0) {
        fprintf(stderr, "chord: %s\n", staccato_last_error());
        return 1;
    }
    const uint8_t keys[3] = {60, 64, 67};
    for (int i = 0; i < 3; i++) {
        const uint8_t on[3] = {0x90, keys[i], 100};
        staccato_synth_midi(synth, 0, on, 3);
    }
    const size_t frames = (size_t)RATE * SECONDS;
    float *left = malloc(frames * sizeof *left), *right = malloc(frames * sizeof *right);
    for (size_t start = 0; start < frames; start += BLOCK) {
        const uint32_t count = frames - start < BLOCK ? frames - start : BLOCK;
        /* The note-offs fall inside a block: they are sent with their offset in it. */
        if (start <= NOTE_OFF_FRAME && NOTE_OFF_FRAME < start + count)
            for (int i = 0; i < 3; i++) {
                const uint8_t off[3] = {0x80, keys[i], 0};
                staccato_synth_midi(synth, NOTE_OFF_FRAME - start, off, 3);
            }
        staccato_synth_render(synth, left + start, right + start, count);
    }
    staccato_synth_free(synth);

    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 1;
    }
    fwrite("RIFF", 1, 4, out); put_u32(out, 36 + 8 * frames); fwrite("WAVEfmt ", 1, 8, out);
    put_u32(out, 16); put_u16(out, 3); put_u16(out, 2); put_u32(out, RATE); put_u32(out, RATE * 8);
    put_u16(out, 8); put_u16(out, 32);
    fwrite("data", 1, 4, out); put_u32(out, 8 * frames);
    for (size_t i = 0; i < frames; i++) {
        fwrite(&left[i], sizeof(float), 1, out);
        fwrite(&right[i], sizeof(float), 1, out);
    }
    fclose(out);
    free(left);
    free(right);
    printf("chord: %zu frames written to %s with Staccato %s\n", frames, argv[2], staccato_version());
    return 0;
}
