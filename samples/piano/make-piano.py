#!/usr/bin/env python3
"""Writes the shipped piano as an SFZ instrument: the Yamaha Grand of soundfonts/FluidR3_GM_piano_xylo.sf2
(MIT, Frank Wen; see soundfonts/FluidR3_GM_piano_xylo.sf2.LICENSE) with its samples as WAV files.

    samples/piano/make-piano.py [FOLDER]      (default: this script's folder)

Writes FOLDER/piano.sfz, FOLDER/zones.sfz and FOLDER/wav/*.wav: one stereo 16-bit WAV per key zone
(the font's left and right samples side by side, at their own 32 kHz, with the loop in a `smpl`
chunk), nine velocity layers (<master>) of 20 key zones (<group>), and every value the font gives
the preset: envelope times, the filter and its envelope, the level. Only the standard library.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'scripts'))
from sf2_hydra import INSTRUMENT, KEY_RANGE, SAMPLE_ID, VEL_RANGE, hydra, signed, span, zones  # noqa: E402

FONT = os.path.join(HERE, '..', '..', 'soundfonts', 'FluidR3_GM_piano_xylo.sf2')
PRESET = b'Yamaha Grand Piano'
# FluidSynth scales initialAttenuation by 0.4 (as the EMU hardware did); so does Staccato's SF2 loader.
ATTENUATION_SCALE = 0.4
PAN, ATTACK, HOLD, DECAY, SUSTAIN, RELEASE = 17, 34, 35, 36, 37, 38
CUTOFF, MOD_ENV_TO_CUTOFF, MOD_ENV_RELEASE, ATTENUATION, ROOT_KEY = 8, 11, 30, 48, 58


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
    font = hydra(FONT)
    phdr, inst, shdr, pcm = font['phdr'], font['inst'], font['shdr'], font['smpl']
    index = next(i for i, p in enumerate(phdr) if p[0].split(b'\0')[0] == PRESET)
    preset_global, layers = zones(font['pbag'], font['pgen'], phdr[index][3], phdr[index + 1][3], INSTRUMENT)
    instrument = layers[0][INSTRUMENT]
    instrument_global, key_zones = zones(font['ibag'], font['igen'], inst[instrument][1], inst[instrument + 1][1], SAMPLE_ID)
    pairs = {}
    for zone in key_zones:
        merged = {**instrument_global, **zone}
        pairs.setdefault(span(merged, KEY_RANGE), []).append(merged)

    def pcm16(header):
        start, end = header[1], header[2]
        return struct.unpack(f'<{end - start}h', pcm[2 * start:2 * end])

    zone_lines = ['// The key zones of one velocity layer: each a stereo sample, looped where the font loops it,',
                  '// its hold and decay as the font times them. Included by piano.sfz once a layer.']
    for (low, high), pair in sorted(pairs.items()):
        left = next(z for z in pair if signed(z, PAN, 0) < 0)
        right = next(z for z in pair if signed(z, PAN, 0) > 0)
        lh, rh = shdr[left[SAMPLE_ID]], shdr[right[SAMPLE_ID]]
        name = lh[0].split(b'\0')[0].decode().replace('(L)', '').replace(' ', '_').replace('#', 's')
        loop_start, loop_end = lh[3] - lh[1], lh[4] - lh[1]
        write_wav(os.path.join(folder, 'wav', name + '.wav'), pcm16(lh), pcm16(rh), lh[5], loop_start, loop_end)
        root = signed(left, ROOT_KEY, lh[6])
        hold = seconds(signed(left, HOLD, -12000))
        decay = seconds(signed(left, DECAY, -12000))
        sustain = 10 ** (-signed(left, SUSTAIN, 0) / 200) * 100
        zone_lines.append(f'<group> lokey={low} hikey={high} pitch_keycenter={root} ampeg_hold={number(hold)} '
                          f'ampeg_decay={number(decay)} ampeg_sustain={number(sustain)}')
        zone_lines.append(f'<region> sample=wav/{name}.wav')

    # The instrument's global zone: attack, the filter and its envelope (the modulation envelope
    # at full depth while the key is held, releasing over its release time), the level.
    attack = seconds(signed(instrument_global, ATTACK, -12000))
    cutoff = hertz(signed(instrument_global, CUTOFF, 13500))
    filter_depth = signed(instrument_global, MOD_ENV_TO_CUTOFF, 0)
    filter_release = seconds(signed(instrument_global, MOD_ENV_RELEASE, -12000))
    attenuation = (signed(preset_global, ATTENUATION, 0) + signed(instrument_global, ATTENUATION, 0)) * ATTENUATION_SCALE
    release_base = signed(instrument_global, RELEASE, -12000)
    lines = [
        '// The Yamaha Grand of the shipped FluidR3_GM_piano_xylo.sf2 (MIT, Frank Wen; see',
        '// soundfonts/FluidR3_GM_piano_xylo.sf2.LICENSE), written as SFZ by make-piano.py, which also',
        '// writes its samples (wav/). Nine velocity layers of 20 stereo key zones; each layer releases',
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
    for layer in sorted(layers, key=lambda zone: -span(zone, VEL_RANGE)[0]):
        low, high = span(layer, VEL_RANGE)
        release = seconds(release_base + signed(layer, RELEASE, 0))
        lines.append(f'<master> lovel={low} hivel={high} ampeg_release={number(release)}')
        lines.append('#include "zones.sfz"')
    with open(os.path.join(folder, 'piano.sfz'), 'w') as file:
        file.write('\n'.join(lines) + '\n')
    with open(os.path.join(folder, 'zones.sfz'), 'w') as file:
        file.write('\n'.join(zone_lines) + '\n')


if __name__ == '__main__':
    main()
