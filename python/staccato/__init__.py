"""Staccato: render MIDI through SoundFonts (SF2, SF3) and SFZ instruments, fast, from Python.

    import staccato
    audio = staccato.render("song.mid")                 # float32, shape (frames, 2), 48 kHz
    piano = staccato.Instrument("/usr/share/sounds/sf2/FluidR3_GM.sf2")
    for result in staccato.render_many(paths, piano):   # every core, in input order
        ...

The work happens in libstaccato (packed inside this package, with its runtime): every call
releases the GIL while it runs, so Python threads render side by side, and one loaded instrument
serves every render in the process. The samples are those `staccato render` writes with the same
options, bit for bit.
"""
from __future__ import annotations

import ctypes
import errno
import os
import queue
import threading
import warnings
from pathlib import Path
from typing import Iterator, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _native
from ._native import lib

__all__ = ["Error", "NotFoundError", "StaccatoWarning", "Preset", "Instrument", "Synth", "render", "render_file", "render_many",
           "version", "__version__"]

PathLike = Union[str, "os.PathLike[str]"]

#: The sample rate everything defaults to, as the `staccato` command's.
DEFAULT_RATE = 48_000


def version() -> str:
    """The library's version, MAJOR.MINOR.PATCH."""
    return lib.staccato_version().decode()


__version__ = version()


class Error(Exception):
    """A failure, with the one line the `staccato` command prints for it (the file at fault and what is wrong)."""


class NotFoundError(Error, FileNotFoundError):
    """A file that is not there: both a `staccato.Error` and a `FileNotFoundError`."""

    def __init__(self, line: str, path: str):
        FileNotFoundError.__init__(self, errno.ENOENT, line, path)
        self.line = line

    def __str__(self) -> str:
        return self.line


class StaccatoWarning(UserWarning):
    """What the `staccato` command says as a warning: presets a font lacks and what plays instead,
    samples left out, a song that rendered silent."""


class Preset(NamedTuple):
    bank: int
    program: int
    name: str


def _failure(*paths: Optional[str], line: Optional[str] = None) -> Error:
    """`line` (by default the calling thread's last library error) as the exception for it: a
    `NotFoundError` when one of `paths` is not there."""
    if line is None:
        line = _native.last_error()
    for path in paths:
        if path is not None and not os.path.exists(path):
            return NotFoundError(line, path)
    return Error(line)


class _LogLines:
    """Collects the library's warning lines (from any thread), to be warned on the caller's."""

    def __init__(self) -> None:
        self.lines: "queue.SimpleQueue[str]" = queue.SimpleQueue()
        self.callback = _native.LOG_CALLBACK(lambda _user, line: self.lines.put(line.decode("utf-8", "replace")))

    def warn(self, stacklevel: int = 3) -> None:
        while not self.lines.empty():
            warnings.warn(self.lines.get(), StaccatoWarning, stacklevel=stacklevel)


class Instrument:
    """A SoundFont (.sf2, .sf3), an SFZ instrument or a folder of recordings, loaded once and shared
    read-only by every render and synth in the process, on any number of threads at once.

    `path` None is the system's General MIDI font, as the `staccato` command chooses it
    (STACCATO_SOUNDFONT, then Debian's fonts, then the font Staccato ships with). The instrument is
    loaded at `rate`; a render at another rate loads it once more at that rate, and keeps it.
    """

    def __init__(self, path: Optional[PathLike] = None, *, rate: int = DEFAULT_RATE):
        self._requested = os.fspath(path) if path is not None else None
        self._handles: dict[int, int] = {}
        self._lock = threading.Lock()
        handle = self._handle(rate)
        self.path: str = lib.staccato_instrument_path(handle).decode()
        self.rate = rate

    def _handle(self, rate: int) -> int:
        with self._lock:
            handle = self._handles.get(rate)
            if handle is None:
                encoded = self._requested.encode() if self._requested is not None else None
                handle = lib.staccato_instrument_load(encoded, float(rate))
                if not handle:
                    raise _failure(self._requested)
                self._handles[rate] = handle
            return handle

    @property
    def presets(self) -> list[Preset]:
        """Every preset, in bank and program order (bank 128: drum kits)."""
        handle = self._handle(self.rate)
        entry = _native.Preset()
        presets = []
        for index in range(lib.staccato_instrument_preset_count(handle)):
            lib.staccato_instrument_preset(handle, index, ctypes.byref(entry))
            presets.append(Preset(entry.bank, entry.program, entry.name.decode("utf-8", "replace")))
        return presets

    def __repr__(self) -> str:
        return f"staccato.Instrument({self.path!r}, rate={self.rate})"

    def __del__(self) -> None:
        for handle in getattr(self, "_handles", {}).values():
            lib.staccato_instrument_free(handle)


