#!/usr/bin/env python3
"""Writes the shipped piano as an SFZ instrument: the Yamaha Grand of soundfonts/FluidR3_GM_piano_xylo.sf2
(MIT, Frank Wen; see soundfonts/FluidR3_GM_piano_xylo.sf2.LICENSE) with its samples as WAV files.

    samples/piano/make-piano.py [FOLDER]      (default: this script's folder)

Writes FOLDER/piano.sfz, FOLDER/zones.sfz and FOLDER/wav/*.wav: one stereo 16-bit WAV per key zone
(the font's left and right samples side by side, at their own 32 kHz, with the loop in a `smpl`
chunk), nine velocity layers (<master>) of 27 key zones (<group>), and every value the font gives
the preset: envelope times, the filter and its envelope, the level. Only the standard library.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FONT = os.path.join(HERE, '..', '..', 'soundfonts', 'FluidR3_GM_piano_xylo.sf2')
PRESET = b'Yamaha Grand Piano'
# FluidSynth scales initialAttenuation by 0.4 (as the EMU hardware did); so does Staccato's SF2 loader.
ATTENUATION_SCALE = 0.4


def chunks(data, offset, end):
    while offset + 8 <= end:
        tag, size = data[offset:offset + 4], struct.unpack('<I', data[offset + 4:offset + 8])[0]
        yield tag, offset + 8, size
        offset += 8 + size + (size & 1)


def read_font(path):
    data = open(path, 'rb').read()
    tables, samples = {}, None
    for tag, offset, size in chunks(data, 12, len(data)):
        if tag != b'LIST':
            continue
        kind = data[offset:offset + 4]
        for inner, start, length in chunks(data, offset + 4, offset + size):
            if kind == b'pdta':
                tables[inner.decode()] = data[start:start + length]
            elif kind == b'sdta' and inner == b'smpl':
                samples = data[start:start + length]

    def records(name, layout):
        width = struct.calcsize(layout)
        table = tables[name]
        return [struct.unpack(layout, table[i:i + width]) for i in range(0, len(table), width)]

    return {
        'phdr': records('phdr', '<20sHHHIII'), 'pbag': records('pbag', '<HH'), 'pgen': records('pgen', '<HH'),
        'inst': records('inst', '<20sH'), 'ibag': records('ibag', '<HH'), 'igen': records('igen', '<HH'),
        'shdr': records('shdr', '<20sIIIIIBbHH'), 'samples': samples,
    }


def signed(value):
    return value - 0x10000 if value >= 0x8000 else value


def zones(font, bags, gens, first, last):
    """Each zone's generators (operator -> amount, ranges as (low, high)), the global zone first."""
    result = []
    for bag in range(first, last):
        zone = {}
        for operator, amount in gens[bags[bag][0]:bags[bag + 1][0]]:
            zone[operator] = (amount & 0xFF, amount >> 8) if operator in (43, 44) else amount
        result.append(zone)
    return result


def seconds(timecents):
    return 0.0 if timecents <= -12000 else 2 ** (timecents / 1200)


def hertz(cents):
    return 8.176 * 2 ** (cents / 1200)


def number(value):
    return f'{value:.6g}'


