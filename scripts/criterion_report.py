#!/usr/bin/env python3
"""Print criterion medians and ratios from target/criterion, for BENCHMARKS.md.

Usage: criterion_report.py [--root DIR] NAME ... [NUM::DEN ...]
A NAME is a criterion benchmark id as it appears under target/criterion ("group/function");
NUM::DEN prints the ratio of two medians. --root reads another criterion folder (the bench/
workspace writes to bench/target/criterion).
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"


def median_ns(name: str, root: pathlib.Path = ROOT) -> float:
    path = root / name / "new" / "estimates.json"
    if not path.exists():
        sys.exit(f"no criterion results for `{name}` at {path}; run the benchmark first")
    return json.loads(path.read_text())["median"]["point_estimate"]


def human(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def main(argv: list[str]) -> None:
    root = ROOT
    if len(argv) >= 2 and argv[0] == "--root":
        root = pathlib.Path(argv[1]).resolve()
        argv = argv[2:]
    if not argv:
        sys.exit(__doc__)
    for arg in argv:
        if "::" in arg:
            num, den = arg.split("::", 1)
            ratio = median_ns(num, root) / median_ns(den, root)
            print(f"| `{num}` / `{den}` | {ratio:.2f}x |")
        else:
            print(f"| `{arg}` median | {human(median_ns(arg, root))} |")


if __name__ == "__main__":
    main(sys.argv[1:])
