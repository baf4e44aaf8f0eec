"""What a corpus renderer relies on: one instrument in memory however many renders, the GIL
released in native calls, and `python -m staccato` as the command."""
from __future__ import annotations

import subprocess
import sys
import threading
import time
import warnings

import numpy as np

import staccato
from conftest import FIXTURES, SHIPPED_FONT, cli_render, read_float_wav


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def test_an_instrument_is_loaded_once_whatever_the_renders():
    song = FIXTURES[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", staccato.StaccatoWarning)
        for _ in range(3):
            staccato.render(song, SHIPPED_FONT)  # the font is loaded here, once
        before = resident_bytes()
        for _ in range(8):
            staccato.render(song, SHIPPED_FONT)
            staccato.render(str(song), str(SHIPPED_FONT))
        growth = resident_bytes() - before
    # The font is 11 MB; sixteen renders that each loaded it would hold far more than this.
    assert growth < 4 * 1024 * 1024, f"resident memory grew by {growth / 1e6:.1f} MB over 16 renders"


def test_native_calls_release_the_gil():
    song = FIXTURES[-2]
    piano = staccato.Instrument(SHIPPED_FONT)

    def one() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", staccato.StaccatoWarning)
            staccato.render(song, piano, threads=1)

    one()
    # While a native render runs, another Python thread keeps running.
    ticks = 0
    worker = threading.Thread(target=one)
    worker.start()
    while worker.is_alive():
        ticks += 1
    worker.join()
    assert ticks > 1_000, ticks

    def timed(thread_count: int) -> float:
        threads = [threading.Thread(target=one) for _ in range(thread_count)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return time.perf_counter() - started

    # Two threads render two songs in about the time one renders one: at least 1.5x the rate.
    ratios = []
    for _ in range(3):
        single, double = timed(1), timed(2)
        ratios.append(2 * single / double)
        if ratios[-1] > 1.5:
            break
    assert max(ratios) > 1.5, f"two threads rendered at {max(ratios):.2f}x the rate of one"


def test_the_module_is_the_command(cli, tmp_path):
    song = FIXTURES[0]
    expected = cli_render(cli, song, tmp_path / "cli.wav", "--soundfont", str(SHIPPED_FONT), "--no-effects")
    run = subprocess.run([sys.executable, "-m", "staccato", "render", str(song), "--soundfont", str(SHIPPED_FONT), "--no-effects",
                          "--out", str(tmp_path / "module.wav")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "staccato: warning: FluidR3_GM_piano_xylo.sf2 has no preset for" in run.stderr
    assert np.array_equal(read_float_wav(tmp_path / "module.wav"), expected)
    missing = subprocess.run([sys.executable, "-m", "staccato", "render", str(tmp_path / "absent.mid"), "--soundfont", str(SHIPPED_FONT),
                              "--out", str(tmp_path / "x.wav")], capture_output=True, text=True)
    assert missing.returncode == 1 and missing.stderr.strip() == f"staccato: {tmp_path / 'absent.mid'}: no such file"
