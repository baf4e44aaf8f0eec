"""`python -m staccato`: the `staccato` command's render and presets, through the library.

    python -m staccato render SONG.mid --out song.wav [--soundfont FONT] [--rate HZ] ...
    python -m staccato render A.mid B.mid --out-dir renders/ [--format flac] [--threads N]
    python -m staccato presets FONT.sf2
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings

import staccato


def _render(arguments: argparse.Namespace) -> int:
    options = dict(rate=arguments.rate, effects=not arguments.no_effects, program=arguments.program, gain_db=arguments.gain,
                   interpolation=arguments.interpolation)
    started = time.monotonic()
    instrument = staccato.Instrument(arguments.soundfont, rate=arguments.rate)
    if arguments.out:
        if len(arguments.songs) != 1:
            raise staccato.Error("--out takes one MIDI file; --out-dir renders many")
        staccato.render_file(arguments.songs[0], arguments.out, instrument, threads=arguments.threads, **options)
        print(f"rendered {arguments.songs[0]} with {instrument.path} to {arguments.out} "
              f"({time.monotonic() - started:.2f} s with loading)")
        return 0
    failures = 0
    for song, result in zip(arguments.songs, staccato.render_many(arguments.songs, instrument, out_dir=arguments.out_dir,
                                                                  format=arguments.format, workers=arguments.threads, **options)):
        if isinstance(result, staccato.Error):
            failures += 1
            print(f"staccato: {result}", file=sys.stderr)
        else:
            print(f"{song} to {result}")
    print(f"{len(arguments.songs) - failures} of {len(arguments.songs)} rendered into {arguments.out_dir} "
          f"in {time.monotonic() - started:.2f} s")
    return 1 if failures else 0


def _presets(arguments: argparse.Namespace) -> int:
    for preset in staccato.Instrument(arguments.instrument).presets:
        print(f"{preset.bank:3d}:{preset.program:3d}  {preset.name}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m staccato", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    render = commands.add_parser("render", help="render MIDI files offline, as `staccato render` does")
    render.add_argument("songs", nargs="+", metavar="SONG.mid")
    where = render.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", metavar="FILE", help="the output file, for one MIDI file: .wav (32-bit float), .flac, .ogg or .mp3")
    where.add_argument("--out-dir", metavar="DIR", help="the folder each MIDI file renders into, as NAME.FORMAT")
    render.add_argument("--format", default="wav", choices=["wav", "flac", "ogg", "mp3"], help="what --out-dir writes")
    render.add_argument("--soundfont", metavar="FONT", help="SoundFont (SF2, SF3) or SFZ instrument (default: the system's General MIDI font)")
    render.add_argument("--rate", type=int, default=staccato.DEFAULT_RATE, metavar="HZ")
    render.add_argument("--threads", type=int, default=None, metavar="N", help="--out-dir: files at once; --out: threads per file")
    render.add_argument("--program", type=int, default=None, metavar="N", help="play every melodic channel with program N")
    render.add_argument("--gain", type=float, default=None, metavar="DB", help="the song's gain in dB (default -14)")
    render.add_argument("--no-effects", action="store_true", help="no reverb or chorus")
    render.add_argument("--interpolation", default="cubic", choices=["cubic", "linear"], help="how samples are read between frames")
    render.set_defaults(run=_render)
    presets = commands.add_parser("presets", help="list an instrument's presets")
    presets.add_argument("instrument", metavar="FONT")
    presets.set_defaults(run=_presets)
    arguments = parser.parse_args(argv)
    # Warnings print as the command prints them: one line each, named as such.
    warnings.showwarning = lambda message, *_: print(f"staccato: warning: {message}", file=sys.stderr)
    try:
        return arguments.run(arguments)
    except staccato.Error as error:
        print(f"staccato: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
