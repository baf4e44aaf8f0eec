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
#include "lv2-host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
