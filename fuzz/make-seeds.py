#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora (small, valid inputs the fuzzer mutates) into fuzz/corpus/.

sf2: a minimal SoundFont 2 built here (one preset, one instrument, one looped 200-frame sample), and
two SoundFont 3 files: the same with the sample Ogg Vorbis compressed (encoded by libsndfile through
ctypes), and one mixing a compressed and a PCM sample;
smf: the two smallest MIDI fixtures, whole (with their licences); midi-stream: a few byte streams with
running status, real-time bytes and SysEx; kit: small manifests.
"""
import ctypes, ctypes.util, os, struct, shutil, math, tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
corpus = os.path.join(here, "corpus")

def chunk(tag, data):
    pad = b"\0" if len(data) % 2 else b""
    return tag + struct.pack("<I", len(data)) + data + pad

def listchunk(kind, *chunks):
    return chunk(b"LIST", kind + b"".join(chunks))

def vorbis(frames, rate=48000):
    """Mono float frames as an Ogg Vorbis stream, written by libsndfile (SF_FORMAT_OGG | SF_FORMAT_VORBIS)."""
    sndfile = ctypes.CDLL(ctypes.util.find_library("sndfile"))
    class Info(ctypes.Structure):
        _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int), ("channels", ctypes.c_int),
                    ("format", ctypes.c_int), ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]
    sndfile.sf_open.restype = ctypes.c_void_p
    sndfile.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(Info)]
    sndfile.sf_writef_float.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.c_int64]
    sndfile.sf_close.argtypes = [ctypes.c_void_p]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "seed.ogg")
        info = Info(0, rate, 1, 0x200000 | 0x0060, 0, 0)
        handle = sndfile.sf_open(path.encode(), 0x20, ctypes.byref(info))
        assert handle, "libsndfile cannot write Ogg Vorbis"
        data = (ctypes.c_float * len(frames))(*frames)
        sndfile.sf_writef_float(handle, data, len(frames))
        sndfile.sf_close(handle)
        return open(path, "rb").read()

def sf2(compressed=(False,)):
    """One preset and instrument; one looped 200-frame sample per entry of `compressed`, key ranges
    split between them; a compressed one (SF3, version 3.01) is a Vorbis stream addressed in bytes
    with its loop relative to its start."""
    frames = 200
    sine = [12000 * math.sin(2 * math.pi * i / 50) for i in range(frames)]
    version = (3, 1) if any(compressed) else (2, 4)
    smpl, headers = b"", b""
    name = lambda text: text.encode().ljust(20, b"\0")
    for index, packed in enumerate(compressed):
        if packed:
            stream = vorbis([value / 32768 for value in sine])
            start, end, loop = len(smpl), len(smpl) + len(stream), 0
            smpl += stream + (b"\0" if len(stream) % 2 else b"")
        else:
            start, end = len(smpl) // 2, len(smpl) // 2 + frames
            loop = start
            smpl += b"".join(struct.pack("<h", int(value)) for value in sine) + b"\0\0" * 46
        headers += name("SeedSample" + (str(index) if index else "")) + struct.pack("<IIIIIBbHH", start, end, loop + 50, loop + 150, 48000, 60, 0, 0,
                                                              0x11 if packed else 1)
    info = listchunk(b"INFO", chunk(b"ifil", struct.pack("<HH", *version)), chunk(b"isng", b"EMU8000\0"), chunk(b"INAM", b"fuzz seed\0\0"))
    sdta = listchunk(b"sdta", chunk(b"smpl", smpl))
    phdr = name("Seed") + struct.pack("<HHHIII", 0, 0, 0, 0, 0, 0) + name("EOP") + struct.pack("<HHHIII", 0, 0, 1, 0, 0, 0)
    pbag = struct.pack("<HH", 0, 0) + struct.pack("<HH", 1, 0)
    pmod = b"\0" * 10
    pgen = struct.pack("<Hh", 41, 0) + struct.pack("<Hh", 0, 0)  # instrument 0
    zones = len(compressed)
    inst = name("SeedInst") + struct.pack("<H", 0) + name("EOI") + struct.pack("<H", zones)
    ibag = b"".join(struct.pack("<HH", 3 * zone, 0) for zone in range(zones + 1))
    imod = b"\0" * 10
    width = 128 // zones
    igen = b"".join(struct.pack("<HBB", 43, zone * width, (zone + 1) * width - 1) + struct.pack("<Hh", 54, 1) + struct.pack("<Hh", 53, zone)
                    for zone in range(zones)) + struct.pack("<Hh", 0, 0)
    shdr = headers + name("EOS") + b"\0" * 26
    pdta = listchunk(b"pdta", chunk(b"phdr", phdr), chunk(b"pbag", pbag), chunk(b"pmod", pmod), chunk(b"pgen", pgen),
                     chunk(b"inst", inst), chunk(b"ibag", ibag), chunk(b"imod", imod), chunk(b"igen", igen), chunk(b"shdr", shdr))
    body = b"sfbk" + info + sdta + pdta
    return b"RIFF" + struct.pack("<I", len(body)) + body

def write(target, name, data):
    os.makedirs(os.path.join(corpus, target), exist_ok=True)
    with open(os.path.join(corpus, target, name), "wb") as f:
        f.write(data)

write("sf2", "minimal.sf2", sf2())
write("sf2", "minimal.sf3", sf2(compressed=(True,)))
write("sf2", "mixed.sf3", sf2(compressed=(True, False)))
os.makedirs(os.path.join(corpus, "smf"), exist_ok=True)
for fixture in ["mozart_turkish_march.mid", "bach_bwv772_sankey.mid"]:
    for suffix in ["", ".LICENSE"]:
        shutil.copy(os.path.join(root, "Tests/Fixtures/midi", fixture + suffix), os.path.join(corpus, "smf", fixture + suffix))
write("midi-stream", "notes.bin", bytes([0x90, 60, 100, 62, 100, 0x80, 60, 0, 0xB0, 64, 127, 0xE0, 0, 64, 0xC0, 5]))
write("midi-stream", "realtime-sysex.bin", bytes([0x90, 60, 0xF8, 100, 0xF0, 1, 2, 3, 0xF7, 0x91, 64, 90, 0xFE, 64, 0]))
write("kit", "kit.json", b'{"name": "seed", "pads": [{"name": "kick", "file": "kick.wav", "note": 36, "alsoNotes": [35], "gain": -3, "voices": 2, "chokeGroup": "a"}, {"name": "hat", "file": "hat.wav", "note": 42, "chokeGroup": "a"}]}')
write("kit", "shipped.json", open(os.path.join(root, "samples/drums/kit.json"), "rb").read())
