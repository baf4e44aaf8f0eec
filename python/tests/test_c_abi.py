"""The C ABI as an application meets it, in the tree `make install` wrote (STACCATO_PREFIX): a C
program built with pkg-config renders a chord at the right pitches, sample for sample what
`staccato render` makes of the same chord as a MIDI file; the library needs only the C and C++
runtimes and the system's audio libraries, and exports only the header's functions."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, SHIPPED_FONT, cli_render, dominant_frequency, read_float_wav

RATE = 48_000


@pytest.fixture(scope="module")
def prefix() -> Path:
    path = os.environ.get("STACCATO_PREFIX")
    if not path:
        pytest.fail("STACCATO_PREFIX: unset: name the tree `make install PREFIX=...` wrote")
    return Path(path)


@pytest.fixture(scope="module")
def library(prefix) -> Path:
    return (prefix / "lib" / "libstaccato.so").resolve()


def pkg_config(prefix: Path, *arguments: str) -> list[str]:
    environment = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib/pkgconfig"))
    return subprocess.run(["pkg-config", *arguments, "staccato"], check=True, capture_output=True, text=True, env=environment).stdout.split()


def chord_song(path: Path) -> Path:
    """C4 E4 G4 at velocity 100 from tick 0, released at tick 960 (1 s at 120 bpm, 480 a quarter)."""
    track = b"".join(bytes([0, 0x90, key, 100]) for key in (60, 64, 67))
    track += bytes([0x87, 0x40, 0x80, 60, 0, 0, 0x80, 64, 0, 0, 0x80, 67, 0, 0, 0xFF, 0x2F, 0])
    path.write_bytes(b"MThd" + (6).to_bytes(4, "big") + bytes([0, 0, 0, 1, 1, 0xE0]) + b"MTrk" + len(track).to_bytes(4, "big") + track)
    return path


def test_a_c_program_built_with_pkg_config_plays_the_chord_as_the_command_renders_it(prefix, tmp_path):
    program = tmp_path / "chord"
    subprocess.run(["cc", "-Wall", "-Werror", str(ROOT / "Examples/CChord/chord.c"), *pkg_config(prefix, "--cflags", "--libs"),
                    "-o", str(program)], check=True, capture_output=True, text=True)
    run = subprocess.run([str(program), str(SHIPPED_FONT), str(tmp_path / "chord.wav")], capture_output=True, text=True,
                         cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    played = read_float_wav(tmp_path / "chord.wav")
    expected = cli_render(str(prefix / "bin/staccato"), chord_song(tmp_path / "chord.mid"), tmp_path / "cli.wav",
                          "--soundfont", str(SHIPPED_FONT))
    assert np.array_equal(played[:len(expected)], expected)
    assert np.abs(played[len(expected):]).max() < 1e-4, "silence after the render's end"
    # The three fundamentals, each the strongest partial near its pitch.
    spectrum = np.abs(np.fft.rfft(played[4_800:4_800 + 32_768, 0] * np.hanning(32_768)))
    for key in (60, 64, 67):
        frequency = 440 * 2 ** ((key - 69) / 12)
        band = slice(int(frequency * 0.97 * 32_768 / RATE), int(frequency * 1.03 * 32_768 / RATE) + 1)
        peak = (band.start + int(np.argmax(spectrum[band]))) * RATE / 32_768
        assert abs(peak / frequency - 1) < 0.005, (key, peak, frequency)
        assert spectrum[band].max() > 0.05 * spectrum.max(), key


def test_the_library_needs_only_the_runtimes_and_the_audio_libraries(library):
    dynamic = subprocess.run(["readelf", "-d", str(library)], check=True, capture_output=True, text=True).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic))
    soname = re.search(r"\(SONAME\)\s+Library soname: \[(.+?)\]", dynamic).group(1)
    allowed = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2",
               "libasound.so.2", "libsndfile.so.1", "libspeexdsp.so.1", "libjack.so.0"}
    assert needed <= allowed, needed - allowed
    assert soname == "libstaccato.so.0"


def test_the_library_exports_exactly_the_headers_functions(library):
    header = (ROOT / "Sources/Fronts/CStaccato/include/staccato.h").read_text()
    declared = set(re.findall(r"\b(staccato_[a-z_0-9]+)\(", header))
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(library)], check=True, capture_output=True, text=True).stdout
    exported = {fields[2] for fields in (line.split() for line in symbols.splitlines()) if len(fields) == 3 and fields[1].isupper()}
    assert exported == declared
    for required in ["staccato_synth_new", "staccato_synth_free", "staccato_synth_load", "staccato_synth_midi", "staccato_synth_render",
                     "staccato_render_file", "staccato_last_error", "staccato_version"]:
        assert required in exported
