#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora (small, valid inputs the fuzzer mutates) into fuzz/corpus/.

sf2: a minimal SoundFont 2 built here (one preset, one instrument, one looped 200-frame sample);
smf: the two smallest MIDI fixtures, whole (with their licences); midi-stream: a few byte streams with
running status, real-time bytes and SysEx; kit: small manifests.
"""
import os, struct, shutil, math

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
corpus = os.path.join(here, "corpus")

def chunk(tag, data):
    pad = b"\0" if len(data) % 2 else b""
    return tag + struct.pack("<I", len(data)) + data + pad

def listchunk(kind, *chunks):
    return chunk(b"LIST", kind + b"".join(chunks))

def sf2():
    frames = 200
    samples = b"".join(struct.pack("<h", int(12000 * math.sin(2 * math.pi * i / 50))) for i in range(frames)) + b"\0\0" * 46
    info = listchunk(b"INFO", chunk(b"ifil", struct.pack("<HH", 2, 4)), chunk(b"isng", b"EMU8000\0"), chunk(b"INAM", b"fuzz seed\0\0"))
    sdta = listchunk(b"sdta", chunk(b"smpl", samples))
    name = lambda text: text.encode().ljust(20, b"\0")
    phdr = name("Seed") + struct.pack("<HHHIII", 0, 0, 0, 0, 0, 0) + name("EOP") + struct.pack("<HHHIII", 0, 0, 1, 0, 0, 0)
    pbag = struct.pack("<HH", 0, 0) + struct.pack("<HH", 1, 0)
    pmod = b"\0" * 10
    pgen = struct.pack("<Hh", 41, 0) + struct.pack("<Hh", 0, 0)  # instrument 0
    inst = name("SeedInst") + struct.pack("<H", 0) + name("EOI") + struct.pack("<H", 1)
    ibag = struct.pack("<HH", 0, 0) + struct.pack("<HH", 3, 0)
    imod = b"\0" * 10
    igen = struct.pack("<HBB", 43, 0, 127) + struct.pack("<Hh", 54, 1) + struct.pack("<Hh", 53, 0) + struct.pack("<Hh", 0, 0)
    shdr = name("SeedSample") + struct.pack("<IIIIIBbHH", 0, frames, 50, 150, 48000, 60, 0, 0, 1) + name("EOS") + b"\0" * 26
    pdta = listchunk(b"pdta", chunk(b"phdr", phdr), chunk(b"pbag", pbag), chunk(b"pmod", pmod), chunk(b"pgen", pgen),
                     chunk(b"inst", inst), chunk(b"ibag", ibag), chunk(b"imod", imod), chunk(b"igen", igen), chunk(b"shdr", shdr))
    body = b"sfbk" + info + sdta + pdta
    return b"RIFF" + struct.pack("<I", len(body)) + body

def write(target, name, data):
    os.makedirs(os.path.join(corpus, target), exist_ok=True)
    with open(os.path.join(corpus, target, name), "wb") as f:
        f.write(data)

write("sf2", "minimal.sf2", sf2())
os.makedirs(os.path.join(corpus, "smf"), exist_ok=True)
for fixture in ["mozart_turkish_march.mid", "bach_bwv772_sankey.mid"]:
    for suffix in ["", ".LICENSE"]:
        shutil.copy(os.path.join(root, "Tests/Fixtures/midi", fixture + suffix), os.path.join(corpus, "smf", fixture + suffix))
write("midi-stream", "notes.bin", bytes([0x90, 60, 100, 62, 100, 0x80, 60, 0, 0xB0, 64, 127, 0xE0, 0, 64, 0xC0, 5]))
write("midi-stream", "realtime-sysex.bin", bytes([0x90, 60, 0xF8, 100, 0xF0, 1, 2, 3, 0xF7, 0x91, 64, 90, 0xFE, 64, 0]))
write("kit", "kit.json", b'{"name": "seed", "pads": [{"name": "kick", "file": "kick.wav", "note": 36, "alsoNotes": [35], "gain": -3, "voices": 2, "chokeGroup": "a"}, {"name": "hat", "file": "hat.wav", "note": 42, "chokeGroup": "a"}]}')
write("kit", "shipped.json", open(os.path.join(root, "samples/drums/kit.json"), "rb").read())
