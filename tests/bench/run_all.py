"""Run every benchmark in tests/bench/ (``make bench``) and print one summary table.

Each ``bench_*.py`` module exposes ``main() -> dict`` and prints its own figures; this
collects them into tests/bench/results/all.json.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent


def main() -> int:
    results: dict[str, object] = {}
    names = sys.argv[1:] or sorted(p.stem for p in HERE.glob("bench_*.py"))
    for name in names:
        path = HERE / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        sys.argv = [str(path)]  # benches that parse options get their defaults
        results[name] = module.main()
        print(f"== {name} done in {time.perf_counter() - started:.1f} s", flush=True)
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "all.json").write_text(json.dumps(results, indent=2, default=str))
    print(f"results: {out / 'all.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
