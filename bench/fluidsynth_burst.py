#!/usr/bin/env python3
"""A note-on burst for Debian's FluidSynth, measured the way staccato-bench burst measures Staccato.

Drives libfluidsynth through ctypes: loads the font with a 256-voice polyphony, renders a few
64-frame blocks of silence, then times the burst's block (NOTES note-ons, which FluidSynth handles
in fluid_synth_noteon, and one 64-frame fluid_synth_write_float) and each of the BLOCKS - 1 blocks
after it. Voice allocations FluidSynth gives up on are counted from its warnings ("Failed to
allocate a synthesis process"). Prints one JSON line.

usage: fluidsynth_burst.py FONT.sf2 NOTES BLOCKS [RATE]
Reverb and chorus are off; notes are those of bench/Sources/HeldNotes.swift, velocity 100, no pedal.
"""
import ctypes, ctypes.util, json, sys, time

font, notes, blocks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rate = float(sys.argv[4]) if len(sys.argv) > 4 else 48000.0
fs = ctypes.CDLL(ctypes.util.find_library("fluidsynth") or "libfluidsynth.so.3")
fs.new_fluid_settings.restype = ctypes.c_void_p
fs.new_fluid_synth.restype = ctypes.c_void_p
fs.new_fluid_synth.argtypes = [ctypes.c_void_p]
fs.fluid_settings_setint.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
fs.fluid_settings_setnum.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_double]
fs.fluid_synth_sfload.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
fs.fluid_synth_noteon.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
fs.fluid_synth_write_float.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                       ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
fs.fluid_synth_get_active_voice_count.argtypes = [ctypes.c_void_p]

failed = 0
LOG = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
def count_failures(level, message, data):
    global failed
    if message and b"allocate" in message:
        failed += 1
log = LOG(count_failures)
fs.fluid_set_log_function.argtypes = [ctypes.c_int, LOG, ctypes.c_void_p]
fs.fluid_set_log_function(2, log, None)  # FLUID_WARN

settings = fs.new_fluid_settings()
fs.fluid_settings_setnum(settings, b"synth.sample-rate", rate)
fs.fluid_settings_setint(settings, b"synth.polyphony", 256)  # Staccato's default voice pool
fs.fluid_settings_setint(settings, b"synth.reverb.active", 0)
fs.fluid_settings_setint(settings, b"synth.chorus.active", 0)
fs.fluid_settings_setint(settings, b"synth.cpu-cores", 1)
synth = fs.new_fluid_synth(settings)
if fs.fluid_synth_sfload(synth, font.encode(), 1) < 0:
    sys.exit(f"fluidsynth_burst: cannot load {font}")

melodic = [c for c in range(16) if c != 9]
keys = list(range(21, 109)) + list(range(0, 21)) + list(range(109, 128))
block = 64
left = (ctypes.c_float * block)()
right = (ctypes.c_float * block)()
for _ in range(16):
    fs.fluid_synth_write_float(synth, block, left, 0, 1, right, 0, 1)
times = []
start = time.perf_counter()
for index in range(notes):
    fs.fluid_synth_noteon(synth, melodic[index % 15], keys[(index // 15) % len(keys)], 100)
fs.fluid_synth_write_float(synth, block, left, 0, 1, right, 0, 1)
times.append(time.perf_counter() - start)
voices = fs.fluid_synth_get_active_voice_count(synth)
for _ in range(blocks - 1):
    start = time.perf_counter()
    fs.fluid_synth_write_float(synth, block, left, 0, 1, right, 0, 1)
    times.append(time.perf_counter() - start)
# What NOTES calls through ctypes cost by themselves (a trivial getter), charged to the burst block
# above: reported beside it, not subtracted.
fs.fluid_synth_get_polyphony.argtypes = [ctypes.c_void_p]
start = time.perf_counter()
for index in range(notes):
    fs.fluid_synth_get_polyphony(synth)
call_overhead = time.perf_counter() - start
print(json.dumps({"burst_block_ns": times[0] * 1e9, "worst_block_ns": max(times) * 1e9,
                  "voices_after": voices, "failed_voice_allocations": failed,
                  "ctypes_calls_ns": call_overhead * 1e9}))
