"""What every test of the Python package shares: the repository's fixtures and the `staccato`
command the package must match (STACCATO_CLI, else the repository's release build)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "Tests/Fixtures/midi").glob("*.mid"))
SHIPPED_FONT = ROOT / "soundfonts/FluidR3_GM_piano_xylo.sf2"


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("STACCATO_CLI") or str(ROOT / ".build/release/staccato")
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path}: no staccato command to compare with (make release, or set STACCATO_CLI)")
    return path


def read_float_wav(path: Path) -> np.ndarray:
    """A 32-bit float stereo WAV's frames, as (frames, 2)."""
    data = path.read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", f"{path}: not a WAV file"
    offset = 12
    while offset < len(data):
        kind, size = data[offset:offset + 4], int.from_bytes(data[offset + 4:offset + 8], "little")
        if kind == b"data":
            return np.frombuffer(data[offset + 8:offset + 8 + size], dtype="<f4").reshape(-1, 2)
        offset += 8 + size + (size & 1)
    raise AssertionError(f"{path}: no data chunk")


def cli_render(cli: str, song: Path, out: Path, *arguments: str) -> np.ndarray:
    subprocess.run([cli, "render", str(song), "--out", str(out), *arguments], check=True, capture_output=True, text=True)
    return read_float_wav(out)


def dominant_frequency(samples: np.ndarray, rate: int) -> float:
    """The strongest frequency of a mono signal, interpolated between FFT bins."""
    window = np.hanning(len(samples))
    spectrum = np.abs(np.fft.rfft(samples * window))
    peak = int(np.argmax(spectrum[1:])) + 1
    left, centre, right = np.log(spectrum[peak - 1:peak + 2] + 1e-12)
    shift = 0.5 * (left - right) / (left - 2 * centre + right)
    return (peak + shift) * rate / len(samples)