_instruments: dict[tuple[Optional[str], int], Instrument] = {}
_instruments_lock = threading.Lock()


def _instrument(instrument: Union[None, PathLike, Instrument], rate: int) -> Instrument:
    """`instrument` itself, or the one loaded for its path (None: the default font), kept for the
    process so that rendering many songs loads a font once."""
    if isinstance(instrument, Instrument):
        return instrument
    key = (os.path.realpath(os.fspath(instrument)) if instrument is not None else None, rate)
    with _instruments_lock:
        loaded = _instruments.get(key)
    if loaded is None:
        loaded = Instrument(instrument, rate=rate)
        with _instruments_lock:
            loaded = _instruments.setdefault(key, loaded)
    return loaded


def _options(rate: int, threads: Optional[int], effects: bool, program: Optional[int], gain_db: Optional[float],
             interpolation: str, log: _LogLines) -> _native.RenderOptions:
    options = _native.RenderOptions()
    lib.staccato_render_options_init(ctypes.byref(options))
    options.sample_rate = float(rate)
    options.threads = 0 if threads is None else int(threads)
    options.effects = 1 if effects else 0
    options.program = -1 if program is None else int(program)
    if gain_db is not None:
        options.gain_db = float(gain_db)
    if interpolation not in ("cubic", "linear"):
        raise ValueError(f"interpolation: must be 'cubic' or 'linear', not {interpolation!r}")
    options.linear_interpolation = 1 if interpolation == "linear" else 0
    options.log = log.callback
    return options


class _RenderedFrames:
    """A rendered song's frames where the library put them, lent to NumPy without a copy: the
    array's base, freeing them (staccato_audio_free) when the array goes."""

    __slots__ = ("_audio", "__array_interface__")

    def __init__(self, audio: int, frames: int):
        self._audio = audio
        address = ctypes.cast(lib.staccato_audio_samples(audio), ctypes.c_void_p).value
        self.__array_interface__ = {"shape": (frames, 2), "typestr": "<f4", "data": (address, False), "version": 3}

    def __del__(self) -> None:
        lib.staccato_audio_free(self._audio)


def _array(audio: int) -> np.ndarray:
    """A rendered song's frames as a (frames, 2) float32 array, owning `audio` from here."""
    frames = lib.staccato_audio_frame_count(audio)
    if frames == 0:
        lib.staccato_audio_free(audio)
        return np.zeros((0, 2), dtype=np.float32)
    return np.asarray(_RenderedFrames(audio, frames))


def render(midi: Union[PathLike, bytes], instrument: Union[None, PathLike, Instrument] = None, *, rate: int = DEFAULT_RATE,
           threads: Optional[int] = None, effects: bool = True, program: Optional[int] = None,
           gain_db: Optional[float] = None, interpolation: str = "cubic") -> np.ndarray:
    """Renders a MIDI file (a path, or the file's bytes) to audio: float32, shape (frames, 2),
    C-contiguous, at `rate`. The samples are those `staccato render SONG --out FILE.wav` writes
    with the same options (`--rate`, `--threads`, `--no-effects`, `--program`, `--gain`,
    `--interpolation`).

    `instrument` is a path or an `Instrument`; None is the system's default font. A path is
    loaded once per process. `threads` render the song's voices (None: every core; the samples do
    not depend on it). Presets the font lacks, a damaged file that plays in part, and a song that
    renders silent are warned of (`StaccatoWarning`) with the command's line.

    Raises `staccato.Error` (a `NotFoundError`, which is also a `FileNotFoundError`, for a file
    that is not there) with the command's one-line message.
    """
    loaded = _instrument(instrument, rate)
    log = _LogLines()
    options = _options(rate, threads, effects, program, gain_db, interpolation, log)
    if isinstance(midi, (bytes, bytearray, memoryview)):
        data = bytes(midi)
        audio = lib.staccato_render_song_bytes(data, len(data), b"song", loaded._handle(rate), ctypes.byref(options))
        path = None
    else:
        path = os.fspath(midi)
        audio = lib.staccato_render_song(path.encode(), loaded._handle(rate), ctypes.byref(options))
    log.warn()
    if not audio:
        raise _failure(path)
    return _array(audio)


