"""Past one machine with an existing engine: a Dask cluster of worker processes renders a corpus,
each worker loading the instrument once, each file a deterministic job."""
from __future__ import annotations

import functools
import os
import warnings

import numpy as np
from dask import distributed

import staccato
from conftest import FIXTURES, SHIPPED_FONT


@functools.lru_cache(maxsize=None)
def instrument(path: str) -> staccato.Instrument:
    """The worker process's one copy of the instrument."""
    return staccato.Instrument(path)


def render_song(song: str, font: str) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", staccato.StaccatoWarning)
        return staccato.render(song, instrument(font), threads=1)


def render_on_worker(song: str, font: str) -> tuple[int, np.ndarray]:
    """The song's audio, and which process rendered it."""
    return os.getpid(), render_song(song, font)


def test_a_local_cluster_of_two_processes_renders_what_one_process_does():
    font = str(SHIPPED_FONT)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.wait_for_workers(2)
        results = client.gather(client.map(render_on_worker, [str(song) for song in FIXTURES], font=font, pure=False))
    assert len({pid for pid, _ in results} - {os.getpid()}) == 2, "both worker processes rendered"
    for song, (_, audio) in zip(FIXTURES, results):
        assert np.array_equal(audio, render_song(str(song), font)), song.name
