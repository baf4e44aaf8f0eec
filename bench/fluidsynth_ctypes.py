"""libfluidsynth through ctypes (no Python package needed), set up as the benchmarks compare it:
reverb and chorus off, one CPU core, FluidSynth's default (4th-order) interpolation."""
import ctypes, ctypes.util, sys

fs = ctypes.CDLL(ctypes.util.find_library("fluidsynth") or "libfluidsynth.so.3")
fs.new_fluid_settings.restype = ctypes.c_void_p
fs.new_fluid_synth.restype = ctypes.c_void_p
fs.new_fluid_synth.argtypes = [ctypes.c_void_p]
fs.fluid_settings_setint.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
fs.fluid_settings_setnum.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_double]
fs.fluid_synth_sfload.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
for function in ("fluid_synth_noteon", "fluid_synth_cc"):
    getattr(fs, function).argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
for function in ("fluid_synth_program_change", "fluid_synth_bank_select"):
    getattr(fs, function).argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
fs.fluid_synth_write_float.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                       ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
fs.fluid_synth_get_active_voice_count.argtypes = [ctypes.c_void_p]
fs.fluid_synth_get_polyphony.argtypes = [ctypes.c_void_p]

MELODIC = [channel for channel in range(16) if channel != 9]


def open_synth(font, polyphony, rate):
    """A synth with `font` loaded, or exit with one line naming the font."""
    settings = fs.new_fluid_settings()
    fs.fluid_settings_setnum(settings, b"synth.sample-rate", rate)
    fs.fluid_settings_setint(settings, b"synth.polyphony", polyphony)
    fs.fluid_settings_setint(settings, b"synth.reverb.active", 0)
    fs.fluid_settings_setint(settings, b"synth.chorus.active", 0)
    fs.fluid_settings_setint(settings, b"synth.cpu-cores", 1)
    synth = fs.new_fluid_synth(settings)
    if fs.fluid_synth_sfload(synth, font.encode(), 1) < 0:
        sys.exit(f"{sys.argv[0]}: cannot load {font}")
    return synth
