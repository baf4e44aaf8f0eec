#!/usr/bin/env python3
"""Side-by-side offline render speed of Python MIDI renderers and Staccato, as whole processes.

    python bench/python/compare_renderers.py --rounds 3 --json bench/results/python-renderers.json

Run it with a Python that has pretty_midi, pyfluidsynth, tinysoundfont, mido, numpy and the
staccato package installed (see bench/python/README.md); the `fluidsynth` command and the release
`staccato` command (.build/release/staccato, or --staccato) are run as child processes.

Every engine renders the same songs through the same font at the same rate. Each round runs every
engine once over all the songs, engines in a fixed order (A B C ... then A B C ... again), so a
drift in the machine's speed falls on all of them alike. Each timed unit is a whole process (a
fresh interpreter or command: imports, font load, render, and for the commands the file written),
timed from the parent by wall clock, with its CPU time and peak RSS from wait4. An engine's figure
for a round is the songs' seconds of music divided by the wall seconds of all its processes in that
round ("x real time"); the figure quoted is the median over rounds, and each engine's ratio against
staccato.render_many is the median of the per-round ratios (both measured in the same round).

Seconds of music: the MIDI file's own duration (mido's MidiFile.length, the time of its last
event), the same for every engine, so the ratios are ratios of wall time. What each engine actually
rendered (its own output's frames / rate; tails differ) is recorded beside it.

Before the timed rounds one untimed warm-up pass renders the first song with every engine (the font
and songs then sit in the page cache) and checks that each output is not silent.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
WORKER = HERE / "render_worker.py"
DEFAULT_FONT = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
DEFAULT_SONG_DIR = "/usr/share/games/openttd/baseset/openmsx"
TEST_DIRS = [REPO / "Tests", REPO / "python" / "tests"]

# name, how it renders (for the table), kind: per-song process or one process for every song
ENGINES = [
    ("pretty_midi", "PrettyMIDI(song).fluidsynth(fs, sf2_path): a process a song, instruments one at a time, mono float64", "song"),
    ("pyfluidsynth", "fluidsynth.Synth loop over mido messages, get_samples between them: a process a song", "song"),
    ("tinysoundfont_default", "tinysoundfont Synth + Sequencer.midi_load (default persistent events) + generate: a process a song", "song"),
    ("tinysoundfont", "tinysoundfont Synth + Sequencer, midi.load(persistent=False) + generate: a process a song", "song"),
    ("fluidsynth_cli", "fluidsynth -ni -F out.wav -r RATE FONT song.mid: a process a song (16-bit WAV)", "song"),
    ("staccato_cli_1_thread", "staccato render SONG --soundfont FONT --out x.wav --threads 1: a process a song (float WAV)", "song"),
    ("staccato_cli_batch", "staccato render SONGS... --soundfont FONT --out-dir DIR: one process, every core (float WAVs)", "batch"),
    ("staccato_render", "staccato.render(song, FONT) into memory: a Python process a song, every core", "song"),
    ("staccato_render_many", "staccato.render_many(songs, FONT) into memory: one Python process, every core", "batch"),
    ("staccato_render_many_plain", "the same, effects=False, interpolation=\"linear\": no reverb or chorus, two-point interpolation, as tinysoundfont renders", "batch"),
]
REFERENCE = "staccato_render_many"


# --- the machine ---------------------------------------------------------------------------------

def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def nproc() -> int:
    try:
        return int(subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout)
    except (OSError, subprocess.CalledProcessError, ValueError):
        return len(os.sched_getaffinity(0))


def loadavg() -> list[float]:
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except OSError:
        return []


def command_output(args: list[str]) -> str | None:
    try:
        result = subprocess.run(args, capture_output=True, text=True, timeout=30)
        return (result.stdout or result.stderr).strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def versions(python: str) -> dict:
    code = ("import importlib.metadata as m, json, platform\n"
            "v = {p: m.version(p) for p in ['pretty_midi', 'pyfluidsynth', 'tinysoundfont', 'mido', 'numpy', 'staccato']}\n"
            "v['python'] = platform.python_version()\n"
            "print(json.dumps(v))")
    found = json.loads(subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout)
    found["fluidsynth_cli"] = command_output(["fluidsynth", "--version"])
    return found


def sha256(path: str) -> str | None:
    import hashlib

    try:
        with open(path, "rb") as file:
            return hashlib.file_digest(file, "sha256").hexdigest()
    except OSError:
        return None


# --- songs -----------------------------------------------------------------------------------------

def songs_the_tests_use(candidates: list[Path]) -> set[str]:
    """Names (stems) of the candidate songs that any file under Tests/ or python/tests mentions."""
    text = []
    for folder in TEST_DIRS:
        if folder.is_dir():
            for path in folder.rglob("*"):
                if path.is_file() and path.suffix in {".swift", ".py", ".md", ".json", ".txt"}:
                    try:
                        text.append(path.read_text(errors="replace"))
                    except OSError:
                        pass
    corpus = "\n".join(text)
    return {song.stem for song in candidates if song.stem in corpus}


def choose_songs(folder: str, count: int) -> tuple[list[str], list[str]]:
    candidates = sorted(Path(folder).glob("*.mid"))
    used = songs_the_tests_use(candidates)
    used.add("keep_on_rolling")
    chosen = [str(song) for song in candidates if song.stem not in used][:count]
    return chosen, sorted(used)


def midi_seconds(python: str, songs: list[str]) -> dict[str, float]:
    code = ("import json, sys, mido\n"
            "print(json.dumps({s: mido.MidiFile(s).length for s in sys.argv[1:]}))")
    return json.loads(subprocess.run([python, "-c", code, *songs], capture_output=True, text=True, check=True).stdout)


# --- WAV headers (16-bit PCM and 32-bit float) -------------------------------------------------------

def wav_info(path: str) -> dict:
    with open(path, "rb") as file:
        header = file.read(12)
        if header[:4] != b"RIFF" or header[8:12] != b"WAVE":
            raise ValueError(f"{path}: not a WAV file")
        channels = rate = block = bits = fmt = None
        while True:
            chunk = file.read(8)
            if len(chunk) < 8:
                raise ValueError(f"{path}: no data chunk")
            name, size = chunk[:4], struct.unpack("<I", chunk[4:])[0]
            if name == b"fmt ":
                body = file.read(size + (size & 1))
                fmt, channels, rate, _, block, bits = struct.unpack("<HHIIHH", body[:16])
                if fmt == 0xFFFE and size >= 26:
                    fmt = struct.unpack("<H", body[24:26])[0]
            elif name == b"data":
                if size in (0, 0xFFFFFFFF):
                    size = os.path.getsize(path) - file.tell()
                return {"frames": size // block, "rate": rate, "channels": channels, "format": fmt, "bits": bits,
                        "data_offset": file.tell()}
            else:
                file.seek(size + (size & 1), os.SEEK_CUR)


def wav_peak(path: str) -> float:
    import numpy as np

    info = wav_info(path)
    dtype = {(1, 16): "<i2", (3, 32): "<f4", (1, 32): "<i4"}[(info["format"], info["bits"])]
    data = np.fromfile(path, dtype=dtype, offset=info["data_offset"], count=info["frames"] * info["channels"])
    peak = float(np.abs(data.astype(np.float64)).max()) if data.size else 0.0
    return peak / {"<i2": 32768.0, "<i4": 2147483648.0, "<f4": 1.0}[dtype]


# --- running one timed process ----------------------------------------------------------------------

def timed(args: list[str], env: dict | None = None, timeout: float = 1800) -> dict:
    """Runs `args` to the end; wall seconds from the parent, CPU seconds and peak RSS from wait4."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(args, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        timer = threading.Timer(timeout, process.kill)
        timer.start()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "max_rss_mb": usage.ru_maxrss / 1024,
                "exit": process.returncode, "stdout": out.read().decode(errors="replace"),
                "stderr": err.read().decode(errors="replace")}


