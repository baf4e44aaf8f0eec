#!/usr/bin/env python3
"""Voices per core for Debian's FluidSynth, measured the way staccato-bench measures Staccato.

Drives libfluidsynth through ctypes (no Python package needed): loads the font, holds the same
notes (sustain pedal down on 15 melodic channels), renders 64-frame blocks with
fluid_synth_write_float on one thread, and counts active voices every block. Prints one JSON
line: {"voice_frames_per_second": ..., "voices_per_core": ..., "mean_voices": ...}.

usage: fluidsynth_polyphony.py FONT.sf2 NOTES SECONDS [RATE] [wall|cpu]
Reverb and chorus are off; interpolation is FluidSynth's default (4th order). `cpu` times the
rendering thread's CPU time instead of wall time, as staccato-bench polyphony --cpu-time does.
"""
import ctypes, ctypes.util, json, sys, time

font, notes, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rate = float(sys.argv[4]) if len(sys.argv) > 4 else 48000.0
clock = sys.argv[5] if len(sys.argv) > 5 else "wall"
if clock not in ("wall", "cpu"):
    sys.exit(f"fluidsynth_polyphony: clock must be wall or cpu, not {clock}")
now = time.thread_time if clock == "cpu" else time.perf_counter
name = ctypes.util.find_library("fluidsynth") or "libfluidsynth.so.3"
fs = ctypes.CDLL(name)
fs.new_fluid_settings.restype = ctypes.c_void_p
fs.new_fluid_synth.restype = ctypes.c_void_p
fs.new_fluid_synth.argtypes = [ctypes.c_void_p]
for function in ("fluid_settings_setint", "fluid_settings_setnum"):
    getattr(fs, function).argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                      ctypes.c_int if function.endswith("int") else ctypes.c_double]
fs.fluid_synth_sfload.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
for function in ("fluid_synth_noteon", "fluid_synth_cc"):
    getattr(fs, function).argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
fs.fluid_synth_write_float.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                       ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
fs.fluid_synth_get_active_voice_count.argtypes = [ctypes.c_void_p]

settings = fs.new_fluid_settings()
fs.fluid_settings_setnum(settings, b"synth.sample-rate", rate)
fs.fluid_settings_setint(settings, b"synth.polyphony", 4096)  # the same pool size Staccato gets
fs.fluid_settings_setint(settings, b"synth.reverb.active", 0)
fs.fluid_settings_setint(settings, b"synth.chorus.active", 0)
fs.fluid_settings_setint(settings, b"synth.cpu-cores", 1)
synth = fs.new_fluid_synth(settings)
if fs.fluid_synth_sfload(synth, font.encode(), 1) < 0:
    sys.exit(f"fluidsynth_polyphony: cannot load {font}")

melodic = [c for c in range(16) if c != 9]
for channel in melodic:
    fs.fluid_synth_cc(synth, channel, 64, 127)
for index in range(notes):
    fs.fluid_synth_noteon(synth, melodic[index % 15], 21 + (index // 15) % 88, 100)

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
