#!/usr/bin/env python3
"""A note-on burst for Debian's FluidSynth, measured the way staccato-bench burst measures Staccato.

Drives libfluidsynth through ctypes: loads the font with a 256-voice polyphony, renders a few
64-frame blocks of silence, then times the burst's block (NOTES note-ons, which FluidSynth handles
in fluid_synth_noteon, and one 64-frame fluid_synth_write_float) and each of the BLOCKS - 1 blocks
after it. Voice allocations FluidSynth gives up on are counted from its warnings ("Failed to
allocate a synthesis process"). Prints one JSON line.

usage: fluidsynth_burst.py FONT.sf2 NOTES BLOCKS KEY,KEY,... [RATE]
Reverb and chorus are off; notes are those of Sources/Fronts/staccato-bench/HeldNotes.swift (the melodic channels in
turn, then the next of KEYS), velocity 100, no pedal.
"""
import ctypes, json, sys, time
from fluidsynth_ctypes import MELODIC, fs, open_synth

font, notes, blocks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
keys = [int(key) for key in sys.argv[4].split(",")]
rate = float(sys.argv[5]) if len(sys.argv) > 5 else 48000.0

failed = 0
LOG = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
def count_failures(level, message, data):
    global failed
    if message and b"allocate" in message:
        failed += 1
log = LOG(count_failures)
fs.fluid_set_log_function.argtypes = [ctypes.c_int, LOG, ctypes.c_void_p]
fs.fluid_set_log_function(2, log, None)  # FLUID_WARN
synth = open_synth(font, 256, rate)  # Staccato's default voice pool

block = 64
left = (ctypes.c_float * block)()
right = (ctypes.c_float * block)()
for _ in range(16):
    fs.fluid_synth_write_float(synth, block, left, 0, 1, right, 0, 1)
times = []
start = time.perf_counter()
for index in range(notes):
    fs.fluid_synth_noteon(synth, MELODIC[index % 15], keys[(index // 15) % len(keys)], 100)
fs.fluid_synth_write_float(synth, block, left, 0, 1, right, 0, 1)
times.append(time.perf_counter() - start)
voices = fs.fluid_synth_get_active_voice_count(synth)
for _ in range(blocks - 1):
    start = time.perf_counter()
    fs.fluid_synth_write_float(synth, block, left, 0, 1, right, 0, 1)
    times.append(time.perf_counter() - start)
# What NOTES calls through ctypes cost by themselves (a trivial getter), charged to the burst block
# above: reported beside it, not subtracted.
start = time.perf_counter()
for index in range(notes):
    fs.fluid_synth_get_polyphony(synth)
call_overhead = time.perf_counter() - start
print(json.dumps({"burst_block_ns": times[0] * 1e9, "worst_block_ns": max(times) * 1e9,
                  "voices_after": voices, "failed_voice_allocations": failed,
                  "ctypes_calls_ns": call_overhead * 1e9}))