class Runner:
    def __init__(self, args, songs: list[str]):
        self.python = args.python
        self.staccato = args.staccato
        self.font = args.font
        self.rate = args.rate
        self.songs = songs
        self.scratch = Path(tempfile.mkdtemp(prefix="python-renderers-"))

    def worker(self, engine: str, songs: list[str], extra_env: dict | None = None, check: bool = False) -> tuple[dict, list[dict]]:
        env = dict(os.environ)
        env.update(extra_env or {})
        if check:
            env["BENCH_CHECK"] = "1"
        run = timed([self.python, str(WORKER), engine, self.font, str(self.rate), *songs], env=env)
        results = []
        for line in run["stdout"].splitlines():
            line = line.strip()
            if line.startswith("{"):
                results.append(json.loads(line))
        return run, results

    def run(self, engine: str, songs: list[str], check: bool = False) -> list[dict]:
        """One engine over `songs`: a list of process records, each with the songs it rendered."""
        if engine in ("pretty_midi", "pyfluidsynth", "staccato_render", "tinysoundfont", "tinysoundfont_default"):
            name = "tinysoundfont" if engine.startswith("tinysoundfont") else engine
            extra = {"TSF_PERSISTENT": "1" if engine == "tinysoundfont_default" else "0", "TSF_BLOCK": "4096"}
            records = []
            for song in songs:
                run, results = self.worker(name, [song], extra, check)
                records.append(self.record(run, [song], results))
            return records
        if engine in ("staccato_render_many", "staccato_render_many_plain"):
            run, results = self.worker(engine, songs, None, check)
            return [self.record(run, songs, results)]
        if engine == "fluidsynth_cli":
            records = []
            for song in songs:
                out = self.scratch / "out.wav"
                run = timed(["fluidsynth", "-ni", "-F", str(out), "-r", str(self.rate), self.font, song])
                records.append(self.record(run, [song], [self.file_result(song, out, check)]))
            return records
        if engine == "staccato_cli_1_thread":
            records = []
            for song in songs:
                out = self.scratch / "x.wav"
                run = timed([self.staccato, "render", song, "--soundfont", self.font, "--out", str(out), "--threads", "1",
                             "--rate", str(self.rate)])
                records.append(self.record(run, [song], [self.file_result(song, out, check)]))
            return records
        if engine == "staccato_cli_batch":
            folder = self.scratch / "batch"
            run = timed([self.staccato, "render", *songs, "--soundfont", self.font, "--out-dir", str(folder),
                         "--rate", str(self.rate)])
            results = [self.file_result(song, folder / (Path(song).stem + ".wav"), check) for song in songs]
            shutil.rmtree(folder, ignore_errors=True)
            return [self.record(run, songs, results)]
        raise ValueError(engine)

    def file_result(self, song: str, path: Path, check: bool) -> dict:
        if not path.exists():
            return {"song": song, "error": "no output file"}
        try:
            info = wav_info(str(path))
            result = {"song": song, "frames": info["frames"], "rate": info["rate"], "channels": info["channels"]}
            if check:
                result["peak"] = wav_peak(str(path))
        except (ValueError, KeyError) as error:
            result = {"song": song, "error": str(error)}
        path.unlink()
        return result

    @staticmethod
    def record(run: dict, songs: list[str], results: list[dict]) -> dict:
        by_song = {r["song"]: r for r in results}
        missing = [s for s in songs if s not in by_song]
        for song in missing:
            by_song[song] = {"song": song, "error": "no result (exit %d): %s" % (run["exit"], run["stderr"].strip()[-300:])}
        return {"songs": songs, "wall_s": run["wall_s"], "cpu_s": run["cpu_s"], "max_rss_mb": run["max_rss_mb"],
                "exit": run["exit"], "results": [by_song[s] for s in songs],
                "stderr_tail": run["stderr"].strip()[-500:] if run["exit"] else ""}