def render_file(midi: PathLike, out: PathLike, instrument: Union[None, PathLike, Instrument] = None, *,
                rate: int = DEFAULT_RATE, threads: Optional[int] = None, effects: bool = True, program: Optional[int] = None,
                gain_db: Optional[float] = None, interpolation: str = "cubic") -> str:
    """Renders a MIDI file to `out` (.wav as 32-bit float, .flac, .ogg or .mp3), as
    `staccato render SONG --out OUT` does, and returns `out`. Options and errors as `render`'s;
    a song with notes that renders silent writes the file and raises."""
    loaded = _instrument(instrument, rate)
    log = _LogLines()
    options = _options(rate, threads, effects, program, gain_db, interpolation, log)
    path, target = os.fspath(midi), os.fspath(out)
    status = lib.staccato_render_song_to_file(path.encode(), loaded._handle(rate), ctypes.byref(options), target.encode())
    log.warn()
    if status != 0:
        raise _failure(path)
    return target


def render_many(paths: Sequence[PathLike], instrument: Union[None, PathLike, Instrument] = None, *,
                out_dir: Optional[PathLike] = None, format: str = "wav", workers: Optional[int] = None,
                rate: int = DEFAULT_RATE, effects: bool = True, program: Optional[int] = None,
                gain_db: Optional[float] = None, interpolation: str = "cubic") -> Iterator[Union[np.ndarray, str, Error]]:
    """Renders many MIDI files through one instrument on every core (`workers` threads inside the
    library, None: every core), each song on a thread of its own, as `staccato render --out-dir`
    does: no processes, no pickling, one copy of the instrument in memory.

    Yields one result per path, in the order given, as each is ready: the audio (as `render`
    returns it) or, with `out_dir`, the path of the file written there as NAME.FORMAT (`format`:
    wav, flac, ogg, mp3); or, for a song that failed (missing, not MIDI, damaged past playing,
    silent), the `staccato.Error` saying why, which is yielded, not raised: one bad file never
    ends the batch. A batch that cannot start (a bad folder or format) raises.
    """
    songs = [os.fspath(path) for path in paths]
    loaded = _instrument(instrument, rate)
    handle = loaded._handle(rate)
    log = _LogLines()
    options = _options(rate, None, effects, program, gain_db, interpolation, log)
    results: "queue.SimpleQueue[tuple[int, object]]" = queue.SimpleQueue()

    def finished(_user, index, error, audio, output):
        if error is not None:
            line = error.decode("utf-8", "replace")
            results.put((index, _failure(songs[index], line=line)))
        elif output is not None:
            results.put((index, output.decode()))
        else:
            results.put((index, _array(audio)))

    callback = _native.BATCH_CALLBACK(finished)
    encoded = (ctypes.c_char_p * max(1, len(songs)))(*[song.encode() for song in songs])
    folder = os.fspath(out_dir).encode() if out_dir is not None else None
    outcome: dict[str, object] = {}

    def run() -> None:
        failed = lib.staccato_render_batch(encoded, len(songs), handle, ctypes.byref(options), folder, format.encode(),
                                           0 if workers is None else int(workers), callback, None)
        outcome["failed"] = failed
        if failed < 0:
            outcome["error"] = _native.last_error()
        results.put((-1, None))

    thread = threading.Thread(target=run, name="staccato-batch", daemon=True)
    thread.start()
    ready: dict[int, object] = {}
    following = 0
    done = False
    try:
        while following < len(songs):
            while following not in ready and not done:
                index, result = results.get()
                if index < 0:
                    done = True
                else:
                    ready[index] = result
            log.warn(stacklevel=2)
            if following not in ready:
                raise Error(str(outcome.get("error", "the batch ended early")))
            yield ready.pop(following)
            following += 1
        thread.join()
        if outcome.get("failed", 0) < 0:
            raise Error(str(outcome["error"]))
    finally:
        # Keep what the library's threads call into alive until the batch is over.
        thread.join()
        del callback, encoded


