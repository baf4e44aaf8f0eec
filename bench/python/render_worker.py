"""One Python renderer, run as a process of its own by compare_renderers.py and timed whole
(interpreter start, imports and font load included).

    python render_worker.py ENGINE FONT RATE SONG.mid [SONG.mid ...]

Renders each song into memory and prints one JSON line per song: {"song", "frames", "rate",
"channels"}, or {"song", "error"} for a song that failed. Nothing is written to disk. ENGINE:

- pretty_midi: `PrettyMIDI(song).fluidsynth(fs=RATE, sf2_path=FONT)`, the library's own path: one
  FluidSynth synth for the song, each instrument rendered on its own on channel 0 (9 for drums)
  and the instruments summed, mono float64, one second of tail after each instrument's last event.
- pyfluidsynth: the usual loop over `fluidsynth.Synth`: the song's messages in time order from
  mido, `get_samples` for the frames between one message and the next (counted from the absolute
  time, so no rounding drift), each note-on, note-off, control change, program change and pitch
  bend sent to the synth as the file has it (FluidSynth keeps banks and channel 10's drums
  itself), then one second of tail. Stereo int16.
- tinysoundfont: `Synth(samplerate=RATE)`, `sfload(FONT)`, the 16 channels set to program 0
  (channel 10 as drums, `is_drums=True`), a `Sequencer` with `midi_load(song, persistent=False)`,
  and `synth.generate(frames)` in blocks of TSF_BLOCK frames up to the last event and one second of
  tail. Stereo float32.
- staccato_render: `staccato.render(song, FONT, rate=RATE)` (threads: every core, effects on),
  one song a process.
- staccato_render_many: `staccato.render_many(songs, FONT, rate=RATE)` into memory, every song in
  this one process, on every core.
- staccato_render_many_plain: the same with `effects=False, interpolation="linear"`: no reverb or
  chorus and two-point interpolation, as tinysoundfont renders.
"""
from __future__ import annotations

import json
import os
import sys

TAIL_SECONDS = 1.0
TSF_BLOCK = int(os.environ.get("TSF_BLOCK", "65536"))
TSF_PERSISTENT = os.environ.get("TSF_PERSISTENT", "0") == "1"
CHECK = os.environ.get("BENCH_CHECK") == "1"     # the untimed warm-up: report each output's peak too


def emit(audio=None, scale: float = 1.0, **fields) -> None:
    if CHECK and audio is not None:
        import numpy as np

        fields["peak"] = float(np.abs(audio.astype(np.float64)).max()) / scale if audio.size else 0.0
    print(json.dumps(fields), flush=True)


def pretty_midi_song(song: str, font: str, rate: int) -> None:
    import warnings

    import pretty_midi

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # sf2_path: "use synthesizer=" (the same code path)
        audio = pretty_midi.PrettyMIDI(song).fluidsynth(fs=rate, sf2_path=font)
    emit(audio, song=song, frames=int(audio.shape[0]), rate=rate, channels=1 if audio.ndim == 1 else int(audio.shape[1]))


def pyfluidsynth_song(song: str, font: str, rate: int) -> None:
    import fluidsynth
    import mido
    import numpy as np

    synth = fluidsynth.Synth(samplerate=float(rate))
    synth.sfload(font)
    chunks = []
    frames = 0
    now = 0.0
    for message in mido.MidiFile(song):       # merged tracks, time: seconds since the previous message
        now += message.time
        target = int(round(now * rate))
        if target > frames:
            chunks.append(synth.get_samples(target - frames))
            frames = target
        kind = message.type
        if kind == "note_on":
            if message.velocity:
                synth.noteon(message.channel, message.note, message.velocity)
            else:
                synth.noteoff(message.channel, message.note)
        elif kind == "note_off":
            synth.noteoff(message.channel, message.note)
        elif kind == "control_change":
            synth.cc(message.channel, message.control, message.value)
        elif kind == "program_change":
            synth.program_change(message.channel, message.program)
        elif kind == "pitchwheel":
            synth.pitch_bend(message.channel, message.pitch)
    tail = int(round(TAIL_SECONDS * rate))
    chunks.append(synth.get_samples(tail))
    frames += tail
    audio = np.concatenate(chunks).reshape(-1, 2)
    synth.delete()
    emit(audio, 32768.0, song=song, frames=int(audio.shape[0]), rate=rate, channels=2)


def tinysoundfont_song(song: str, font: str, rate: int) -> None:
    import numpy as np
    import tinysoundfont

    synth = tinysoundfont.Synth(samplerate=rate)
    sfid = synth.sfload(font)
    for channel in range(16):
        synth.program_select(channel, sfid, 0, 0, is_drums=channel == 9)
    sequencer = tinysoundfont.Sequencer(synth)
    events = tinysoundfont.midi.load(song, persistent=TSF_PERSISTENT)
    sequencer.add(events)
    total = int(np.ceil(((events[-1].t if events else 0.0) + TAIL_SECONDS) * rate))
    audio = np.empty((total, 2), dtype=np.float32)
    view = memoryview(audio.reshape(-1)).cast("B")
    done = 0
    while done < total:
        count = min(TSF_BLOCK, total - done)
        synth.generate(count, buffer=view[done * 8:(done + count) * 8])
        done += count
    emit(audio, song=song, frames=int(audio.shape[0]), rate=rate, channels=2)


def staccato_song(song: str, font: str, rate: int) -> None:
    import staccato

    audio = staccato.render(song, font, rate=rate)
    emit(audio, song=song, frames=int(audio.shape[0]), rate=rate, channels=int(audio.shape[1]))


def staccato_many(songs: list[str], font: str, rate: int, **options) -> None:
    import staccato

    for song, result in zip(songs, staccato.render_many(songs, font, rate=rate, **options)):
        if isinstance(result, staccato.Error):
            emit(song=song, error=str(result))
        else:
            emit(result, song=song, frames=int(result.shape[0]), rate=rate, channels=int(result.shape[1]))


PER_SONG = {"pretty_midi": pretty_midi_song, "pyfluidsynth": pyfluidsynth_song,
            "tinysoundfont": tinysoundfont_song, "staccato_render": staccato_song}


def main(argv: list[str]) -> int:
    engine, font, rate, songs = argv[0], argv[1], int(argv[2]), argv[3:]
    if engine == "staccato_render_many":
        staccato_many(songs, font, rate)
        return 0
    if engine == "staccato_render_many_plain":
        staccato_many(songs, font, rate, effects=False, interpolation="linear")
        return 0
    render = PER_SONG[engine]
    failed = 0
    for song in songs:
        try:
            render(song, font, rate)
        except Exception as error:  # reported per song; the driver counts it
            emit(song=song, error=f"{type(error).__name__}: {error}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
