#!/usr/bin/env python3
"""Voices per core for Debian's FluidSynth, measured the way staccato-bench measures Staccato.

Drives libfluidsynth through ctypes (fluidsynth_ctypes.py): loads the font, holds the same
notes (sustain pedal down on 15 melodic channels), renders 64-frame blocks with
fluid_synth_write_float on one thread, and counts active voices every block. Prints one JSON
line: {"voice_frames_per_second": ..., "voices_per_core": ..., "mean_voices": ...}.

usage: fluidsynth_polyphony.py FONT.sf2 NOTES SECONDS [RATE] [wall|cpu] [PROGRAM] [BANK]
Reverb and chorus are off; interpolation is FluidSynth's default (4th order). `cpu` times the
rendering thread's CPU time instead of wall time, as staccato-bench polyphony --cpu-time does.
PROGRAM and BANK (default 0 and 0) select what every melodic channel plays (--program BANK:PROGRAM);
the keys struck are 21-108 whatever the program plays.
"""
import ctypes, json, sys, time
from fluidsynth_ctypes import MELODIC, fs, open_synth

font, notes, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rate = float(sys.argv[4]) if len(sys.argv) > 4 else 48000.0
clock = sys.argv[5] if len(sys.argv) > 5 else "wall"
program = int(sys.argv[6]) if len(sys.argv) > 6 else 0
bank = int(sys.argv[7]) if len(sys.argv) > 7 else 0
if clock not in ("wall", "cpu"):
    sys.exit(f"fluidsynth_polyphony: clock must be wall or cpu, not {clock}")
now = time.thread_time if clock == "cpu" else time.perf_counter
synth = open_synth(font, 4096, rate)  # the same pool size Staccato gets
for channel in MELODIC:
    fs.fluid_synth_bank_select(synth, channel, bank)
    fs.fluid_synth_program_change(synth, channel, program)
    fs.fluid_synth_cc(synth, channel, 64, 127)
for index in range(notes):
    fs.fluid_synth_noteon(synth, MELODIC[index % 15], 21 + (index // 15) % 88, 100)

block = 64
left = (ctypes.c_float * block)()
right = (ctypes.c_float * block)()
blocks = int(seconds * rate / block)
voice_frames = 0
elapsed = 0.0
# Counting voices walks FluidSynth's whole voice table, so it is done between timed stretches of
# 32 blocks and not charged to the render time.
for first in range(0, blocks, 32):
    count = min(32, blocks - first)
    voice_frames += fs.fluid_synth_get_active_voice_count(synth) * block * count
    start = now()
    for _ in range(count):
        fs.fluid_synth_write_float(synth, block, left, 0, 1, right, 0, 1)
    elapsed += now() - start
print(json.dumps({"voice_frames_per_second": voice_frames / elapsed,
                  "voices_per_core": voice_frames / elapsed / rate,
                  "mean_voices": voice_frames / (blocks * block),
                  "realtime_factor": blocks * block / rate / elapsed}))
