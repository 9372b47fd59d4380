"""SpotScreen: spot the scene to a folder an editor opens (the timeline's ``S``, the
palette's "Spot to editor").

The dialog asks for the folder (default: beside the session's narration, else the
current directory, named after the session's title, which a worker reads), then runs
:func:`foley_tui.spot.bundle.spot` in a worker (the store and the audio are read there,
never on the UI thread) with a progress bar while the clips convert, and shows the
summary when it is done. Esc while it runs cancels cleanly: the worker stops at its next
block and the temporary folder beside the target is removed, so no half bundle is left.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, ProgressBar, Static

from foley_tui.keys.bindings import bindings

if TYPE_CHECKING:
    from foley_tui.scene.narration import Narration
    from foley_tui.spot.bundle import SpotResult
    from foley_tui.store import SessionStore

SPOT_CSS = """
SpotScreen { align: center middle; }
SpotScreen > Vertical {
    width: 90; max-width: 95%; height: auto; max-height: 90%;
    border: thick $primary; background: $surface; padding: 1 2;
}
SpotScreen .modal-title { text-style: bold; margin-bottom: 1; }
SpotScreen #spot-error { color: $error; height: auto; }
SpotScreen #spot-progress { margin-top: 1; display: none; }
SpotScreen #spot-summary { height: auto; max-height: 16; margin-top: 1; }
SpotScreen Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
SpotScreen Button { margin-left: 2; }
"""


def default_folder(title: str, narration: Narration | None, cwd: Path | None = None) -> Path:
    """``<title> spot`` beside the narration, else in the current directory."""
    from foley_tui.spot.names import clean

    base = narration.path.parent if narration is not None else (cwd or Path.cwd())
    return base / f"{clean(title, 'scene')} spot"


class SpotScreen(ModalScreen["SpotResult | None"]):
    """Choose a folder, spot the scene into it, show what was written."""

    DEFAULT_CSS = SPOT_CSS
    BINDINGS = bindings("dialog")

    def __init__(
        self,
        store: SessionStore,
        folder: Path | None = None,
        *,
        narration: Narration | None = None,
        network: bool = False,
    ) -> None:
        """``folder``: the folder offered; None: :func:`default_folder` for the session's
        title (read in a worker) and ``narration``. ``network``: remote sounds are reached
        at their URL (the settings' ``allow_network``)."""
        super().__init__()
        self.store = store
        self._network = network
        self._folder = folder
        self._narration = narration
        self._cancel = threading.Event()
        self.running = False
        self.result: SpotResult | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Spot the scene to an editor", classes="modal-title")
            yield Static(
                "Every placed pick as a timestamped Broadcast WAV, with a REAPER project, "
                "an AAF, an OTIO timeline, a cue sheet and the reference mix.",
            )
            yield Input(
                value="" if self._folder is None else str(self._folder),
                placeholder="the folder to write the bundle in",
                id="spot-folder",
            )
            yield Checkbox("Replace an existing bundle there", id="spot-force")
            yield Static("", id="spot-error")
            yield ProgressBar(total=1, show_eta=False, id="spot-progress")
            yield Static("", id="spot-summary")
            with Horizontal():
                yield Button("Cancel", id="spot-cancel")
                yield Button("Spot", variant="primary", id="spot-go")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        if self._folder is None:
            self.run_worker(self._find_folder, thread=True, group="spot", name="spot folder")

    def _find_folder(self) -> None:
        """Worker: the default folder, named after the session's title (a store read)."""
        try:
            title = self.store.meta().title or self.store.session_id
        except (OSError, ValueError):
            title = self.store.session_id
        folder = default_folder(str(title), self._narration)
        self.app.call_from_thread(self._offer, folder)

    def _offer(self, folder: Path) -> None:
        """The default folder is known: offered unless a folder was typed meanwhile."""
        self._folder = folder
        field = self.query_one(Input)
        if not field.value.strip() and not self.running:
            field.value = str(folder)

    # -- start -----------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "spot-go":
            if self.result is not None:
                self.dismiss(self.result)
            else:
                self._start()
        else:
            self.action_cancel()

    def _start(self) -> None:
        from foley_tui.spot.plan import SpotOptions

        if self.running or self.result is not None:
            return
        text = self.query_one(Input).value.strip()
        if not text:
            self._error("enter a folder")
            return
        out = Path(text).expanduser()
        options = SpotOptions(force=self.query_one(Checkbox).value, network=self._network)
        self.running = True
        self._error("")
        self.query_one("#spot-go", Button).disabled = True
        self.query_one(Input).disabled = True
        self.query_one("#spot-progress", ProgressBar).display = True
        self.query_one("#spot-summary", Static).update("Reading the scene…")
        self.run_worker(lambda: self._work(out, options), thread=True, group="spot")

    def _work(self, out: Path, options: object) -> None:
        """Worker: the scene (store and audio reads), then the bundle."""
        from foley_tui.scene.build import build_scene
        from foley_tui.spot.bundle import SpotCancelled, spot
        from foley_tui.spot.plan import SpotError, SpotOptions

        assert isinstance(options, SpotOptions)
        try:
            model = build_scene(self.store)
            result = spot(
                self.store,
                model,
                out,
                options,
                progress=lambda done, total, what: self.app.call_from_thread(
                    self._progress, done, total, what
                ),
                cancelled=self._cancel.is_set,
            )
        except SpotCancelled:
            self.app.call_from_thread(self._cancelled)
            return
        except (SpotError, OSError, ValueError) as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self._finished, result)

    # -- UI thread: what the worker reports ------------------------------------------
    def _progress(self, done: int, total: int, what: str) -> None:
        bar = self.query_one("#spot-progress", ProgressBar)
        bar.update(total=total, progress=done)
        self.query_one("#spot-summary", Static).update(f"{done}/{total}: {what}")

    def _error(self, text: str) -> None:
        self.query_one("#spot-error", Static).update(text)

    def _failed(self, message: str) -> None:
        self.running = False
        self._error(message)
        self.query_one("#spot-summary", Static).update("")
        self.query_one("#spot-progress", ProgressBar).display = False
        self.query_one("#spot-go", Button).disabled = False
        self.query_one(Input).disabled = False
        self.query_one(Input).focus()

    def _cancelled(self) -> None:
        self.running = False
        self.app.notify("Spot cancelled: nothing was written.", timeout=4)
        self.dismiss(None)

    def _finished(self, result: SpotResult) -> None:
        self.running = False
        self.result = result
        bar = self.query_one("#spot-progress", ProgressBar)
        bar.update(total=1, progress=1)
        self.query_one("#spot-summary", Static).update("\n".join(result.summary()))
        go = self.query_one("#spot-go", Button)
        go.label = "Close"
        go.disabled = False
        go.focus()
        self.query_one("#spot-cancel", Button).display = False

    def action_cancel(self) -> None:
        if self.running:
            self._cancel.set()
            self.query_one("#spot-summary", Static).update("Cancelling…")
            return
        self.dismiss(self.result)
