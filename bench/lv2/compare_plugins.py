#!/usr/bin/env python3
"""Render speed through LV2 plug-ins beside Staccato's own offline render, in one run.

    python3 bench/lv2/compare_plugins.py --rounds 3 --json bench/results/lv2-plugins.json \
        --markdown bench/results/lv2-plugins.md

Each song is rendered at 48 kHz through FluidR3_GM (Debian's fluid-soundfont-gm) by:
  - staccato offline: the C ABI's staccato_render_song on one thread (bench/lv2/offline_render.c),
    the instrument loaded before the clock starts;
  - staccato.lv2: the plug-in, hosted by Tests/LV2Host/lv2-host (lilv) in blocks of 256 frames,
    the song's MIDI sent event by event at its frames, the instrument set by patch:Set;
  - a-fluidsynth.lv2: Ardour's FluidSynth plug-in (Debian's ardour package, libfluidsynth 2.3),
    hosted by the same harness the same way, when it is installed.
x42's gmsynth, which the comparison was first meant to include, is not in Debian 12's x42-plugins.

Each plug-in renders as many frames as the offline render wrote for the song (the song and its
release tail), so every figure is for the same audio. Within a round the three run one after the
other, in a fixed order (A B C, then A B C again next round), so a drift in the machine's speed
falls on all of them alike. Each process times only its render loop (median of 3 passes in the
process); the figure quoted is the median over rounds of seconds of audio per second of wall time
("x real time"), and each ratio is the median of the per-round ratios.
"""
from __future__ import annotations

import argparse
import datetime
import glob
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FONT = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
SONGS = [
    "/usr/share/games/openttd/baseset/openmsx/boogi_marabi_redfarn.mid",
    "/usr/share/games/openttd/baseset/openmsx/keep_on_rolling.mid",
    "/usr/share/games/openttd/baseset/openmsx/tttheme2.mid",
    os.path.join(ROOT, "samples/midi/mozart_turkish_march.mid"),
]
PLUGINS = [
    ("staccato.lv2", "urn:staccato:lv2:sampler", "urn:staccato:lv2:sampler#instrument"),
    ("a-fluidsynth.lv2", "urn:ardour:a-fluidsynth", "urn:ardour:a-fluidsynth:sf2file"),
]
BLOCK = 256


