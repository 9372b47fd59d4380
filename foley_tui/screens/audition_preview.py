"""Hearing candidates: the player's state on screen (playhead, errors) and the preview
actions (play/stop, seek, autoplay, loop, volume, loudness match)."""

from __future__ import annotations

from typing import Any

from foley_tui.audio.base import PlayerState, Unplayable
from foley_tui.messages import PlayerStateChanged, PlayheadMoved
from foley_tui.screens.audition_details import CandidateDetails
from foley_tui.widgets.waveform import Waveform

VOLUME_STEP_DB = 2.0
VOLUME_RANGE_DB = (-40.0, 12.0)


class PreviewActions(CandidateDetails):
    """Play the highlighted candidate and follow the player's state."""

    def _on_player_state(self, status: Any) -> None:
        # Called from the audio thread: post_message is thread-safe.
        self.post_message(PlayerStateChanged(status))

    def _check_audio(self) -> None:
        """Once the player is up (it may start in the background), refresh the status
        line's device. (The app says "no audio", once per run: ``FoleyApp._audio_ready``.)"""
        if self._audio_checked or self.player.starting:
            return
        self._audio_checked = True
        # Prefetch hints given while a deferred player was starting were dropped: again.
        self._prefetched = (None, None)
        self._schedule_prefetch()
        self._update_status()

    def on_player_state_changed(self, message: PlayerStateChanged) -> None:
        self._check_audio()
        status = message.status
        waveform = self.query_one(Waveform)
        waveform.playing = status.state is PlayerState.PLAYING
        if waveform.playing:
            self._playhead_timer.resume()
        else:
            self.post_message(PlayheadMoved(status.position_s, status.duration_s))
        if status.error:
            self.notify(status.error, title="Playback", severity="error")
        self._bindings_changed()

    def _tick_playhead(self) -> None:
        status = self.player.status()
        self.post_message(PlayheadMoved(status.position_s, status.duration_s))
        if status.state is not PlayerState.PLAYING:
            self._playhead_timer.pause()

    def on_playhead_moved(self, message: PlayheadMoved) -> None:
        waveform = self.query_one(Waveform)
        if self._playing_id == self.current_id:
            waveform.position_s = message.position_s
            if message.duration_s > 0:
                waveform.duration_s = message.duration_s
        waveform.playing = self.player.status().state is PlayerState.PLAYING

    def _play(self, sound_id: str, start_s: float = 0.0) -> None:
        source = self._source(sound_id)
        if isinstance(source, Unplayable):
            self.notify(f"Can't play: {source.reason}", severity="warning", timeout=4)
            return
        self._playing_id = sound_id
        self.player.play(source, start_s)

    # -- actions: preview -----------------------------------------------------------
    def action_play_stop(self) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return
        status = self.player.status()
        if status.state is PlayerState.PLAYING and self._playing_id == sound_id:
            self.player.stop()
        else:
            self._play(sound_id)

    def action_play_start(self) -> None:
        if (sound_id := self.current_id) is not None:
            self._play(sound_id, 0.0)

    def action_stop(self) -> None:
        self.player.stop()

    def action_seek(self, seconds: float) -> None:
        self.player.seek(float(seconds), relative=True)

    def action_toggle_autoplay(self) -> None:
        self.view_settings.autoplay = not self.view_settings.autoplay
        self.notify(f"Autoplay {'on' if self.view_settings.autoplay else 'off'}", timeout=2)
        self._save_view()

    def action_toggle_loop(self) -> None:
        self.view_settings.loop = not self.view_settings.loop
        self.player.set_loop(self.view_settings.loop)
        self._save_view()

    def action_volume(self, direction: int) -> None:
        low, high = VOLUME_RANGE_DB
        volume = self.view_settings.volume_db + direction * VOLUME_STEP_DB
        self.view_settings.volume_db = max(low, min(high, volume))
        self.player.set_volume_db(self.view_settings.volume_db)
        self._save_view()

    def action_toggle_loudness(self) -> None:
        self.view_settings.loudness_match = not self.view_settings.loudness_match
        self.player.set_loudness_match(self.view_settings.loudness_match)
        self._save_view()