# --- figures -----------------------------------------------------------------------------------------

def summarise(rounds: list[dict], music: dict[str, float], songs: list[str]) -> dict:
    total_music = sum(music[s] for s in songs)
    engines = {}
    for name, how, kind in ENGINES:
        per_round = []
        for one in rounds:
            records = one["engines"].get(name)
            if records is None:
                continue
            wall = sum(r["wall_s"] for r in records)
            cpu = sum(r["cpu_s"] for r in records)
            rendered = 0.0
            failures = []
            for record in records:
                for result in record["results"]:
                    if "error" in result:
                        failures.append(f"{Path(result['song']).name}: {result['error']}")
                    else:
                        rendered += result["frames"] / result["rate"]
            per_round.append({"wall_s": wall, "cpu_s": cpu, "x_real_time": total_music / wall,
                              "x_real_time_own_output": rendered / wall, "rendered_s": rendered, "failures": failures,
                              "max_rss_mb": max(r["max_rss_mb"] for r in records)})
        if not per_round:
            continue
        engines[name] = {
            "how": how, "processes_per_round": len(songs) if kind == "song" else 1,
            "x_real_time_median": statistics.median(r["x_real_time"] for r in per_round),
            "x_real_time_min": min(r["x_real_time"] for r in per_round),
            "x_real_time_max": max(r["x_real_time"] for r in per_round),
            "x_real_time_own_output_median": statistics.median(r["x_real_time_own_output"] for r in per_round),
            "wall_s_median": statistics.median(r["wall_s"] for r in per_round),
            "cpu_s_median": statistics.median(r["cpu_s"] for r in per_round),
            "rendered_s": per_round[-1]["rendered_s"],
            "max_rss_mb": max(r["max_rss_mb"] for r in per_round),
            "failures": sorted({f for r in per_round for f in r["failures"]}),
            "rounds": per_round,
        }
    if REFERENCE in engines:
        reference = engines[REFERENCE]["rounds"]
        for name, engine in engines.items():
            ratios = [a["x_real_time"] / b["x_real_time"] for a, b in zip(reference, engine["rounds"])]
            engine["render_many_ratio_median"] = statistics.median(ratios)
            engine["render_many_ratio_rounds"] = ratios
    return {"music_s": total_music, "engines": engines}


