#!/usr/bin/env python3
"""Synthesise the bundled demo sound effects (released CC0, see assets/demo/LICENSE).

Every sound is made here from seeded noise and deterministic DSP (numpy only), quantised to
16-bit integers by us (no dither from libsndfile) and written as FLAC, so running this
twice gives the same bytes. Usage::

    python assets/generate_demo.py [OUT_DIR]     # default: assets/demo/sounds/

The recipes are physical caricatures rather than recordings: impacts are modal
resonators (sums of exponentially decaying sinusoids) excited by short noise bursts,
textures are filtered noise with slow random envelopes, and the car pass-by applies a real
Doppler time warp and 1/r attenuation to an engine-plus-tyre source.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import soundfile as sf

SR = 44100
"""Sample rate of every demo sound (Hz)."""

OUT_DIR = Path(__file__).resolve().parent / "demo" / "sounds"

Array = np.ndarray


# --------------------------------------------------------------------------- helpers


def _rng(seed: int) -> np.random.Generator:
    # PCG64 with a fixed seed: the same stream on every platform numpy supports.
    return np.random.Generator(np.random.PCG64(seed))


def _t(seconds: float) -> Array:
    return np.arange(round(seconds * SR)) / SR


def _spectral_filter(x: Array, gain: Callable[[Array], Array]) -> Array:
    """Zero-phase filter: multiply the spectrum by ``gain(freqs)``."""
    n = len(x)
    size = 1 << (2 * n - 1).bit_length()  # zero-pad: no circular wrap-around of tails
    spec = np.fft.rfft(x, size)
    freqs = np.fft.rfftfreq(size, 1 / SR)
    return np.fft.irfft(spec * gain(freqs), size)[:n]


def lowpass(x: Array, cutoff: float, order: int = 2) -> Array:
    return _spectral_filter(x, lambda f: 1 / np.sqrt(1 + (f / cutoff) ** (2 * order)))


def highpass(x: Array, cutoff: float, order: int = 2) -> Array:
    return _spectral_filter(
        x, lambda f: 1 / np.sqrt(1 + (cutoff / np.maximum(f, 1e-3)) ** (2 * order))
    )


def bandpass(x: Array, low: float, high: float, order: int = 2) -> Array:
    return highpass(lowpass(x, high, order), low, order)


def pink(n: int, rng: np.random.Generator) -> Array:
    """1/f noise, shaped in the frequency domain."""
    white = rng.standard_normal(n)
    out = _spectral_filter(white, lambda f: 1 / np.sqrt(np.maximum(f, 20.0)))
    return out / np.max(np.abs(out))


def brown(n: int, rng: np.random.Generator) -> Array:
    """1/f^2 noise (a rumble), shaped in the frequency domain."""
    white = rng.standard_normal(n)
    out = _spectral_filter(white, lambda f: 1 / np.maximum(f, 15.0))
    return out / np.max(np.abs(out))


def smooth_random(n: int, rng: np.random.Generator, rate_hz: float) -> Array:
    """A slowly varying random curve in [0, 1] (gusts, swells): interpolated knots."""
    knots = max(int(n / SR * rate_hz) + 2, 3)
    values = rng.random(knots)
    curve = np.interp(np.linspace(0, knots - 1, n), np.arange(knots), values)
    # Smooth the corners of the linear interpolation.
    curve = lowpass(curve - curve.mean(), rate_hz * 2, order=1) + curve.mean()
    curve -= curve.min()
    return curve / max(curve.max(), 1e-9)


def varying_bandpass(x: Array, centre: Array, q: float, frame: int = 2048) -> Array:
    """A band-pass whose centre frequency follows ``centre`` (Hz per sample).

    Overlap-add of Hann-windowed frames, each filtered in the frequency domain around the
    centre frequency at the frame's middle: cheap, vectorised and deterministic.
    """
    hop = frame // 4
    n = len(x)
    pad = np.concatenate([np.zeros(frame), x, np.zeros(frame)])
    centre_pad = np.concatenate([np.full(frame, centre[0]), centre, np.full(frame, centre[-1])])
    window = np.hanning(frame)
    freqs = np.fft.rfftfreq(frame, 1 / SR)
    out = np.zeros_like(pad)
    norm = np.zeros_like(pad)
    for start in range(0, len(pad) - frame, hop):
        fc = centre_pad[start + frame // 2]
        bw = fc / q
        # A 4th-order resonance (a 2nd-order band-pass, squared): steep enough that the
        # band, not the skirts, carries the energy.
        gain = 1 / (1 + ((freqs - fc * fc / np.maximum(freqs, 1e-3)) / bw) ** 2)
        seg = np.fft.irfft(np.fft.rfft(pad[start : start + frame] * window) * gain, frame)
        out[start : start + frame] += seg * window
        norm[start : start + frame] += window**2
    out /= np.maximum(norm, 1e-9)
    return out[frame : frame + n]


def decay(t: Array, tau: float) -> Array:
    return np.exp(-t / tau)


def modal(
    seconds: float, modes: list[tuple[float, float, float]], phase_rng: np.random.Generator
) -> Array:
    """Sum of decaying sinusoids: (frequency Hz, amplitude, decay time constant s)."""
    t = _t(seconds)
    out = np.zeros_like(t)
    for freq, amp, tau in modes:
        phase = phase_rng.random() * 2 * np.pi
        out += amp * np.sin(2 * np.pi * freq * t + phase) * decay(t, tau)
    return out


def place(out: Array, event: Array, at_s: float, gain: float = 1.0) -> None:
    """Mix ``event`` into ``out`` starting at ``at_s`` seconds (cropped at the end)."""
    start = round(at_s * SR)
    if start >= len(out):
        return
    end = min(len(out), start + len(event))
    out[start:end] += gain * event[: end - start]


def burst(rng: np.random.Generator, seconds: float, tau: float, attack: float = 0.001) -> Array:
    """A noise burst with a fast attack and exponential decay."""
    t = _t(seconds)
    env = np.minimum(t / attack, 1.0) * decay(t, tau)
    return rng.standard_normal(len(t)) * env


def fade(x: Array, fade_in: float = 0.003, fade_out: float = 0.05) -> Array:
    """Short raised-cosine fades so no file starts or ends with a click."""
    x = x.copy()
    n_in, n_out = max(round(fade_in * SR), 1), max(round(fade_out * SR), 1)
    x[:n_in] *= 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, n_in))
    x[-n_out:] *= 0.5 + 0.5 * np.cos(np.linspace(0, np.pi, n_out))
    return x


def normalise(x: Array, peak_db: float) -> Array:
    peak = float(np.max(np.abs(x)))
    return x * (10 ** (peak_db / 20) / peak) if peak > 0 else x


# --------------------------------------------------------------------------- recipes


def rain_roof() -> Array:
    """Rain on a tin roof: a hiss bed plus hundreds of metallic pings per second."""
    rng = _rng(101)
    n = round(4.0 * SR)
    bed = bandpass(pink(n, rng), 400, 7000) * 0.35
    pings = np.zeros(n)
    # Each group of drops excites the roof at its own resonance (tin: bright, short).
    for freq in (1900.0, 2600.0, 3300.0, 4100.0, 5200.0, 6400.0):
        count = int(n / SR * 70)
        impulses = np.zeros(n)
        where = rng.integers(0, n, count)
        np.add.at(impulses, where, rng.pareto(3.0, count) * rng.choice([-1, 1], count))
        t = _t(0.06)
        kernel = np.sin(2 * np.pi * freq * t) * decay(t, 0.012)
        kernel += 0.4 * np.sin(2 * np.pi * freq * 1.53 * t) * decay(t, 0.006)
        pings += np.convolve(impulses, kernel)[:n]
    thuds = np.zeros(n)
    where = rng.integers(0, n, int(n / SR * 25))
    np.add.at(thuds, where, rng.random(len(where)))
    thuds = lowpass(np.convolve(thuds, burst(rng, 0.03, 0.008))[:n], 900)
    body = bed + 0.25 * pings / np.max(np.abs(pings)) + 0.3 * thuds / np.max(np.abs(thuds))
    swell = 0.8 + 0.2 * smooth_random(n, rng, 0.7)
    return normalise(fade(body * swell, 0.2, 0.4), -3)


def wind() -> Array:
    """Gusting wind: band-passed noise whose centre and level follow slow gusts."""
    rng = _rng(102)
    n = round(5.0 * SR)
    gust = smooth_random(n, rng, 0.8)
    source = pink(n, rng)
    howl = varying_bandpass(source, 250 + 650 * gust, q=3.0)
    whistle = varying_bandpass(rng.standard_normal(n), 900 + 700 * gust, q=25.0)
    rumble = lowpass(brown(n, rng), 120)
    body = howl * (0.25 + gust) + 0.15 * whistle * gust**2 + 0.4 * rumble
    return normalise(fade(body, 0.5, 0.6), -4)


def footsteps_gravel() -> Array:
    """Six steps on gravel: heel and toe crunches made of dense stone-on-stone grains."""
    rng = _rng(103)
    n = round(4.0 * SR)
    out = np.zeros(n)

    def crunch(seconds: float, grains: int) -> Array:
        m = round(seconds * SR)
        t = np.arange(m) / SR
        impulses = np.zeros(m)
        # Grains cluster at the start of the crunch (the weight lands) and thin out.
        where = np.minimum((rng.exponential(0.35, grains) * m / 3).astype(int), m - 1)
        np.add.at(impulses, where, rng.standard_normal(grains))
        grain = burst(rng, 0.004, 0.0008)
        gritty = bandpass(np.convolve(impulses, grain)[:m], 700, 5500)
        env = np.minimum(t / 0.006, 1.0) * decay(t, seconds / 3)
        thud = np.sin(2 * np.pi * 95 * t) * decay(t, 0.025)
        return gritty * env / max(np.max(np.abs(gritty)), 1e-9) + 0.5 * thud

    for step in range(6):
        at = 0.25 + step * 0.6 + rng.normal(0, 0.02)
        level = 0.8 + 0.2 * rng.random()
        place(out, crunch(0.18, 900), at, level)
        place(out, crunch(0.22, 1100), at + 0.09 + rng.normal(0, 0.008), level * 0.85)
    return normalise(fade(out), -2)


def door_knock() -> Array:
    """Three knuckle knocks on a wooden door: low wooden modes plus a bony click."""
    rng = _rng(104)
    out = np.zeros(round(1.6 * SR))
    for i, at in enumerate((0.15, 0.38, 0.61)):
        body = modal(
            0.25,
            [(185, 1.0, 0.045), (410, 0.7, 0.03), (870, 0.45, 0.018), (1530, 0.25, 0.01)],
            rng,
        )
        click = bandpass(burst(rng, 0.02, 0.002), 1500, 6000) * 0.3
        knock = body + np.pad(click, (0, len(body) - len(click)))
        place(out, knock, at, 1.0 if i < 2 else 1.15)
    return normalise(fade(out), -1)


def door_slam() -> Array:
    """A heavy door slamming: latch click, a low panel thump, frame rattle, room tail."""
    rng = _rng(105)
    n = round(2.5 * SR)
    t = _t(2.5)
    out = np.zeros(n)
    at = 0.1
    latch = bandpass(burst(rng, 0.03, 0.004), 2000, 6000) * 0.3
    thump = modal(
        1.0,
        [(62, 1.0, 0.18), (98, 0.8, 0.12), (143, 0.6, 0.09), (231, 0.4, 0.06), (377, 0.3, 0.04)],
        rng,
    )
    impact = lowpass(burst(rng, 0.5, 0.05), 1200) * 0.8
    rattle = bandpass(burst(rng, 0.3, 0.06), 700, 3000) * 0.25
    place(out, latch, at)
    place(out, thump * 1.3, at + 0.004)
    place(out, impact, at + 0.004)
    place(out, rattle, at + 0.02)
    # A small room: a decaying, darkening noise tail triggered by the impact.
    tail = lowpass(rng.standard_normal(n), 1500) * decay(t, 0.28) * 0.12
    place(out, tail[: n - round((at + 0.01) * SR)], at + 0.01)
    return normalise(fade(out), -1)


def glass_clink() -> Array:
    """Two wine glasses touching, twice: bright, long-ringing inharmonic partials."""
    rng = _rng(106)
    out = np.zeros(round(2.0 * SR))
    for at, pitch, level in ((0.1, 1.0, 1.0), (0.75, 1.03, 0.7)):
        f0 = 1480 * pitch
        ring = modal(
            1.3,
            [
                (f0, 1.0, 0.45),
                (f0 * 2.32, 0.5, 0.3),
                (f0 * 4.25, 0.25, 0.15),
                (f0 * 6.63, 0.12, 0.08),
                (f0 * 1.004, 0.6, 0.45),  # a near-doublet: the slow shimmer of real glass
            ],
            rng,
        )
        tick = highpass(burst(rng, 0.01, 0.0008), 4000) * 0.4
        place(out, ring, at, level)
        place(out, tick, at, level)
    return normalise(fade(out, fade_out=0.2), -3)


def _rumble(n: int, rng: np.random.Generator, rolls: int, start: float) -> Array:
    """Thunder rumble: brown noise under a sequence of rolling swells."""
    t = np.arange(n) / SR
    base = lowpass(brown(n, rng), 260)
    env = np.zeros(n)
    at = start
    for i in range(rolls):
        rise, tau = 0.08 + 0.25 * rng.random(), 0.5 + 0.9 * rng.random()
        level = (0.6 + 0.4 * rng.random()) * (0.85**i)
        local = t - at
        env += level * np.where(
            local < 0, 0.0, np.minimum(local / rise, 1.0) * np.exp(-local / tau)
        )
        at += 0.25 + 0.6 * rng.random()
    return base * env


def thunder_distant() -> Array:
    """Distant thunder: no crack, only a long low rumble that rolls several times."""
    rng = _rng(107)
    n = round(6.0 * SR)
    body = _rumble(n, rng, rolls=5, start=0.3)
    return normalise(fade(lowpass(body, 180), 0.05, 0.8), -3)


def thunder_clap() -> Array:
    """A close thunder clap: a tearing broadband crack, then a heavy rumble."""
    rng = _rng(108)
    n = round(5.0 * SR)
    t = _t(5.0)
    crack = np.zeros(n)
    for i in range(14):  # a ragged cluster of cracks, not one click
        at = 0.2 + 0.012 * i + rng.random() * 0.02
        place(crack, burst(rng, 0.3, 0.02 + 0.03 * rng.random()), at, 1.0 - 0.05 * i)
    crack = bandpass(crack, 300, 4500) * 0.5
    body = _rumble(n, rng, rolls=4, start=0.25)
    mid = bandpass(rng.standard_normal(n), 150, 1500) * decay(np.maximum(t - 0.2, 0), 0.5)
    mid *= t > 0.2
    return normalise(fade(crack + 1.6 * body / np.max(np.abs(body)) + 0.2 * mid), -1)


def whoosh() -> Array:
    """A fast whoosh past the listener: a resonant noise band sweeping up then down."""
    rng = _rng(109)
    n = round(1.5 * SR)
    t = _t(1.5)
    peak = 0.65
    env = np.exp(-(((t - peak) / 0.17) ** 2))
    env = np.where(t > peak, np.exp(-(((t - peak) / 0.28) ** 2)), env)
    centre = 300 + 2700 * env
    body = varying_bandpass(pink(n, rng), centre, q=1.5) * env
    return normalise(fade(body), -3)


def fire_crackle() -> Array:
    """A wood fire: a soft roar, a flickering hiss, sharp crackles and the odd pop."""
    rng = _rng(110)
    n = round(5.0 * SR)
    roar = lowpass(brown(n, rng), 300) * (0.6 + 0.4 * smooth_random(n, rng, 2.0))
    hiss = bandpass(rng.standard_normal(n), 2500, 7000) * 0.03 * smooth_random(n, rng, 6.0)
    crackles = np.zeros(n)
    count = int(n / SR * 28)
    where = rng.integers(0, n, count)
    np.add.at(crackles, where, np.minimum(rng.pareto(2.0, count), 8) * rng.choice([-1, 1], count))
    crackles = bandpass(np.convolve(crackles, burst(rng, 0.004, 0.0007))[:n], 1200, 6000)
    pops = np.zeros(n)
    for _ in range(6):
        place(pops, bandpass(burst(rng, 0.05, 0.008), 400, 4000), rng.random() * 4.8)
    body = (
        0.5 * roar
        + hiss
        + 0.6 * crackles / np.max(np.abs(crackles))
        + 0.5 * pops / np.max(np.abs(pops))
    )
    return normalise(fade(body, 0.3, 0.5), -2)


def clock_tick() -> Array:
    """A mechanical clock: alternating tick and tock, once a second, in a small room."""
    rng = _rng(111)
    out = np.zeros(round(4.0 * SR))
    for i in range(4):
        pitch = 3300 if i % 2 == 0 else 2650
        tick = modal(
            0.08, [(pitch, 1.0, 0.006), (pitch * 1.7, 0.5, 0.004), (780, 0.35, 0.012)], rng
        )
        tick += highpass(burst(rng, 0.08, 0.0006), 5000)[: len(tick)] * 0.5
        place(out, tick, 0.2 + i * 1.0, 1.0 if i % 2 == 0 else 0.85)
    return normalise(fade(out), -4)


def water_drip() -> Array:
    """Drips into a full basin: each a bubble whose pitch rises as it closes (Minnaert)."""
    rng = _rng(112)
    n = round(3.0 * SR)
    out = np.zeros(n)
    for at in (0.15, 0.95, 1.8, 2.45):
        t = _t(0.25)
        f0 = 700 + 500 * rng.random()
        freq = f0 * (1 + 1.6 * (1 - np.exp(-t / 0.02)))  # fast upward glide
        phase = 2 * np.pi * np.cumsum(freq) / SR
        plink = np.sin(phase) * decay(t, 0.035) * np.minimum(t / 0.001, 1.0)
        splash = highpass(burst(rng, 0.02, 0.002), 3000) * 0.15
        place(out, plink, at)
        place(out, splash, at)
        place(out, plink * 0.12, at + 0.061)  # a close reflection off the basin
    return normalise(fade(out), -3)


def bird_chirp() -> Array:
    """A small songbird: phrases of quick downward frequency-modulated chirps."""
    rng = _rng(113)
    n = round(3.0 * SR)
    out = np.zeros(n)
    starts = [0.2, 0.32, 0.44, 0.56, 1.4, 1.5, 1.6, 2.3, 2.38]
    for at in starts:
        length = 0.06 + 0.03 * rng.random()
        t = _t(length)
        top, bottom = 5200 + 1200 * rng.random(), 2800 + 600 * rng.random()
        freq = bottom + (top - bottom) * (1 - t / length) ** 2
        freq *= 1 + 0.03 * np.sin(2 * np.pi * 90 * t)  # a little trill
        phase = 2 * np.pi * np.cumsum(freq) / SR
        env = np.sin(np.pi * t / length) ** 2
        chirp = (np.sin(phase) + 0.15 * np.sin(2 * phase)) * env
        place(out, chirp, at, 0.7 + 0.3 * rng.random())
    return normalise(fade(out), -4)


def ui_beep() -> Array:
    """A two-tone interface confirmation beep (A5 then E6), clean sines."""
    t = _t(1.0)
    out = np.zeros(len(t))
    for at, freq in ((0.05, 880.0), (0.2, 1318.5)):
        tone_t = _t(0.12)
        ramp = np.minimum(np.minimum(tone_t / 0.005, (0.12 - tone_t) / 0.02), 1.0)
        tone = (np.sin(2 * np.pi * freq * tone_t) + 0.08 * np.sin(4 * np.pi * freq * tone_t)) * ramp
        place(out, tone, at)
    return normalise(out, -6)


def heartbeat() -> Array:
    """A resting heartbeat at 70 bpm: a low 'lub' and a softer, higher 'dub'."""
    rng = _rng(114)
    out = np.zeros(round(4.0 * SR))
    period = 60 / 70

    def thump(f0: float, tau: float) -> Array:
        t = _t(0.3)
        freq = f0 * (1 + 0.8 * np.exp(-t / 0.015))  # the pitch drops as the valve closes
        phase = 2 * np.pi * np.cumsum(freq) / SR
        return np.sin(phase) * decay(t, tau) * np.minimum(t / 0.004, 1.0)

    at = 0.1
    while at < 3.7:
        place(out, thump(48, 0.06), at, 1.0)
        place(out, thump(62, 0.04), at + 0.28, 0.6)
        at += period + rng.normal(0, 0.01)
    return normalise(fade(lowpass(out, 200)), -2)


def ocean_waves() -> Array:
    """One wave rolling in, breaking and washing back over sand."""
    rng = _rng(115)
    n = round(6.0 * SR)
    t = _t(6.0)
    swell = np.exp(-(((t - 2.3) / 1.1) ** 2))
    wash = np.where(t > 2.3, np.exp(-(t - 2.3) / 1.4), 0.0) * (t > 2.3)
    surf = varying_bandpass(pink(n, rng), 200 + 1200 * swell, q=0.8) * (0.15 + swell)
    fizz = bandpass(rng.standard_normal(n), 2000, 6000) * wash * 0.05 * smooth_random(n, rng, 10)
    undertow = lowpass(brown(n, rng), 150) * (0.3 + 0.7 * swell)
    return normalise(fade(surf + fizz + 0.5 * undertow, 0.4, 0.8), -3)


def electric_hum() -> Array:
    """Mains hum from a transformer: 50 Hz and harmonics, a buzz edge and a slow flicker."""
    rng = _rng(116)
    t = _t(3.0)
    hum = np.zeros(len(t))
    for k, amp in ((1, 1.0), (2, 0.7), (3, 0.35), (4, 0.25), (5, 0.12), (6, 0.1), (7, 0.05)):
        hum += amp * np.sin(2 * np.pi * 50 * k * t + rng.random() * 2 * np.pi)
    buzz = np.clip(np.sin(2 * np.pi * 100 * t) * 3, -1, 1) * 0.08  # magnetostriction edge
    flicker = 1 + 0.05 * np.sin(2 * np.pi * 0.7 * t)
    return normalise(fade((hum + buzz) * flicker, 0.15, 0.3), -9)


def typing() -> Array:
    """Someone typing on a mechanical keyboard: uneven bursts of clicky keys, a space bar."""
    rng = _rng(117)
    n = round(4.0 * SR)
    out = np.zeros(n)
    at = 0.1
    count = 0
    while at < 3.8:
        count += 1
        space = count % 6 == 0
        body = modal(
            0.06,
            [(420 if space else 650 + 200 * rng.random(), 1.0, 0.012), (1900, 0.5, 0.004)],
            rng,
        )
        click = bandpass(burst(rng, 0.06, 0.0015), 2000, 9000)
        key = 0.6 * body + click * (0.5 if space else 0.8)
        place(out, key, at, 0.7 + 0.3 * rng.random())
        place(out, key * 0.3, at + 0.035 + 0.01 * rng.random())  # key release
        gap = rng.gamma(3.0, 0.045)
        if rng.random() < 0.06:
            gap += 0.35  # a pause to think
        at += gap
    return normalise(fade(out), -3)


def car_pass() -> Array:
    """A car passing left to right at 80 km/h, 8 m away: Doppler shift, 1/r, panning."""
    rng = _rng(118)
    seconds = 6.0
    c, speed, distance, closest = 343.0, 22.0, 8.0, 3.0
    # Source signal on the car's own clock (with margin for the propagation delay).
    margin = 0.2
    ts = np.arange(round((seconds + margin) * SR)) / SR - margin
    rpm_hz = 33.0  # firing frequency of a 4-cylinder at ~1000 rpm in a high gear
    phase = 2 * np.pi * np.cumsum(rpm_hz * (1 + 0.01 * np.sin(2 * np.pi * 0.5 * ts))) / SR
    engine = sum(
        amp * np.sin(k * phase)
        for k, amp in ((1, 1.0), (2, 0.6), (3, 0.45), (4, 0.25), (6, 0.12), (8, 0.08))
    )
    tyres = bandpass(pink(len(ts), rng), 200, 1800) * 4.0
    source = 0.5 * engine + tyres
    # At listener time t the sound heard left the car at t - r(t)/c (solved iteratively).
    t = _t(seconds)
    emitted = t.copy()
    for _ in range(4):
        x = speed * (emitted - closest)
        emitted = t - np.sqrt(x**2 + distance**2) / c
    x = speed * (emitted - closest)
    r = np.sqrt(x**2 + distance**2)
    heard = np.interp(emitted, ts, source) * (distance / r)
    # Air and ground absorb the highs of a distant car.
    far = np.clip((r - distance) / 60, 0, 1)
    heard = heard * (1 - far) + lowpass(heard, 700) * far
    pan = np.clip(x / (np.abs(x) + distance), -1, 1)  # -1 left ... +1 right
    left = heard * np.sqrt((1 - pan) / 2)
    right = heard * np.sqrt((1 + pan) / 2)
    stereo = np.stack([fade(left, 0.3, 0.3), fade(right, 0.3, 0.3)], axis=1)
    return normalise(stereo, -2)


def bell() -> Array:
    """A struck church bell: hum, prime, minor-third tierce, quint and nominal partials."""
    rng = _rng(119)
    f = 330.0  # the prime (strike note) around E4
    modes = [
        (f * 0.5, 0.8, 2.2),  # hum
        (f * 0.502, 0.4, 2.2),  # doublet: the slow beating ("warble") of a real bell
        (f * 1.0, 1.0, 1.5),  # prime
        (f * 1.19, 0.7, 1.2),  # tierce (minor third: a bell's melancholy)
        (f * 1.5, 0.45, 0.9),  # quint
        (f * 2.0, 0.6, 0.8),  # nominal
        (f * 2.51, 0.35, 0.5),
        (f * 2.66, 0.3, 0.45),
        (f * 3.01, 0.25, 0.35),
        (f * 4.1, 0.15, 0.22),
        (f * 5.4, 0.1, 0.15),
    ]
    ring = modal(5.0, modes, rng)
    strike = lowpass(burst(rng, 0.05, 0.006), 4000) * 0.5
    ring[: len(strike)] += strike
    return normalise(fade(ring, 0.001, 0.5), -2)


SOUNDS: dict[str, Callable[[], Array]] = {
    "rain_roof": rain_roof,
    "wind": wind,
    "footsteps_gravel": footsteps_gravel,
    "door_knock": door_knock,
    "door_slam": door_slam,
    "glass_clink": glass_clink,
    "thunder_distant": thunder_distant,
    "thunder_clap": thunder_clap,
    "whoosh": whoosh,
    "fire_crackle": fire_crackle,
    "clock_tick": clock_tick,
    "water_drip": water_drip,
    "bird_chirp": bird_chirp,
    "ui_beep": ui_beep,
    "heartbeat": heartbeat,
    "ocean_waves": ocean_waves,
    "electric_hum": electric_hum,
    "typing": typing,
    "car_pass": car_pass,
    "bell": bell,
}
"""Every demo sound: file stem -> recipe. The demo session refers to these stems."""


def to_pcm16(x: Array) -> Array:
    """Quantise to int16 ourselves (round half to even, clip): no dither, no surprises."""
    return np.clip(np.rint(x * 32767.0), -32768, 32767).astype(np.int16)


def write_flac(path: Path, samples: Array) -> None:
    """Write 16-bit FLAC. libsndfile writes no date or random id into FLAC, and the
    vendor string only depends on the libFLAC version, so equal samples give equal bytes."""
    tmp = path.with_name(f".{path.name}.tmp")
    sf.write(tmp, to_pcm16(samples), SR, format="FLAC", subtype="PCM_16", compression_level=1.0)
    tmp.replace(path)


def generate(out_dir: Path = OUT_DIR, names: list[str] | None = None) -> list[Path]:
    """Synthesise the demo sounds into ``out_dir`` as ``<stem>.flac``; return the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names or list(SOUNDS):
        path = out_dir / f"{name}.flac"
        write_flac(path, SOUNDS[name]())
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    out_dir = Path(argv[0]) if argv else OUT_DIR
    paths = generate(out_dir)
    total = sum(p.stat().st_size for p in paths)
    for p in paths:
        print(f"{p.stat().st_size / 1024:8.1f} KiB  {p}")
    print(f"{total / 1024 / 1024:8.2f} MiB  total ({len(paths)} files)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
