"""`staccato.render_many`: every core, results in input order, one bad file never ends the batch."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import staccato
from conftest import FIXTURES, SHIPPED_FONT, read_float_wav


@pytest.fixture(scope="module")
def piano() -> staccato.Instrument:
    return staccato.Instrument(SHIPPED_FONT)


@pytest.fixture
def damaged(tmp_path) -> Path:
    """A MIDI file cut off inside its header: nothing of it can be read."""
    path = tmp_path / "damaged.mid"
    path.write_bytes(FIXTURES[0].read_bytes()[:10])
    return path


def test_every_good_file_and_the_bad_one_named_in_input_order(piano, damaged, tmp_path):
    songs = FIXTURES[:2] + [damaged, tmp_path / "absent.mid"] + FIXTURES[2:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", staccato.StaccatoWarning)
        results = list(staccato.render_many(songs, piano, workers=2))
        singles = [staccato.render(song, piano) for song in FIXTURES]
    assert len(results) == len(songs)
    bad = results[2]
    assert isinstance(bad, staccato.Error) and str(bad).startswith(f"{damaged}: ")
    assert isinstance(results[3], FileNotFoundError) and str(results[3]) == f"{tmp_path / 'absent.mid'}: no such file"
    audio = results[:2] + results[4:]
    for song, result, single in zip(FIXTURES, audio, singles):
        assert isinstance(result, np.ndarray), f"{song.name}: {result}"
        assert np.array_equal(result, single), song.name


def test_into_a_folder_it_yields_the_paths_written(piano, damaged, tmp_path):
    songs = [FIXTURES[0], damaged, FIXTURES[1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", staccato.StaccatoWarning)
        results = list(staccato.render_many(songs, piano, out_dir=tmp_path / "renders"))
        single = staccato.render(FIXTURES[1], piano)
    assert results[0] == str(tmp_path / "renders" / (FIXTURES[0].stem + ".wav"))
    assert isinstance(results[1], staccato.Error)
    assert np.array_equal(read_float_wav(Path(results[2])), single)


def test_a_batch_that_cannot_start_raises(piano, tmp_path):
    with pytest.raises(staccato.Error, match="format aiff: must be one of wav, flac, ogg, mp3"):
        list(staccato.render_many(FIXTURES[:1], piano, out_dir=tmp_path, format="aiff"))
