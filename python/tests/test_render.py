"""`staccato.render` and `render_file`: the samples of `staccato render`, bit for bit, and its
errors and warnings, each in the command's one line."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import staccato
from conftest import FIXTURES, SHIPPED_FONT, cli_render, read_float_wav


@pytest.mark.parametrize("song", [FIXTURES[0], FIXTURES[-1]], ids=lambda path: path.name)
def test_render_equals_the_command_bit_for_bit(cli, tmp_path, song):
    expected = cli_render(cli, song, tmp_path / "cli.wav", "--soundfont", str(SHIPPED_FONT))
    audio = staccato.render(song, SHIPPED_FONT)
    assert audio.dtype == np.float32 and audio.shape == expected.shape and audio.flags["C_CONTIGUOUS"]
    assert np.array_equal(audio, expected)
    # The file's bytes, a loaded Instrument, and one thread or two: the same samples.
    assert np.array_equal(staccato.render(song.read_bytes(), staccato.Instrument(SHIPPED_FONT), threads=1), expected)


def test_render_with_options_equals_the_command_with_the_same_flags(cli, tmp_path):
    song = FIXTURES[0]
    expected = cli_render(cli, song, tmp_path / "cli.wav", "--soundfont", str(SHIPPED_FONT), "--rate", "44100",
                          "--no-effects", "--program", "13", "--gain", "-6", "--interpolation", "linear")
    audio = staccato.render(song, SHIPPED_FONT, rate=44_100, effects=False, program=13, gain_db=-6, interpolation="linear")
    assert np.array_equal(audio, expected)


def test_render_file_writes_what_the_command_writes(cli, tmp_path):
    song = FIXTURES[1]
    expected = cli_render(cli, song, tmp_path / "cli.wav", "--soundfont", str(SHIPPED_FONT))
    written = staccato.render_file(song, tmp_path / "py.wav", SHIPPED_FONT)
    assert np.array_equal(read_float_wav(Path(written)), expected)


def test_a_missing_file_is_a_file_not_found_error_with_the_commands_line(cli, tmp_path):
    with pytest.raises(FileNotFoundError) as raised:
        staccato.render(tmp_path / "absent.mid", SHIPPED_FONT)
    assert isinstance(raised.value, staccato.Error)
    assert str(raised.value) == f"{tmp_path / 'absent.mid'}: no such file"
    with pytest.raises(FileNotFoundError, match=r"absent\.sf2: no such file or folder"):
        staccato.Instrument(tmp_path / "absent.sf2")


def test_a_file_that_is_not_midi_is_an_error_naming_it(tmp_path):
    text = tmp_path / "notes.mid"
    text.write_text("not a MIDI file\n")
    with pytest.raises(staccato.Error, match=r"^notes\.mid: ") as raised:
        staccato.render(text, SHIPPED_FONT)
    assert not isinstance(raised.value, FileNotFoundError)


def test_a_song_asking_for_presets_the_font_lacks_warns_with_the_commands_line():
    song = next(path for path in FIXTURES if "drums" in path.name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        staccato.render(song, SHIPPED_FONT)
    lines = [str(warning.message) for warning in caught if warning.category is staccato.StaccatoWarning]
    assert any("FluidR3_GM_piano_xylo.sf2 has no preset for" in line and "played with the kit" in line for line in lines), lines


def test_a_song_that_renders_silent_warns_saying_why(tmp_path):
    # An instrument of one key, and a song that plays another.
    instrument = tmp_path / "one-key.sfz"
    instrument.write_text("<region> sample=*sine lokey=60 hikey=60\n")
    song = tmp_path / "low.mid"
    track = bytes([0x00, 0x90, 40, 100, 0x83, 0x60, 0x80, 40, 0, 0x00, 0xFF, 0x2F, 0x00])
    song.write_bytes(b"MThd" + (6).to_bytes(4, "big") + bytes([0, 0, 0, 1, 1, 0xE0]) + b"MTrk" + len(track).to_bytes(4, "big") + track)
    with pytest.warns(staccato.StaccatoWarning, match=r"low\.mid: 1 note, but nothing sounded \(1 found no preset or no key range"):
        audio = staccato.render(song, instrument)
    assert not audio.any()


def test_presets_list_bank_program_and_name():
    presets = staccato.Instrument(SHIPPED_FONT).presets
    assert staccato.Preset(0, 0, "Yamaha Grand Piano") in presets
    assert [(preset.bank, preset.program) for preset in presets] == sorted((preset.bank, preset.program) for preset in presets)
