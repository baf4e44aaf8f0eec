#!/usr/bin/env python3
"""The expected numbers of ShippedFontTests, read from the two shipped SoundFonts independently of
the engine's loader: walks the RIFF chunks, reads phdr/pbag/pgen/inst/ibag/igen/shdr with
struct.unpack, treats a first zone without its link generator (instrument, sampleID) as global,
intersects key and velocity ranges, and prints, per preset, the zone count and what key 60 at
velocity 100 plays.

    python3 Tests/SoundFontTests/Scripts/shipped_font_facts.py soundfonts/*.sf2
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from sf2_hydra import INSTRUMENT, KEY_RANGE, SAMPLE_ID, VEL_RANGE, hydra, span, zones  # noqa: E402

PAN, SAMPLE_MODES, ROOT_KEY, EXCLUSIVE_CLASS = 17, 54, 58, 57


def facts(path):
    h = hydra(path)
    print(path)
    for index, preset in enumerate(h["phdr"][:-1]):
        name, program, bank, bag = preset[0].split(b"\0")[0].decode(), preset[1], preset[2], preset[3]
        preset_global, preset_zones = zones(h["pbag"], h["pgen"], bag, h["phdr"][index + 1][3], INSTRUMENT)
        count, sounding = 0, []
        for pz in preset_zones:
            instrument = pz[INSTRUMENT]
            inst_global, inst_zones = zones(h["ibag"], h["igen"], h["inst"][instrument][1], h["inst"][instrument + 1][1], SAMPLE_ID)
            for iz in inst_zones:
                merged = {**inst_global, **iz}
                keys = [span(g, KEY_RANGE) for g in (preset_global, pz, merged)]
                vels = [span(g, VEL_RANGE) for g in (preset_global, pz, merged)]
                low_key, high_key = max(k[0] for k in keys), min(k[1] for k in keys)
                low_vel, high_vel = max(v[0] for v in vels), min(v[1] for v in vels)
                if low_key > high_key or low_vel > high_vel:
                    continue
                count += 1
                if low_key <= 60 <= high_key and low_vel <= 100 <= high_vel:
                    sample = h["shdr"][merged[SAMPLE_ID]]
                    start, end, loop_start, loop_end, rate, pitch = sample[1:7]
                    root = merged.get(ROOT_KEY, pitch)
                    pan = struct.unpack("<h", struct.pack("<H", merged.get(PAN, 0)))[0]
                    frames = [struct.unpack_from("<h", h["smpl"], 2 * (start + 1000 + i))[0] for i in range(5)]
                    sample_name = sample[0].split(b"\0")[0].decode()
                    sounding.append(f"{sample_name}: root {root}, {rate} Hz, pan {pan}, "
                                    f"modes {merged.get(SAMPLE_MODES, 0)}, velocity {low_vel}-{high_vel}, "
                                    f"length {end - start}, loop {loop_end - loop_start}, "
                                    f"exclusive class {merged.get(EXCLUSIVE_CLASS, 0)}, frames at +1000 {frames}")
        print(f"  {bank}:{program} {name}: {count} zones; key 60 velocity 100 plays:")
        for line in sounding:
            print(f"    {line}")


for font in sys.argv[1:]:
    facts(font)
