"""Reads a SoundFont 2's structure with the standard library alone, independently of Staccato's
loader: its RIFF chunks, the hydra (phdr/pbag/pgen/inst/ibag/igen/shdr) as tuples, and zones as
dicts of generators. Shared by samples/piano/make-piano.py and the test scripts that check the
loader against the file itself.
"""
import struct

KEY_RANGE, VEL_RANGE, INSTRUMENT, SAMPLE_ID = 43, 44, 41, 53


def chunks(data, start, end):
    """(tag, body offset, size) of each RIFF chunk from `start` to `end`."""
    while start + 8 <= end:
        tag, size = data[start:start + 4].decode("latin-1"), struct.unpack_from("<I", data, start + 4)[0]
        yield tag, start + 8, size
        start += 8 + size + (size & 1)


def hydra(path):
    """The font's hydra tables, by name, each a list of tuples; "smpl" the 16-bit sample data."""
    data = open(path, "rb").read()
    tables, sample_data = {}, None
    for tag, start, size in chunks(data, 12, len(data)):
        kind = data[start:start + 4]
        for sub, sub_start, sub_size in chunks(data, start + 4, start + size):
            if kind == b"pdta":
                tables[sub] = data[sub_start:sub_start + sub_size]
            elif kind == b"sdta" and sub == "smpl":
                sample_data = data[sub_start:sub_start + sub_size]

    def records(name, fmt):
        size = struct.calcsize(fmt)
        return [struct.unpack_from(fmt, tables[name], offset) for offset in range(0, len(tables[name]), size)]
    return {"phdr": records("phdr", "<20sHHHIII"), "pbag": records("pbag", "<HH"), "pgen": records("pgen", "<HH"),
            "inst": records("inst", "<20sH"), "ibag": records("ibag", "<HH"), "igen": records("igen", "<HH"),
            "shdr": records("shdr", "<20sIIIIIbbHH"), "smpl": sample_data}


def zones(bags, gens, first, last, link):
    """Each zone's generators as a dict (raw 16-bit amounts); the first zone is global when it
    lacks the link generator (INSTRUMENT for a preset, SAMPLE_ID for an instrument)."""
    result = [{gens[g][0]: gens[g][1] for g in range(bags[b][0], bags[b + 1][0])} for b in range(first, last)]
    global_zone = result.pop(0) if result and link not in result[0] else {}
    return global_zone, result


def span(generators, operator):
    """A key or velocity range generator as (low, high); the whole range when absent."""
    value = generators.get(operator, 127 << 8)
    return value & 0xFF, value >> 8


def signed(generators, operator, default):
    """A generator's amount as the signed number it is, or `default` when absent."""
    if operator not in generators:
        return default
    value = generators[operator]
    return value - 0x10000 if value >= 0x8000 else value
