"""What a first day on the command line ran into: the answers say what happened."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from foley_tui.cli import main
from foley_tui.store import SessionService
from tests.ui.seed import seed_session

FOLEY_TUI = Path(sys.executable).parent / "foley-tui"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_second_session_of_the_same_title_is_refused(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    code, out, _ = run(capsys, "session", "create", "--title", "My Scene")
    assert code == 0
    first = out.strip()
    code, out, err = run(capsys, "session", "create", "--title", "my scene")
    assert code == 1
    assert out.strip() == first  # the session to use instead, as create would print it
    assert "already" in err and first in err and err.count("\n") == 1
    assert [i.session_id for i in SessionService(data_dir).list()] == [first]
    code, out, _ = run(capsys, "session", "create")  # untitled sessions are not names
    code2, out2, _ = run(capsys, "session", "create")
    assert code == code2 == 0 and out != out2


def test_an_unknown_session_suggests_the_one_meant(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    seed_session(data_dir, 2, title="Demo: a stormy night")
    code, _, err = run(capsys, "pick", "demo", "x")
    assert code == 2
    assert "no session 'demo'" in err
    assert "did you mean 'Demo: a stormy night'" in err
    code, _, err = run(capsys, "candidates", "Stromy night")
    assert "did you mean 'Demo: a stormy night'" in err
    code, _, err = run(capsys, "candidates", "nothing like it")
    assert code == 2 and "did you mean" not in err


def test_clear_on_an_undecided_sound_says_so(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    service, session_id = seed_session(data_dir, 2)
    (first, second) = [row.sound_id for row in service.get(session_id).rows()]
    code, out, _ = run(capsys, "clear", session_id, first)
    assert code == 0 and out == f"{first} was undecided: nothing to clear\n"
    run(capsys, "pick", session_id, second)
    code, out, _ = run(capsys, "clear", session_id, second)
    assert code == 0 and out == f"cleared {second} (was picked)\n"


def _unreadable_and_noisy(folder: Path) -> tuple[Path, Path]:
    """A file that is no audio, and a cut MP3 whose Xing header promises more stream than
    there is (libmpg123 warns about it on descriptor 2, naming no file)."""
    import numpy as np
    import soundfile as sf

    folder.mkdir(parents=True, exist_ok=True)
    garbage = folder / "notes.wav"
    garbage.write_bytes(b"this is not a sound" * 10)
    whole = folder / "whole.mp3"
    tone = (0.2 * np.sin(np.arange(44100 * 3) * 0.05)).astype("float32")
    sf.write(str(whole), tone, 44100, format="MP3")
    cut = folder / "cut.mp3"
    data = whole.read_bytes()
    cut.write_bytes(data[: len(data) // 3])
    whole.unlink()
    return garbage, cut


def test_add_names_each_file_and_its_reason(
    capfd: pytest.CaptureFixture[str], data_dir: Path, tmp_path: Path
) -> None:
    garbage, cut = _unreadable_and_noisy(tmp_path / "sfx")
    code = main(["add", "--create", "Cuts", str(garbage), str(cut)])
    out, err = capfd.readouterr()
    assert code == 1  # one path skipped
    assert "added 1 candidate (1 skipped)" in out
    lines = err.splitlines()
    reason = "not audio libsndfile can read: format not recognised"
    assert f"foley-tui: skipped {garbage}: {reason}" in lines
    assert "BufferedReader" not in err and "name=3" not in err
    # The decoder's warning is kept, with the file it is about; never bare.
    noisy = [line for line in lines if "Xing" in line]
    assert noisy and all(line.startswith(f"foley-tui: {cut}: ") for line in noisy)


def test_stderr_and_stdout_arrive_in_the_order_they_were_written(
    data_dir: Path, tmp_path: Path
) -> None:
    """Both streams into one pipe (``2>&1 | less``): a piped stdout is block-buffered, yet
    nothing on stderr may overtake what stdout was given before it."""
    garbage, _ = _unreadable_and_noisy(tmp_path / "sfx")
    done = subprocess.run(
        [str(FOLEY_TUI), "add", "--create", "Only junk", str(garbage)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        # Buffered as a user's shell leaves it (PYTHONUNBUFFERED would hide the order).
        env={
            **{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
            "FOLEY_DATA_DIR": str(data_dir),
        },
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 2
    assert [line.split(" ", 2)[:2] for line in lines] == [
        ["created", "session"],
        ["foley-tui:", "skipped"],
        ["added", "0"],
        ["foley-tui:", "error:"],
    ]


def test_scene_without_picks_says_so(capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    _, session_id = seed_session(data_dir, 2)
    code, out, _ = run(capsys, "scene", session_id)
    assert code == 0 and out.startswith("no picks: nothing to place")


def test_an_anchor_onset_says_how_foley_reads_it(
    capsys: pytest.CaptureFixture[str], data_dir: Path, tmp_path: Path
) -> None:
    from tests.scene_fixtures import attach_narration, make_tone_session

    tones = make_tone_session(data_dir, tmp_path / "tones", 8000)
    sid = tones.ids["alt"]
    code, out, err = run(capsys, "pick", tones.session_id, sid, "--onset", "abc")
    assert code == 0
    assert "foley reads the onset as: word anchor on 'abc'" in out
    assert err == (
        "foley-tui: warning: word anchor 'abc': the session has no narration, "
        "weave puts it at 0:00\n"
    )
    assert attach_narration(tones) == 0
    capsys.readouterr()
    code, out, err = run(capsys, "pick", tones.session_id, sid, "--onset", "abc")
    assert err == "foley-tui: warning: word anchor 'abc': no such word, weave puts it at 0:00\n"
    code, out, err = run(capsys, "pick", tones.session_id, sid, "--onset", "on 'door'")
    assert code == 0 and err == ""
    assert "foley reads the onset as: word anchor on 'door' → 'door' at 0:00.400" in out
    code, out, err = run(capsys, "pick", tones.session_id, sid, "--onset", "1.5")
    assert "foley reads" not in out and err == ""  # a number needs no reading


def test_candidates_and_picks_have_a_header_on_a_terminal_only(
    data_dir: Path,
) -> None:
    """A person at a terminal gets a header (as ``sessions`` prints one); a pipe keeps the
    documented tab-separated lines, which scripts read."""
    import pty

    service, session_id = seed_session(data_dir, 3)
    first = next(iter(service.get(session_id).rows())).sound_id
    service.get(session_id).add_pick(first, layer="sfx_fg", onset=2.0)
    env = {**os.environ, "FOLEY_DATA_DIR": str(data_dir), "COLUMNS": "200"}
    for verb, header in (
        ("candidates", ["SOUND_ID", "DECISION", "LENGTH", "EVENT", "CAPTION"]),
        ("picks", ["SOUND_ID", "LAYER", "ONSET", "LENGTH", "CAPTION"]),
    ):
        leader, follower = pty.openpty()
        with subprocess.Popen(
            [str(FOLEY_TUI), verb, session_id], stdout=follower, stderr=follower, env=env
        ) as proc:
            os.close(follower)
            chunks = []
            while True:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the terminal's other end closed: the verb ended
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            assert proc.wait(timeout=300) == 0
        os.close(leader)
        shown = b"".join(chunks).decode().splitlines()
        assert shown[0].split() == header
        assert first in shown[1] and "\t" not in "".join(shown)
        piped = subprocess.run(
            [str(FOLEY_TUI), verb, session_id], capture_output=True, text=True, env=env
        )
        assert piped.stdout.splitlines()[0].split("\t")[0] == first  # no header
        assert len(piped.stdout.splitlines()[0].split("\t")) == 5


def test_the_mix_summary_counts_the_picks_that_sound(
    capsys: pytest.CaptureFixture[str], data_dir: Path, tmp_path: Path
) -> None:
    from tests.scene_fixtures import attach_narration, make_tone_session

    tones = make_tone_session(data_dir, tmp_path / "tones", 8000)
    assert attach_narration(tones) == 0
    capsys.readouterr()
    out = tmp_path / "mix.wav"
    argv = ["render-scene", tones.session_id, "-o", str(out), "--mix", "flat", "--force"]
    # Placed: numeric and slam (sfx_fg), rain (ambience), sting (stinger); zebra is not.
    _, _, err = run(capsys, *argv)
    assert err.splitlines()[0] == f"4 picks + narration, the flat mix, on {out}"
    _, _, err = run(capsys, *argv, "--solo", "sfx_fg")
    assert err.splitlines()[0] == f"2 picks (2 silenced by --solo/--mute), the flat mix, on {out}"
    _, _, err = run(capsys, *argv, "--solo", "stinger", "--solo", "narration")
    assert err.splitlines()[0] == (
        f"1 pick (3 silenced by --solo/--mute) + narration, the flat mix, on {out}"
    )


def test_import_as_a_copy_beside_the_session_it_came_from(
    capsys: pytest.CaptureFixture[str], data_dir: Path, tmp_path: Path
) -> None:
    service, session_id = seed_session(data_dir, 2, title="Harbour")
    export = tmp_path / "harbour.json"
    service.export_to_file(session_id, export)
    code, _, err = run(capsys, "session", "import", str(export))
    assert code == 2 and "--as-copy" in err
    code, out, _ = run(capsys, "session", "import", str(export), "--as-copy")
    copy = out.strip()
    assert code == 0 and copy != session_id
    assert sorted(i.title or "" for i in SessionService(data_dir).list()) == [
        "Harbour",
        "Harbour (copy)",
    ]
