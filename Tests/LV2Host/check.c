// lv2-host check: notes at their frames and pitches, a bad path, state saved and restored,
// polyphony, and run()'s heap calls.
#include "lv2-host.h"

#include <lv2/state/state.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "CAllocationCounter.h"

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

int run_check(LilvWorld *world, uint32_t block, const char *font, const char *bad_path, const char *state_dir) {
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
