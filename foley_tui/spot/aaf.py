"""An AAF (``scene.aaf``) for Pro Tools, Nuendo, Media Composer and Resolve, written with
``pyaaf2``: one composition with a timecode slot, a sound slot per track channel at the
bundle's rate (fillers between clips), the narration on its own slot, each clip a
SourceClip of a MasterMob *linked* to its Broadcast WAV copy, with its clip gain as an
Audio Gain operation.

``aaf2.ama.create_media_link`` wants ffprobe's ``-show_format -show_streams`` facts; we
write the copies, so we give it the same facts from what we write instead of running
ffprobe. :func:`aaf_job` describes the composition from the plan before a copy is
written, and :class:`AafWorker` writes it (:mod:`.aafwrite`) in a process of its own
while this one writes the copies: pyaaf2's object model costs about as much CPU as the
copies, and the machine has more than one CPU.

pyaaf2 turns a stereo file into two mono slots (a stereo track becomes two slots named
``<track> L`` and ``<track> R``); each locator names the copy at the bundle's final
place. A remote sound whose licence forbids keeping its bytes is linked at its http(s)
URL (a WAV or AIFF at the bundle's rate; any other is left out of the AAF, with a note).
With ``--reference`` an original WAV or AIFF at the bundle's rate is linked where it is;
any other original (a FLAC, another rate: the AAF's slots are at the bundle's rate) gets
a converted copy in the bundle for the AAF alone (:attr:`SpotClip.aaf_file`), which it
links. A mono clip on a track whose other clips are stereo sits on both of its slots
(dual mono), as an editor places it.

Headless: never imports textual.
"""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

from foley_tui.spot.aafwrite import AafJob, LinkedClip, write_job
from foley_tui.spot.bwf import Bext, wave_summary
from foley_tui.spot.plan import SpotClip, SpotPlan


def probe_facts(clip: SpotClip, rate: int, channels: int, sample_format: str) -> dict[str, Any]:
    """The part of ffprobe's ``-show_format -show_streams`` output pyaaf2 reads, for a copy
    we write (so no ffprobe is needed at run time)."""
    return _facts("wav", rate, channels, clip.copy_frames, sample_format)


def _facts(container: str, rate: int, channels: int, frames: int, subtype: str) -> dict[str, Any]:
    bits = {"PCM_16": 16, "PCM_24": 24, "FLOAT": 32}.get(subtype, 16)
    endian = "le" if container == "wav" else "be"
    kind = {"PCM_16": "s16", "PCM_24": "s24", "FLOAT": "f32"}.get(subtype, "s16")
    long_name = {"wav": "WAV / WAVE (Waveform Audio)", "aiff": "Audio IFF"}[container]
    return {
        "format": {"format_name": container, "format_long_name": long_name},
        "streams": [
            {
                "codec_type": "audio",
                "codec_name": f"pcm_{kind}{endian}",
                "sample_rate": str(rate),
                "channels": channels,
                "duration_ts": frames,
                "bits_per_sample": bits,
                "bit_rate": str(rate * channels * bits),
            }
        ],
    }


def original_facts(clip: SpotClip, rate: int) -> dict[str, Any] | str:
    """The facts of a referenced original pyaaf2 can link (a WAV or AIFF at the bundle's
    rate: :func:`foley_tui.spot.plan.aaf_links`; the plan gives the others an AAF copy),
    or why it cannot."""
    import soundfile as sf

    try:
        # A remote sound's file is its URL; what was read from there is its source.
        info = sf.info(str(clip.source if clip.url is not None else clip.file))
    except (sf.LibsndfileError, RuntimeError, OSError) as exc:
        return f"cannot read it ({exc})"
    container = {"WAV": "wav", "AIFF": "aiff"}.get(info.format)
    if container is None:
        return f"an AAF links WAV and AIFF only (the original is {info.format})"
    if info.samplerate != rate:
        return f"the original is at {info.samplerate} Hz, the AAF at {rate} Hz"
    return _facts(container, rate, info.channels, info.frames, info.subtype)