def run_json(command: list[str], environment: dict[str, str] | None = None) -> dict:
    result = subprocess.run(command, capture_output=True, text=True, env=environment)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        sys.exit(f"compare_plugins: {' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    return json.loads(lines[-1])


def build(work: str) -> tuple[str, str, str]:
    """The LV2 bundle, libstaccato, the host and the offline renderer; returns their paths."""
    bundle = subprocess.run([os.path.join(ROOT, "scripts/build-lv2")], capture_output=True, text=True, check=True).stdout.strip()
    library = subprocess.run([os.path.join(ROOT, "scripts/build-library")], capture_output=True, text=True, check=True).stdout.strip()
    host, offline = os.path.join(work, "lv2-host"), os.path.join(work, "offline_render")
    lilv = subprocess.run(["pkg-config", "--cflags", "--libs", "lilv-0"], capture_output=True, text=True, check=True).stdout.split()
    subprocess.run(["gcc", "-O2", "-o", host, *sorted(glob.glob(os.path.join(ROOT, "Tests/LV2Host/*.c"))),
                    os.path.join(ROOT, "Tests/CAllocationCounter/counter.c"), "-I", os.path.join(ROOT, "Tests/CAllocationCounter/include"),
                    *lilv, "-lpthread", "-lm", "-rdynamic"], check=True)
    library_dir = os.path.dirname(library)
    subprocess.run(["gcc", "-O2", "-o", offline, os.path.join(ROOT, "bench/lv2/offline_render.c"),
                    "-I", os.path.join(ROOT, "Sources/Fronts/CStaccato/include"), "-L", library_dir, "-lstaccato",
                    f"-Wl,-rpath,{library_dir}"], check=True)
    return os.path.dirname(bundle), host, offline


def cpu_model() -> str:
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    arguments = parser.parse_args()

    work = tempfile.mkdtemp()
    lv2_dir, host, offline = build(work)
    environment = dict(os.environ, LV2_PATH=f"{lv2_dir}:/usr/lib/lv2")
    plugins = [plugin for plugin in PLUGINS
               if plugin[0] == "staccato.lv2" or os.path.isdir(f"/usr/lib/lv2/{plugin[0]}")]
    rows = []
    for song in SONGS:
        rounds = []
        for _ in range(arguments.rounds):
            figures = {"staccato offline": run_json([offline, FONT, song, "3"])}
            seconds = figures["staccato offline"]["audio_seconds"]
            for name, uri, parameter in plugins:
                figures[name] = run_json([host, "bench", uri, song, str(BLOCK), parameter, FONT, f"{seconds:.6f}"], environment)
            rounds.append(figures)
        names = list(rounds[0])
        row = {"song": os.path.basename(song), "audio_seconds": rounds[0]["staccato offline"]["audio_seconds"], "engines": {}}
        for name in names:
            factors = [figures[name]["realtime_factor"] for figures in rounds]
            row["engines"][name] = {
                "realtime_factor_median": statistics.median(factors),
                "realtime_factors": factors,
                "median_seconds": statistics.median(figures[name]["median_seconds"] for figures in rounds),
                "run_allocations": rounds[-1][name].get("run_allocations"),
                "peak": rounds[-1][name].get("peak"),
            }
        plugin_ratios = [figures["staccato.lv2"]["realtime_factor"] / figures["staccato offline"]["realtime_factor"] for figures in rounds]
        row["staccato_lv2_vs_offline"] = statistics.median(plugin_ratios)
        if "a-fluidsynth.lv2" in names:
            row["staccato_lv2_vs_a_fluidsynth"] = statistics.median(
                figures["staccato.lv2"]["realtime_factor"] / figures["a-fluidsynth.lv2"]["realtime_factor"] for figures in rounds)
        rows.append(row)
        print(json.dumps(row), flush=True)

    report = {
        "benchmark": "LV2 plug-ins beside Staccato's offline render",
        "date": datetime.date.today().isoformat(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "font": FONT,
        "block_frames": BLOCK,
        "rounds": arguments.rounds,
        "songs": rows,
    }
    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump(report, file, indent=2)
            file.write("\n")
    if arguments.markdown:
        with open(arguments.markdown, "w") as file:
            file.write(markdown(report))


def markdown(report: dict) -> str:
    names = list(report["songs"][0]["engines"])
    lines = [
        f"LV2 render speed, {report['date']}, {report['cpu']} ({report['cores']} cores), {report['font'].split('/')[-1]}, "
        f"48 kHz, plug-ins in blocks of {report['block_frames']} frames; median of {report['rounds']} rounds, "
        "seconds of audio per second of wall time.",
        "",
        "| song | audio | " + " | ".join(names) + " | staccato.lv2 / offline | staccato.lv2 / a-fluidsynth | run() heap calls (staccato.lv2, a-fluidsynth.lv2) |",
        "|---|---:|" + "---:|" * len(names) + "---:|---:|---|",
    ]
    for row in report["songs"]:
        engines = row["engines"]
        cells = [f"{engines[name]['realtime_factor_median']:.1f}x" for name in names]
        allocations = ", ".join(str(engines[name]["run_allocations"]) for name in names if name.endswith(".lv2"))
        against_fluid = f"{row['staccato_lv2_vs_a_fluidsynth']:.2f}x" if "staccato_lv2_vs_a_fluidsynth" in row else "-"
        lines.append(f"| {row['song']} | {row['audio_seconds']:.1f} s | " + " | ".join(cells)
                     + f" | {row['staccato_lv2_vs_offline']:.3f} | {against_fluid} | {allocations} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
