"""The C ABI (libstaccato.so, declared in Sources/Fronts/CStaccato/include/staccato.h) through ctypes.

ctypes releases the GIL for the length of every call into the library, and takes it again for
each callback the library makes from its own threads.
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _library_path() -> str:
    """The library packed into the package (lib/), or the one STACCATO_LIBRARY names."""
    override = os.environ.get("STACCATO_LIBRARY")
    if override:
        return override
    packed = sorted((_HERE / "lib").glob("libstaccato.so*"))
    if not packed:
        raise ImportError(f"staccato: no libstaccato.so in {_HERE / 'lib'}: reinstall the package (pip install ./python)")
    return str(packed[0])


lib = ctypes.CDLL(_library_path())

c_float_p = ctypes.POINTER(ctypes.c_float)
LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)
BATCH_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_char_p)


class Preset(ctypes.Structure):
    _fields_ = [("bank", ctypes.c_int), ("program", ctypes.c_int), ("name", ctypes.c_char_p)]


class RenderOptions(ctypes.Structure):
    _fields_ = [
        ("sample_rate", ctypes.c_double),
        ("threads", ctypes.c_int),
        ("effects", ctypes.c_int),
        ("program", ctypes.c_int),
        ("gain_db", ctypes.c_float),
        ("voices", ctypes.c_int),
        ("linear_interpolation", ctypes.c_int),
        ("log", LOG_CALLBACK),
        ("log_user_data", ctypes.c_void_p),
    ]


def _declare(name: str, restype, *argtypes) -> None:
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = list(argtypes)


_declare("staccato_version", ctypes.c_char_p)
_declare("staccato_last_error", ctypes.c_char_p)
_declare("staccato_instrument_load", ctypes.c_void_p, ctypes.c_char_p, ctypes.c_double)
_declare("staccato_instrument_free", None, ctypes.c_void_p)
_declare("staccato_instrument_path", ctypes.c_char_p, ctypes.c_void_p)
_declare("staccato_instrument_preset_count", ctypes.c_int, ctypes.c_void_p)
_declare("staccato_instrument_preset", ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(Preset))
_declare("staccato_synth_new", ctypes.c_void_p, ctypes.c_double, ctypes.c_int)
_declare("staccato_synth_free", None, ctypes.c_void_p)
_declare("staccato_synth_load", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
_declare("staccato_synth_use", ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
_declare("staccato_synth_midi", ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t)
_declare("staccato_synth_render", None, ctypes.c_void_p, c_float_p, c_float_p, ctypes.c_uint32)
_declare("staccato_synth_set_volume", None, ctypes.c_void_p, ctypes.c_float)
_declare("staccato_synth_volume", ctypes.c_float, ctypes.c_void_p)
_declare("staccato_synth_active_voices", ctypes.c_int, ctypes.c_void_p)
_declare("staccato_synth_frames_rendered", ctypes.c_uint64, ctypes.c_void_p)
_declare("staccato_synth_set_log_callback", None, ctypes.c_void_p, LOG_CALLBACK, ctypes.c_void_p)
_declare("staccato_render_options_init", None, ctypes.POINTER(RenderOptions))
_declare("staccato_render_file", ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_double, ctypes.c_char_p)
_declare("staccato_render_song", ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(RenderOptions))
_declare("staccato_render_song_bytes", ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p,
         ctypes.POINTER(RenderOptions))
_declare("staccato_render_song_to_file", ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(RenderOptions),
         ctypes.c_char_p)
_declare("staccato_audio_frame_count", ctypes.c_uint64, ctypes.c_void_p)
_declare("staccato_audio_samples", c_float_p, ctypes.c_void_p)
_declare("staccato_audio_free", None, ctypes.c_void_p)
_declare("staccato_render_batch", ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.c_void_p,
         ctypes.POINTER(RenderOptions), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, BATCH_CALLBACK, ctypes.c_void_p)


def last_error() -> str:
    return (lib.staccato_last_error() or b"").decode("utf-8", "replace")
