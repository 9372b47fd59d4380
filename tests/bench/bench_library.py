"""Library folder benchmark: walking, reading and revisiting a big tree, with a plain
``os.scandir`` walk of the same tree as the same-run baseline.

* **walk** of a 100k-file tree (1,000 folders of 100 files): ``library.scan.walk`` (it
  stats every entry, follows links, checks loops) against a bare recursive
  ``os.scandir`` that only lists names;
* **first scan** of 10k real-format files (BWF with bext and iXML, FLAC, Ogg Vorbis,
  MP3 with ID3; each file's audio differs, so every hash is its own): metadata,
  SHA-256 and the cache write, as files/s (the target is at least 1,000 files/s);
* **revisit** of the 100k tree: the cached entries alone (what the first screen can
  show) and a refresh that finds nothing changed (a walk plus a compare), beside the
  scandir walk;
* **RSS** of a process that refreshes the 100k tree and holds its entries (the target
  is below 200 MB);
* **the app** (``--ui``): ``foley-tui open DIR --no-audio`` in tmux (120x30) on the big
  tree, next to a bare Textual app measured the same way in the same run: on a *first
  visit* (no cache, no session) until the first rows are on screen and until every file
  is a row; on a *revisit* until the first rows are on screen; and the app's peak RSS
  once the first visit is done.

Each figure is the median of ``--runs`` runs. The trees are made once under
$FOLEY_TUI_BENCH_CACHE (default ~/.cache/foley-tui-bench). Runnable standalone:
``python tests/bench/bench_library.py [--quick]``; writes
tests/bench/results/bench_library.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from foley_tui.library.cache import LibraryIndex  # noqa: E402
from foley_tui.library.scan import walk  # noqa: E402
from tests.library_fixtures import bwf, flac, ixml_user, mp3, vorbis, with_ixml  # noqa: E402

CACHE = Path(os.environ.get("FOLEY_TUI_BENCH_CACHE", Path.home() / ".cache" / "foley-tui-bench"))


def scandir_walk(folder: str) -> int:
    """The baseline: names only, recursively."""
    count = 0
    with os.scandir(folder) as it:
        for entry in it:
            if entry.is_dir(follow_symlinks=False):
                count += scandir_walk(entry.path)
            else:
                count += 1
    return count


def templates(where: Path) -> list[tuple[str, bytes, int]]:
    """(extension, bytes, offset of the audio to vary) of one file per format."""
    where.mkdir(parents=True, exist_ok=True)
    wav = bwf(where / "t.wav", "Door slam, wooden, heavy", seconds=0.05)
    with_ixml(wav, ixml_user(CATID="DOORWood", CATEGORY="DOORS", SUBCATEGORY="WOOD"))
    made = [
        (".wav", wav),
        (".flac", flac(where / "t.flac", "Rain on a tin roof", seconds=0.05)),
        (".ogg", vorbis(where / "t.ogg", "Wind howling", seconds=0.05)),
        (".mp3", mp3(where / "t.mp3", "Glass breaking", seconds=0.05)),
    ]
    out = []
    for ext, path in made:
        data = path.read_bytes()
        # Vary bytes near the end: inside the audio (or a tag's padding) of each format.
        out.append((ext, data, max(len(data) - 8, 0)))
    return out


def make_tree(root: Path, files: int, per_folder: int) -> Path:
    marker = root / f".complete-{files}"
    if marker.exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    kinds = templates(root.parent / f"templates-{root.name}")
    for i in range(files):
        ext, data, at = kinds[i % len(kinds)]
        folder = root / f"bank {i // per_folder // 10:03d}" / f"folder {i // per_folder:04d}"
        if i % per_folder == 0:
            folder.mkdir(parents=True, exist_ok=True)
        unique = bytearray(data)
        unique[at : at + 4] = i.to_bytes(4, "little")
        (folder / f"sound {i:06d}{ext}").write_bytes(bytes(unique))
    marker.write_text("")
    return root


def median_time(fn: Any, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def rss_of_refresh(root: Path, cache: Path) -> float:
    """Peak RSS (MB) of a fresh process that refreshes ``root`` and holds its entries."""
    code = (
        "import resource, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from pathlib import Path\n"
        "from foley_tui.library.cache import LibraryIndex\n"
        f"index = LibraryIndex(Path({str(root)!r}), cache_dir=Path({str(cache)!r}))\n"
        "result = index.refresh()\n"
        "entries = index.entries()\n"
        "assert result.files == len(entries) > 0\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1]) / 1024


def _has_rows(text: str) -> bool:
    """The status line counts rows (``N of M`` with M > 0): the first rows are listed."""
    found = re.search(r"(\d[\d,]*) of (\d[\d,]*)", text.replace("\xa0", " "))
    return found is not None and found.group(2) != "0"


def ui(big: Path, files: int, runs: int) -> dict[str, Any]:
    """First visit and revisit of ``big`` in the app (tmux, 120x40), beside a bare
    Textual app in the same run; then ``/`` at that size."""
    from tests.bench.bench_ui import BARE_APP, FOLEY_TUI, Pane, _bare, _env, _rss_mb

    out: dict[str, Any] = {}
    # From bytecode, as an installed foley-tui starts (the bare app's textual does).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "foley_tui")], check=True)
    command = f"exec {FOLEY_TUI} open '{big}' --no-audio"
    with tempfile.TemporaryDirectory() as tmp:
        home, data = Path(tmp) / "home", Path(tmp) / "data"
        home.mkdir()
        env = _env(home, data)
        script = Path(tmp) / "bare.py"
        script.write_text(BARE_APP)
        bare, first = [], []
        for i in range(runs):  # interleaved: a bare app, then a first visit (fresh state)
            bare.append(_bare(env, script))
            fresh = Path(tmp) / f"fresh{i}"
            (fresh / "home").mkdir(parents=True)
            pane = Pane(command, _env(fresh / "home", fresh / "data"), height=40)
            try:
                first.append(pane.wait(_has_rows, timeout=900))
                pane.keys("q")
            finally:
                pane.close()
                shutil.rmtree(fresh, ignore_errors=True)
        out["bare_app_s"] = statistics.median(bare)
        out["first_visit_first_rows_s"] = statistics.median(first)
        pane = Pane(command, env, height=40)  # a whole first visit, for the revisits
        try:
            out["first_visit_all_rows_s"] = pane.wait(
                lambda t: f"of {files:,}" in t or f"of {files}" in t, timeout=3600
            )
            pane.wait(lambda t: f"{big.name}: {files} files" in t, timeout=3600)  # scanned
            out["first_visit_rss_mb"] = _rss_mb(pane.pid())
            pane.keys("q")
        finally:
            pane.close()
        bare_again: list[float] = []
        revisits: list[float] = []
        for _ in range(runs):  # interleaved too
            bare_again.append(_bare(env, script))
            pane = Pane(command, env, height=40)
            try:
                revisits.append(pane.wait(_has_rows, timeout=300))
                pane.keys("q")
            finally:
                pane.close()
        out["revisit_bare_app_s"] = statistics.median(bare_again)
        out["revisit_first_rows_s"] = statistics.median(revisits)
        out["revisit_ratio"] = out["revisit_first_rows_s"] / out["revisit_bare_app_s"]
        out["first_visit_ratio"] = out["first_visit_first_rows_s"] / out["bare_app_s"]
        out.update(slash(big, home, data))
    return out


def revisit(big: Path, home: Path, data: Path, files: int, runs: int) -> dict[str, Any]:
    """Revisits of ``big`` in the app (tmux, 120x40) on STATE/home and STATE/data where
    it was opened and scanned before: each round a bare Textual app, then the app until
    its first rows are on screen; then one revisit until its scan is done, for the
    app's peak RSS (VmHWM) with the folder's list loaded and the tree walked again."""
    from tests.bench.bench_ui import BARE_APP, FOLEY_TUI, Pane, _bare, _env, _rss_mb

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "foley_tui")], check=True)
    command = f"exec {FOLEY_TUI} open '{big}' --no-audio"
    env = _env(home, data)
    bare: list[float] = []
    first: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bare.py"
        script.write_text(BARE_APP)
        for _ in range(runs):  # interleaved: a bare app, then a revisit
            bare.append(_bare(env, script))
            pane = Pane(command, env, height=40)
            try:
                first.append(pane.wait(_has_rows, timeout=300))
                pane.keys("q")
            finally:
                pane.close()
    pane = Pane(command, env, height=40)
    try:
        pane.wait(lambda t: f"{big.name}: {files} files" in t, timeout=900)  # scanned
        rss = _rss_mb(pane.pid())
        pane.keys("q")
    finally:
        pane.close()
    return {
        "revisit_bare_app_s": statistics.median(bare),
        "revisit_first_rows_s": statistics.median(first),
        "revisit_ratio": statistics.median(first) / statistics.median(bare),
        "revisit_runs_s": first,
        "revisit_bare_runs_s": bare,
        "revisit_rss_mb": rss,
    }


def first_scan(tree: Path, files: int) -> float:
    """Seconds of one first scan of ``tree`` (metadata, SHA-256, cache write) in a fresh
    cache."""
    with tempfile.TemporaryDirectory() as cache:
        index = LibraryIndex(tree, cache_dir=Path(cache))
        start = time.perf_counter()
        result = index.refresh()
        seconds = time.perf_counter() - start
        assert result.read == files, (result.read, result.problems[:3])
        index.close()
    return seconds


def scan_only(tree: Path, files: int, runs: int) -> dict[str, Any]:
    """``--scan``: the first scan and a scandir walk of the same tree, alternately."""
    scans: list[float] = []
    walks: list[float] = []
    loads: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        scandir_walk(str(tree))
        walks.append(time.perf_counter() - start)
        scans.append(first_scan(tree, files))
        loads.append(os.getloadavg()[0])
    return {
        "read_files": files,
        "first_scan_s": [round(s, 3) for s in scans],
        "first_scan_files_per_s_median": round(files / statistics.median(scans)),
        "read_scandir_s": [round(s, 4) for s in walks],
        "load_average": loads,
    }


SLASH_QUERIES = ("door slam", "folder 0421", "rain tin")


class Frames:
    """When the app painted, and what its state was then: Textual hands every frame to
    ``App._display`` (headless too, where it writes nothing), so wrapping it is the one
    place to see a frame go out. ``state()`` is read at each frame."""

    def __init__(self, app: Any, state: Any) -> None:
        self.seen: list[tuple[float, Any]] = []
        display = app._display

        def timed(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if renderable is not None:
                self.seen.append((time.perf_counter(), state()))

        app._display = timed

    def first(self, after: float, wanted: Any) -> float | None:
        """The time of the first frame after ``after`` whose state passes ``wanted``."""
        for at, state in self.seen:
            if at >= after and wanted(state):
                return at
        return None


async def keystrokes(
    app: Any, frames: Frames, keys: list[tuple[str, str | None, str]], settled: Any
) -> list[tuple[float, float]]:
    """Each key posted to the app as a terminal sends it, then (ms) until a frame shows
    the filter box holding the text typed so far, and until a frame shows the list's
    answer to it as well (``settled(state, text)``). The next key waits for both."""
    import asyncio

    from textual import events

    out: list[tuple[float, float]] = []
    for key, char, text in keys:
        start = time.perf_counter()
        event = events.Key(key, char)
        app.post_message(event)
        typed = shown = None
        while shown is None and time.perf_counter() - start < 60:  # a bound, not a target
            await asyncio.sleep(0.001)
            if typed is None:
                typed = frames.first(start, lambda st, text=text: st[0] == text)
            shown = frames.first(start, lambda st, text=text: settled(st, text))
        assert typed is not None and shown is not None, f"no frame for {text!r}"
        out.append(((typed - start) * 1000, (shown - start) * 1000))
    return out


def _keys_of(query: str) -> list[tuple[str, str | None, str]]:
    """The keys that type ``query`` then backspace it, each with the text after it."""
    keys: list[tuple[str, str | None, str]] = []
    for n, char in enumerate(query, 1):
        keys.append(("space" if char == " " else char, char, query[:n]))
    for n in range(len(query) - 1, -1, -1):
        keys.append(("backspace", None, query[:n]))
    return keys


def slash(big: Path, home: Path, data: Path) -> dict[str, Any]:
    """``/`` in the folder's list, the app headless at 120x40, the folder's scan done:
    each key posted to the app, then until a frame shows the filter box with the new
    text (*typed*), and until a frame shows the list filtered by it (*rows*: the query
    answered in its worker and the list repainted), typing each query and backspacing
    it. Same-run baseline: a bare Textual app whose Input repaints a screen of text,
    measured the same way (its one frame is both). Also the app's peak RSS."""
    import asyncio

    from foley_tui.app.foley_app import FoleyApp
    from foley_tui.library.registry import FolderRegistry
    from foley_tui.library.source import FolderSource
    from foley_tui.screens.audition.screen import AuditionScreen
    from foley_tui.store import SessionService
    from foley_tui.widgets.filter_input import FilterInput
    from tests.fakes import FakePlayer

    service = SessionService(data)
    session_id = FolderRegistry(data).session_of(big)
    assert session_id is not None
    source = FolderSource(big, session_id, cache_dir=home / ".cache" / "foley-tui" / "library")
    typed: list[float] = []
    shown: list[float] = []
    back_typed: list[float] = []
    back_shown: list[float] = []
    out: dict[str, Any] = {}

    async def run() -> None:
        app = FoleyApp(service.get(session_id), FakePlayer(), service=service, library=source)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.screen
            assert isinstance(screen, AuditionScreen)
            for _ in range(6000):  # a bound, not a target: the list and the scan are in
                await pilot.pause(0.1)
                if screen.model.loaded and source.last is not None:
                    break
            out["slash_rows_held"] = screen.listing.rows_held
            box = screen.query_one(FilterInput)
            model = screen.model
            frames = Frames(app, lambda: (box.value, model.view_pending, model.view.query))

            def settled(state: Any, text: str) -> bool:
                return bool(state[0] == text and not state[1] and state[2] == text)

            for query in SLASH_QUERIES:
                await pilot.press("slash")
                await pilot.pause(0.5)
                for _ in range(600):  # the search index, built on / (a bound, not a target)
                    if not any(w.is_running for w in app.workers if w.group == "search"):
                        break
                    await pilot.pause(0.1)
                timed = await keystrokes(app, frames, _keys_of(query), settled)
                for i, (t, r) in enumerate(timed):
                    if i < len(query):
                        typed.append(t)
                        shown.append(r)
                    else:
                        back_typed.append(t)
                        back_shown.append(r)
                await pilot.press("escape")
                await pilot.pause()
            out["slash_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    async def bare() -> None:
        """The same-run baseline: a bare Textual app of an Input and a list of as many
        lines as the folder's list shows, each keystroke repainting both."""
        from textual.app import App, ComposeResult
        from textual.widgets import Input, Static

        class Bare(App[None]):
            def compose(self) -> ComposeResult:
                self.lines = Static("")
                yield self.lines
                yield Input(id="q")

            def on_input_changed(self, event: Input.Changed) -> None:
                self.lines.update("\n".join(f"{event.value} {n}" * 8 for n in range(36)))

        app = Bare()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.5)
            box = app.query_one(Input)
            frames = Frames(app, lambda: (box.value,))
            for query in SLASH_QUERIES:
                timed = await keystrokes(
                    app, frames, _keys_of(query), lambda state, text: state[0] == text
                )
                baseline.extend(t for t, _ in timed[: len(query)])

    baseline: list[float] = []
    asyncio.run(bare())
    asyncio.run(run())
    return {
        "slash_bare_app_keystroke_ms_median": statistics.median(baseline),
        "slash_typed_ms_median": statistics.median(typed),
        "slash_typed_ms_worst": max(typed),
        "slash_rows_ms_median": statistics.median(shown),
        "slash_rows_ms_worst": max(shown),
        "slash_backspace_typed_ms_median": statistics.median(back_typed),
        "slash_backspace_rows_ms_median": statistics.median(back_shown),
        "slash_backspace_rows_ms_worst": max(back_shown),
        **out,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="10k/1k files instead of 100k/10k")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ui", action="store_true", help="also the app in tmux (first visit)")
    parser.add_argument(
        "--scan",
        action="store_true",
        help="only the first scan of the 10k tree (1k with --quick), each run beside a "
        "scandir walk of the same tree",
    )
    parser.add_argument(
        "--slash",
        type=Path,
        metavar="STATE",
        help="only / in the app, on STATE/home and STATE/data where the big tree was opened "
        "(and scanned) before; repeated --runs times",
    )
    parser.add_argument(
        "--revisit",
        type=Path,
        metavar="STATE",
        help="only revisits in the app (tmux), on STATE/home and STATE/data as --slash",
    )
    args = parser.parse_args()
    big_n, read_n = (10_000, 1_000) if args.quick else (100_000, 10_000)
    big = make_tree(CACHE / f"library{big_n}", big_n, 100)
    if args.revisit is not None:
        found = revisit(big, args.revisit / "home", args.revisit / "data", big_n, args.runs)
        for key, value in found.items():
            print(f"{key:28} {value}")
        print("load average", os.getloadavg())
        return
    if args.slash is not None:
        runs = [slash(big, args.slash / "home", args.slash / "data") for _ in range(args.runs)]
        for key in runs[0]:
            values = [run[key] for run in runs]
            print(f"{key:36} median {statistics.median(values):8.1f}  runs {values}")
        print("load average", os.getloadavg())
        return
    small = make_tree(CACHE / f"library-read{read_n}", read_n, 100)
    results: dict[str, Any] = {"files": big_n, "read_files": read_n, "runs": args.runs}
    if args.scan:
        print(json.dumps(scan_only(small, read_n, args.runs), indent=2))
        return

    results["walk_scandir_s"] = median_time(lambda: scandir_walk(str(big)), args.runs)
    results["walk_library_s"] = median_time(lambda: sum(1 for _ in walk(big)), args.runs)
    results["walk_ratio"] = results["walk_library_s"] / results["walk_scandir_s"]

    first = [first_scan(small, read_n) for _ in range(args.runs)]
    results["first_scan_s"] = statistics.median(first)
    results["first_scan_files_per_s"] = read_n / results["first_scan_s"]
    results["read_scandir_s"] = median_time(lambda: scandir_walk(str(small)), args.runs)

    with tempfile.TemporaryDirectory() as cache:
        cache_dir = Path(cache)
        index = LibraryIndex(big, cache_dir=cache_dir)
        start = time.perf_counter()
        index.refresh()
        results["big_first_scan_s"] = time.perf_counter() - start
        index.close()
        results["revisit_cached_entries_s"] = median_time(
            lambda: LibraryIndex(big, cache_dir=cache_dir).entries(), args.runs
        )
        results["revisit_refresh_s"] = median_time(
            lambda: LibraryIndex(big, cache_dir=cache_dir).refresh(), args.runs
        )
        results["revisit_refresh_ratio"] = results["revisit_refresh_s"] / results["walk_scandir_s"]
        results["rss_mb"] = rss_of_refresh(big, cache_dir)
    results["bench_process_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if args.ui:
        results.update(ui(big, big_n, args.runs))

    out = HERE / "results" / "bench_library.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    for key, value in results.items():
        print(f"{key:28} {value:.3f}" if isinstance(value, float) else f"{key:28} {value}")


if __name__ == "__main__":
    main()
