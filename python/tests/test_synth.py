"""`staccato.Synth`: MIDI in with frame offsets, audio out a block at a time."""
from __future__ import annotations

import numpy as np
import pytest

import staccato
from conftest import SHIPPED_FONT, dominant_frequency

RATE = 48_000


@pytest.fixture(scope="module")
def piano() -> staccato.Instrument:
    return staccato.Instrument(SHIPPED_FONT, rate=RATE)


def test_a_note_sounds_at_its_frame_and_pitch(piano):
    synth = staccato.Synth(piano, rate=RATE, max_block_frames=256)
    synth.note_on(0, 69, 100, frame=1_000)  # A4, 440 Hz, 1,000 frames into the first block
    audio = synth.render(RATE)
    onset = int(np.argmax(np.abs(audio[:, 0]) > 1e-6))
    assert 1_000 <= onset < 1_008, onset
    assert not audio[:1_000].any()
    frequency = dominant_frequency(audio[8_000:8_000 + 16_384, 0], RATE)
    assert abs(frequency - 440) < 2, frequency


def test_render_fills_out_in_place_and_note_off_releases(piano):
    synth = staccato.Synth(piano, rate=RATE)
    synth.program_change(0, 13)  # the xylophone
    synth.note_on(0, 72, 110)
    out = np.full((4_096, 2), np.nan, dtype=np.float32)
    assert synth.render(4_096, out=out) is out
    assert np.isfinite(out).all() and np.abs(out).max() > 0.01
    assert synth.active_voices >= 1
    synth.note_off(0, 72)
    synth.render(RATE * 3)
    assert synth.active_voices == 0
    with pytest.raises(ValueError):
        synth.render(16, out=np.zeros((16, 2), dtype=np.float64))


def test_controllers_and_pitch_bend_move_the_sound(piano):
    plain, bent = staccato.Synth(piano, rate=RATE), staccato.Synth(piano, rate=RATE)
    bent.pitch_bend(0, 8_191)  # up two semitones, the General MIDI default range
    bent.control_change(0, 7, 127)
    for synth in (plain, bent):
        synth.note_on(0, 69, 100)
    base = dominant_frequency(plain.render(RATE)[8_000:24_384, 0], RATE)
    raised = dominant_frequency(bent.render(RATE)[8_000:24_384, 0], RATE)
    assert abs(raised / base - 2 ** (2 / 12)) < 0.01, (base, raised)


def test_bad_bytes_are_an_error_with_a_line(piano):
    synth = staccato.Synth(piano, rate=RATE)
    with pytest.raises(staccato.Error, match=r"MIDI bytes \[90 80 10\]: not a channel message or a known SysEx"):
        synth.midi(bytes([0x90, 0x80, 0x10]))