class Synth:
    """A synthesizer played live: MIDI messages in, audio out, one block at a time.

    Messages take effect `frame` frames into the next block `render` renders, sample-accurately
    when blocks are multiples of 64 frames (otherwise, at worst, at the next 64-frame boundary).
    `render` allocates nothing inside the library and never waits for loading.
    """

    def __init__(self, instrument: Union[None, PathLike, Instrument] = None, rate: int = DEFAULT_RATE,
                 max_block_frames: int = 4_096):
        self._instrument = _instrument(instrument, rate)
        self._handle = lib.staccato_synth_new(float(rate), int(max_block_frames))
        if not self._handle:
            raise _failure()
        self._log = _LogLines()
        lib.staccato_synth_set_log_callback(self._handle, self._log.callback, None)
        if lib.staccato_synth_use(self._handle, self._instrument._handle(rate)) != 0:
            raise _failure()
        self._log.warn()
        self.rate = rate
        self.max_block_frames = max_block_frames
        self._left = np.zeros(max_block_frames, dtype=np.float32)
        self._right = np.zeros(max_block_frames, dtype=np.float32)

    @property
    def instrument(self) -> Instrument:
        return self._instrument

    def midi(self, message: bytes, frame: int = 0) -> None:
        """Sends one MIDI message (status and data bytes; a SysEx from F0 to F7), `frame` frames
        into the next block."""
        data = bytes(message)
        if lib.staccato_synth_midi(self._handle, int(frame), data, len(data)) != 0:
            raise _failure()

    def note_on(self, channel: int, key: int, velocity: int, frame: int = 0) -> None:
        self.midi(bytes([0x90 | (channel & 0x0F), key & 0x7F, velocity & 0x7F]), frame)

    def note_off(self, channel: int, key: int, velocity: int = 0, frame: int = 0) -> None:
        self.midi(bytes([0x80 | (channel & 0x0F), key & 0x7F, velocity & 0x7F]), frame)

    def control_change(self, channel: int, controller: int, value: int, frame: int = 0) -> None:
        self.midi(bytes([0xB0 | (channel & 0x0F), controller & 0x7F, value & 0x7F]), frame)

    def program_change(self, channel: int, program: int, frame: int = 0) -> None:
        self.midi(bytes([0xC0 | (channel & 0x0F), program & 0x7F]), frame)

    def pitch_bend(self, channel: int, value: int, frame: int = 0) -> None:
        """`value` from -8192 (down) to 8191 (up); 0 is the centre."""
        raw = max(0, min(16_383, value + 8_192))
        self.midi(bytes([0xE0 | (channel & 0x0F), raw & 0x7F, raw >> 7]), frame)

    @property
    def volume(self) -> float:
        """The output level, 0...1, reached with a click-free ramp."""
        return lib.staccato_synth_volume(self._handle)

    @volume.setter
    def volume(self, value: float) -> None:
        lib.staccato_synth_set_volume(self._handle, float(value))

    @property
    def active_voices(self) -> int:
        return lib.staccato_synth_active_voices(self._handle)

    def render(self, frame_count: int, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The next `frame_count` frames: float32, shape (frame_count, 2). With `out` (float32,
        that shape), fills it in place and returns it."""
        if out is None:
            out = np.empty((frame_count, 2), dtype=np.float32)
        elif out.dtype != np.float32 or out.shape != (frame_count, 2):
            raise ValueError(f"out: must be float32 of shape ({frame_count}, 2), not {out.dtype} {out.shape}")
        done = 0
        while done < frame_count:
            count = min(self.max_block_frames, frame_count - done)
            lib.staccato_synth_render(self._handle, self._left.ctypes.data_as(_native.c_float_p),
                                      self._right.ctypes.data_as(_native.c_float_p), count)
            out[done:done + count, 0] = self._left[:count]
            out[done:done + count, 1] = self._right[:count]
            done += count
        self._log.warn()
        return out

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle:
            lib.staccato_synth_free(handle)