def markdown(summary: dict) -> str:
    lines = ["| engine | how it renders | x real time, median (min–max) | CPU s / round | audio rendered (s) | staccato.render_many / it |",
             "|---|---|---|---|---|---|"]
    for name, engine in summary["engines"].items():
        ratio = engine.get("render_many_ratio_median")
        lines.append(f"| {name} | {engine['how']} | {engine['x_real_time_median']:.1f}x "
                     f"({engine['x_real_time_min']:.1f}–{engine['x_real_time_max']:.1f}) | {engine['cpu_s_median']:.1f} | "
                     f"{engine['rendered_s']:.0f} | {'' if ratio is None else f'{ratio:.2f}x'} |")
    return "\n".join(lines)


def verdict(summary: dict) -> dict:
    engines = summary["engines"]
    if REFERENCE not in engines:
        return {}
    others = {n: e for n, e in engines.items() if not n.startswith("staccato")}
    fastest = max(others, key=lambda n: others[n]["x_real_time_median"]) if others else None
    result = {}
    if "pretty_midi" in engines:
        ratio = engines["pretty_midi"]["render_many_ratio_median"]
        result["vs_pretty_midi"] = {"ratio": ratio, "target": 30.0, "met": ratio >= 30.0}
    if fastest:
        ratio = engines[fastest]["render_many_ratio_median"]
        result["vs_fastest_other"] = {"engine": fastest, "ratio": ratio, "target": 3.0, "met": ratio >= 3.0}
    return result