def write_wav(path, left, right, rate, loop_start, loop_end):
    frames = min(len(left), len(right))
    data = bytearray()
    for index in range(frames):
        data += struct.pack('<hh', left[index], right[index])
    # smpl: 36 bytes of header (the unity note at 12, the loop count at 28), then one loop whose end
    # is its last frame, as the chunk counts it.
    smpl = struct.pack('<9I', 0, 0, 1_000_000_000 // rate, 60, 0, 0, 0, 1, 0)
    smpl += struct.pack('<6I', 0, 0, loop_start, loop_end - 1, 0, 0)
    fmt = struct.pack('<HHIIHH', 1, 2, rate, rate * 4, 4, 16)
    body = b'WAVE' + b'fmt ' + struct.pack('<I', len(fmt)) + fmt
    body += b'smpl' + struct.pack('<I', len(smpl)) + smpl
    body += b'data' + struct.pack('<I', len(data)) + bytes(data)
    with open(path, 'wb') as file:
        file.write(b'RIFF' + struct.pack('<I', len(body)) + body)


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else HERE
    os.makedirs(os.path.join(folder, 'wav'), exist_ok=True)
    font = read_font(FONT)
    phdr, shdr, pcm = font['phdr'], font['shdr'], font['samples']
    index = next(i for i, p in enumerate(phdr) if p[0].split(b'\0')[0] == PRESET)
    preset = zones(font, font['pbag'], font['pgen'], phdr[index][3], phdr[index + 1][3])
    preset_global = preset[0] if 41 not in preset[0] else {}
    layers = [zone for zone in preset if 41 in zone]
    instrument_index = layers[0][41]
    inst = font['inst']
    instrument = zones(font, font['ibag'], font['igen'], inst[instrument_index][1], inst[instrument_index + 1][1])
    instrument_global = instrument[0] if 53 not in instrument[0] else {}
    pairs = {}
    for zone in instrument:
        if 53 not in zone:
            continue
        merged = {**instrument_global, **zone}
        pairs.setdefault(merged[43], []).append(merged)

    def pcm16(header):
        start, end = header[1], header[2]
        return struct.unpack(f'<{end - start}h', pcm[2 * start:2 * end])

    def generator(zone, operator, default):
        return signed(zone[operator]) if operator in zone else default

    zone_lines = ['// The key zones of one velocity layer: each a stereo sample, looped where the font loops it,',
                  '// its hold and decay as the font times them. Included by piano.sfz once a layer.']
    for (low, high), pair in sorted(pairs.items()):
        left = next(z for z in pair if generator(z, 17, 0) < 0)
        right = next(z for z in pair if generator(z, 17, 0) > 0)
        lh, rh = shdr[left[53]], shdr[right[53]]
        name = lh[0].split(b'\0')[0].decode().replace('(L)', '').replace(' ', '_').replace('#', 's')
        loop_start, loop_end = lh[3] - lh[1], lh[4] - lh[1]
        write_wav(os.path.join(folder, 'wav', name + '.wav'), pcm16(lh), pcm16(rh), lh[5], loop_start, loop_end)
        root = generator(left, 58, lh[6])
        hold = seconds(generator(left, 35, -12000))
        decay = seconds(generator(left, 36, -12000))
        sustain = 10 ** (-generator(left, 37, 0) / 200) * 100
        zone_lines.append(f'<group> lokey={low} hikey={high} pitch_keycenter={root} ampeg_hold={number(hold)} '
                          f'ampeg_decay={number(decay)} ampeg_sustain={number(sustain)}')
        zone_lines.append(f'<region> sample=wav/{name}.wav')

    # The instrument's global zone: attack, the filter and its envelope (the modulation envelope
    # at full depth while the key is held, releasing over its release time), the level.
    attack = seconds(generator(instrument_global, 34, -12000))
    cutoff = hertz(generator(instrument_global, 8, 13500))
    filter_depth = generator(instrument_global, 11, 0)
    filter_release = seconds(generator(instrument_global, 30, -12000))
    attenuation = (generator(preset_global, 48, 0) + generator(instrument_global, 48, 0)) * ATTENUATION_SCALE
    release_base = generator(instrument_global, 38, -12000)
    lines = [
        '// The Yamaha Grand of the shipped FluidR3_GM_piano_xylo.sf2 (MIT, Frank Wen; see',
        '// soundfonts/FluidR3_GM_piano_xylo.sf2.LICENSE), written as SFZ by make-piano.py, which also',
        '// writes its samples (wav/). Nine velocity layers of 27 stereo key zones; each layer releases',
        '// for its own time, as the font has it.',
        '<control>',
        'label_cc64=sustain pedal',
        '',
        f'<global> loop_mode=loop_continuous volume={number(-attenuation / 10)} ampeg_attack={number(attack)}',
        # SF2's filter: Butterworth (no resonance: SFZ counts Q from 1, so -3.01 dB), the
        # modulation envelope lowering it while held and releasing slowly.
        f'fil_type=lpf_2p cutoff={number(cutoff)} resonance=-3.01 fileg_depth={filter_depth} fileg_sustain=100 '
        f'fileg_release={number(filter_release)}',
        '',
    ]
    for layer in sorted(layers, key=lambda z: -z[44][0]):
        low, high = layer[44]
        release = seconds(release_base + generator(layer, 38, 0))
        lines.append(f'<master> lovel={low} hivel={high} ampeg_release={number(release)}')
        lines.append('#include "zones.sfz"')
    with open(os.path.join(folder, 'piano.sfz'), 'w') as file:
        file.write('\n'.join(lines) + '\n')
    with open(os.path.join(folder, 'zones.sfz'), 'w') as file:
        file.write('\n'.join(zone_lines) + '\n')


if __name__ == '__main__':
    main()
