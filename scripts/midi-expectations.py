#!/usr/bin/env python3
"""Independent expectations for the MIDI fixtures, computed with mido rather than our reader.

Tests/MIDITests reads the JSON this prints and checks that the Swift reader agrees on every value,
so mido is needed only to regenerate it, never at test time. Generated with mido 1.3.3 on
Python 3.11:

    pip install mido
    python3 scripts/midi-expectations.py > Tests/Fixtures/midi/expected/expected.json

Conventions, chosen to match what the tests compare:
- channels are 0-based (the drum channel "10" is 9), as on the wire;
- a note-on counts only with velocity > 0 (velocity 0 is a note-off);
- tempo changes are every set_tempo event of every track, in merged (playback) order, with
  absolute ticks; no default 120 bpm entry is added;
- duration is MidiFile.length: seconds to the last event of any track, end-of-track included;
- note-on times are seconds from the start through the tempo map, as mido plays the file.

On the six fixtures mido and Sources/Library/MIDI agree on every value. They differ, by design, only on
input the fixtures do not contain (each covered by a hand-built file in Tests/MIDITests):
- SMPTE division (top bit of the division set): mido reads the field as a signed tick count
  (0xE728 gives ticks_per_beat -6360 and a negative length); the SMF spec makes it -frames per
  second and ticks per frame, which is what our reader does (0xE728: 25 fps x 40 = 1000 ticks/s).
- running status after SysEx: the spec cancels it; mido sets it to 0xF0 and then misreads a
  following data byte (an EOFError), our reader keeps the channel status, as it does after meta
  events, which no well-formed file can tell apart.
- a last track chunk that overruns the file: mido raises EOFError, our reader keeps what is there.
- RIFF 'RMID' wrapping: mido does not read it, our reader unwraps the 'data' chunk.
- a note-on at velocity 0: mido keeps it as note_on, our reader makes it a note-off (velocity 64).
- a tempo of 0 microseconds: mido applies it, our reader leaves it out of the tempo map.
"""
import json
import os
import sys

import mido
from importlib.metadata import version


def describe(path):
    midi = mido.MidiFile(path)
    tempos = []
    for track in midi.tracks:
        tick = 0
        for message in track:
            tick += message.time
            if message.type == "set_tempo":
                tempos.append((tick, message.tempo))
    # Stable, like mido's own merge: equal ticks keep track order.
    tempos.sort(key=lambda change: change[0])

    note_times = []
    per_channel = {}
    seconds = 0.0
    for message in midi:  # merged playback order, message.time is a delta in seconds
        seconds += message.time
        if message.type == "note_on" and message.velocity > 0:
            note_times.append(seconds)
            per_channel[str(message.channel)] = per_channel.get(str(message.channel), 0) + 1

    return {
        "format": midi.type,
        "trackCount": len(midi.tracks),
        "ticksPerQuarter": midi.ticks_per_beat,
        "noteOnCount": len(note_times),
        "noteOnsPerChannel": dict(sorted(per_channel.items(), key=lambda item: int(item[0]))),
        "tempoChangeCount": len(tempos),
        "firstTempoChanges": [{"tick": tick, "microsecondsPerQuarter": tempo} for tick, tempo in tempos[:5]],
        "durationSeconds": midi.length,
        "firstNoteOnSeconds": note_times[0],
        "hundredthNoteOnSeconds": note_times[99],
        "lastNoteOnSeconds": note_times[-1],
    }


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "midi")
    fixtures = sorted(name for name in os.listdir(root) if name.endswith(".mid"))
    result = {"generator": "mido " + version("mido"), "files": {name: describe(os.path.join(root, name)) for name in fixtures}}
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