# --- main ----------------------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--font", default=DEFAULT_FONT)
    parser.add_argument("--song-dir", default=DEFAULT_SONG_DIR)
    parser.add_argument("--songs", type=int, default=9, help="how many songs: the first in sorted order the tests do not use")
    parser.add_argument("--rate", type=int, default=48_000)
    parser.add_argument("--staccato", default=str(REPO / ".build/release/staccato"))
    parser.add_argument("--python", default=sys.executable, help="the Python the workers run in (default: this one)")
    parser.add_argument("--engines", default=",".join(e[0] for e in ENGINES))
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--markdown", help="write the table here too")
    args = parser.parse_args()

    wanted = args.engines.split(",")
    unknown = [e for e in wanted if e not in {n for n, _, _ in ENGINES}]
    if unknown:
        parser.error(f"unknown engines: {', '.join(unknown)}")
    order = [n for n, _, _ in ENGINES if n in wanted]
    songs, excluded = choose_songs(args.song_dir, args.songs)
    if not songs:
        parser.error(f"no songs in {args.song_dir}")
    music = midi_seconds(args.python, songs)
    runner = Runner(args, songs)
    machine = {"cpu_model": cpu_model(), "nproc": nproc(), "kernel": platform.release()}
    info = versions(args.python)
    info["staccato_cli"] = {"path": args.staccato,
                            "sha256": sha256(args.staccato)}
    library = subprocess.run([args.python, "-c", "import staccato._native as n; print(n.lib._name)"],
                             capture_output=True, text=True).stdout.strip()
    info["staccato_python_library"] = {"path": library, "sha256": sha256(library) if library else None}
    commit = command_output(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    print(f"{machine['cpu_model']}, nproc {machine['nproc']}; {len(songs)} songs, {sum(music.values()):.1f} s of music; "
          f"engines: {', '.join(order)}", file=sys.stderr)

    started = datetime.datetime.now(datetime.timezone.utc)
    warmup = {}
    for engine in order:
        records = runner.run(engine, songs[:1], check=True)
        warmup[engine] = [r for record in records for r in record["results"]]
        print(f"warm-up {engine}: {warmup[engine]}", file=sys.stderr)

    rounds = []
    for number in range(args.rounds):
        one = {"round": number + 1, "loadavg_before": loadavg(), "engines": {}}
        for engine in order:
            records = runner.run(engine, songs)
            one["engines"][engine] = records
            wall = sum(r["wall_s"] for r in records)
            print(f"round {number + 1} {engine}: {wall:.2f} s, {sum(music.values()) / wall:.1f}x", file=sys.stderr)
        one["loadavg_after"] = loadavg()
        rounds.append(one)
    finished = datetime.datetime.now(datetime.timezone.utc)
    shutil.rmtree(runner.scratch, ignore_errors=True)

    summary = summarise(rounds, music, songs)
    table = markdown(summary)
    report = {
        "benchmark": "python-renderers",
        "started": started.isoformat(timespec="seconds"), "finished": finished.isoformat(timespec="seconds"),
        "machine": machine, "versions": info, "commit": commit,
        "command": " ".join([Path(sys.executable).name if args.python == sys.executable else args.python,
                             "bench/python/compare_renderers.py", *sys.argv[1:]]),
        "font": args.font, "rate": args.rate, "rounds": args.rounds,
        "songs": [{"path": s, "midi_seconds": music[s]} for s in songs],
        "songs_excluded_as_used_by_tests": excluded,
        "music_s": summary["music_s"],
        "audio_seconds": "the MIDI files' durations (mido MidiFile.length), the same for every engine; "
                         "x_real_time_own_output uses each engine's own output length instead",
        "engines": summary["engines"],
        "verdict": verdict(summary),
        "warmup": warmup,
        "round_detail": rounds,
    }
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")
    print(table)
    for key, value in report["verdict"].items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