def aaf_job(
    plan: SpotPlan,
    clips: list[SpotClip],
    metadata: dict[str, tuple[Bext, str]],
    final: Path,
) -> tuple[AafJob, list[str]]:
    """The composition of ``clips`` (the narration included) in the bundle that ends up
    at ``final``, and notes on the clips an AAF cannot link. ``metadata``: each copy's
    bext and iXML, as :func:`foley_tui.spot.copy.read_clip` writes them (their sizes are
    in the copy's RIFF header)."""
    options = plan.options
    rate = options.rate
    fps = options.frame_rate
    notes: list[str] = []
    linked: list[LinkedClip] = []
    for clip in clips:
        copy = clip.copy_file
        if copy is not None:
            bext, ixml_text = metadata[clip.sound_id]
            summary = wave_summary(
                rate,
                clip.channels,
                clip.copy_frames,
                sample_format=options.sample_format,
                bext=bext,
                ixml_text=ixml_text,
            )
            facts = probe_facts(clip, rate, clip.channels, options.sample_format)
            where: dict[str, str | None] = {
                "summary": summary.hex(),
                "link": (final / copy).as_uri(),
            }
            name = copy.rsplit("/", 1)[-1]
            start = clip.pre
        else:
            found = original_facts(clip, rate)
            if isinstance(found, str):
                at = " at its URL" if clip.url is not None else ""
                notes.append(f"{clip.caption}: not in the AAF ({found}; it is referenced{at})")
                continue
            facts = found
            path = str(clip.source) if clip.url is not None else clip.file
            where = {"path": path, "link": clip.url}
            name = Path(path).name
            start = round(clip.in_point_s * rate)
        linked.append(
            LinkedClip(
                sound_id=clip.sound_id,
                caption=clip.caption,
                track=clip.track,
                position=clip.position,
                length=clip.length,
                start=start,
                channels=int(facts["streams"][0]["channels"]),
                name=name,
                facts=facts,
                gain=clip.placement is not None,
                **where,
            )
        )
    end = max((c.position + c.length for c in linked), default=0)
    job = AafJob(
        title=plan.title,
        rate=rate,
        tc_nominal=fps.nominal,
        tc_drop=fps.drop,
        tc_edit_rate=str(Fraction(fps.fps)),
        tc_start=int(Fraction(options.start_samples, rate) * fps.fps),
        tc_length=int(Fraction(end, rate) * fps.fps) + 1,
        tracks=plan.tracks(),
        clips=linked,
    )
    return job, notes


def write_aaf(
    plan: SpotPlan,
    clips: list[SpotClip],
    gains: dict[str, float],
    metadata: dict[str, tuple[Bext, str]],
    final: Path,
    path: Path,
) -> list[str]:
    """Write the AAF of ``clips`` to ``path`` in this process (the copies are moved to
    ``final`` later). Returns notes on clips left out of it."""
    job, notes = aaf_job(plan, clips, metadata, final)
    write_job(job, lambda: gains, path)
    return notes


class AafWorker:
    """:func:`~foley_tui.spot.aafwrite.write_job` in a process of its own: it makes the
    mobs as soon as it starts, and the composition once :meth:`finish` hands it the
    gains. :meth:`close` stops it (a cancel, an error) and waits for it."""

    def __init__(self, job: AafJob, path: Path) -> None:
        self.path = path
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "foley_tui.spot.aafwrite", str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._send(job.to_json())
        self.finished = False

    def _send(self, line: str) -> None:
        stdin: IO[str] | None = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except BrokenPipeError:
            pass  # it failed: result() says why

    def finish(self, gains: dict[str, float]) -> None:
        """The gains are known: the composition is made and the file saved."""
        import json

        self._send(json.dumps(gains))
        self.finished = True

    def result(self) -> None:
        """Wait until the AAF is written.

        Raises:
            OSError: The worker failed (its last words are in the message).
        """
        out, err = self._proc.communicate()
        if self._proc.returncode != 0 or out.strip() != "ok":
            tail = err.strip().splitlines()[-1:] or [f"exit status {self._proc.returncode}"]
            raise OSError(f"the AAF could not be written: {tail[0]}")

    def close(self) -> None:
        """Stop it if it still runs, and reap it."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.communicate()
