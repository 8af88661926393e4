#!/usr/bin/env python3
"""Print criterion medians and ratios from target/criterion, for BENCHMARKS.md.

Usage: criterion_report.py NAME ... [NUM::DEN ...]
A NAME is a criterion benchmark id as it appears under target/criterion ("group/function");
NUM::DEN prints the ratio of two medians.
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"


def median_ns(name: str) -> float:
    path = ROOT / name / "new" / "estimates.json"
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
    if not argv:
        sys.exit(__doc__)
    for arg in argv:
        if "::" in arg:
            num, den = arg.split("::", 1)
            print(f"| `{num}` / `{den}` | {median_ns(num) / median_ns(den):.2f}x |")
        else:
            print(f"| `{arg}` median | {human(median_ns(arg))} |")


if __name__ == "__main__":
    main(sys.argv[1:])
