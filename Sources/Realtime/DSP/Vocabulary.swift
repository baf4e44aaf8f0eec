// The words every module uses for audio quantities, defined once (after miniaudio):
//
// - sample:  one value of one channel at one instant: a `Float`, nominally in -1...1.
// - channel: one of the interleaved streams of a signal (left, right).
// - frame:   one sample for every channel at one instant. Durations and positions are counted in
//            frames, never in bytes or samples, and named `frameCount` / `frameTime`.
// - block:   the frames one render call produces, at most `maxFrameCount`.
// - period:  the frames a device moves per wake-up; the device thread renders one block per period.
// - buffer:  the device's whole ring, `periodCount` periods: what sets output latency.
//
// Positions on the engine's timeline are `FrameTime`s (module Render): frames since the renderer
// started.
