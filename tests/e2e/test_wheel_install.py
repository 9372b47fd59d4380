"""Install as a tool: the wheel that ``pipx install .`` builds carries
the package, the ``foley-tui`` command and the demo's sounds.

Offline and quick: the wheel is built from a copy of the source tree with the project's
own build backend (``pip wheel --no-build-isolation --no-index``), installed without its
dependencies (``--no-deps``) and non-editable into a fresh venv, whose dependencies are
then those of this test environment (one ``.pth`` line naming its site-packages, as a
``--system-site-packages`` venv would). Everything of foley-tui itself comes from the
wheel: the test checks that the package is imported from the fresh venv and that no demo
sound is read from the source tree.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHECK = """
import json, sys
from pathlib import Path
import foley_tui
from foley_tui.demo import build as demo
from foley_tui.audio.base import Source
from foley_tui.audio.resolve import resolve
from foley_tui.paths import data_dir
from foley_tui.store import SessionService

data = data_dir()
service = SessionService(data)
store = service.get(sys.argv[1], touch=False)
ids = store.candidate_ids()
sources = {}
for sid in ids:
    source = resolve(store.candidate(sid) or {}, data)
    sources[sid] = str(source.path) if isinstance(source, Source) else None
print(json.dumps({
    "package": foley_tui.__file__,
    "sounds": str(demo.sounds_dir()),
    "count": len(ids),
    "sources": sources,
}))
"""


def _run(
    argv: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, cwd=cwd)
    assert done.returncode == 0, f"{argv} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


def test_the_wheel_installs_a_working_foley_tui_with_its_demo(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("foley_tui", "assets"):
        shutil.copytree(REPO / folder, source / folder, ignore=ignore)
    dist = tmp_path / "dist"
    pip = [sys.executable, "-m", "pip"]
    offline = ["--no-deps", "--no-build-isolation", "--no-index"]
    _run([*pip, "wheel", "-q", *offline, "-w", str(dist), str(source)])
    (wheel,) = dist.glob("foley_tui-*.whl")

    venv = tmp_path / "fresh-venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    _run([*pip, "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)])
    site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]
        ).stdout.strip()
    )
    (site / "_test_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")

    command = venv / "bin" / "foley-tui"
    assert command.is_file() and os.access(command, os.X_OK)
    home = tmp_path / "fresh-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "FOLEY_DATA_DIR" and "XDG" not in k}
    env.update(HOME=str(home), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    env.pop("PYTHONPATH", None)
    elsewhere = tmp_path / "elsewhere"  # not the source tree
    elsewhere.mkdir()
    built = _run(["foley-tui", "demo", "--no-open"], env=env, cwd=elsewhere)
    session_id = built.stdout.strip().splitlines()[-1]
    assert _run(["foley-tui", "--version"], env=env, cwd=elsewhere).stdout.startswith("foley-tui")

    report = json.loads(_run([str(python), "-c", CHECK, session_id], env=env, cwd=elsewhere).stdout)
    assert Path(report["package"]).is_relative_to(venv), report["package"]
    assert Path(report["sounds"]).is_relative_to(venv / "share" / "foley-tui"), report["sounds"]
    assert report["count"] > 0
    unresolved = [sid for sid, path in report["sources"].items() if path is None]
    assert unresolved == [], f"demo candidates that do not resolve: {unresolved}"
    from_repo = [p for p in report["sources"].values() if Path(p).is_relative_to(REPO)]
    assert from_repo == [], f"demo audio read from the source tree: {from_repo}"
    data = home / ".local" / "share" / "foley" / "sessions" / session_id
    assert data.is_dir()
