#!/usr/bin/env python3
"""Print criterion medians and ratios from target/criterion, for BENCHMARKS.md.

Usage: criterion_report.py [--root DIR] [--since EPOCH] [--only-measured] NAME ... [NUM::DEN ...]

A NAME is a criterion benchmark id as it appears under target/criterion ("group/function");
NUM::DEN prints the ratio of two medians. --root reads another criterion folder (the bench/
workspace writes to bench/target/criterion).

--since EPOCH (seconds, as `date +%s` prints them; or the environment's CY_BENCH_SINCE) takes
only estimates written at or after that time: the start of the run whose figures are wanted.
Criterion keeps a benchmark's last estimates until it runs again, so without it a ratio can put
a figure of this run over one from an earlier run. An older (or missing) estimate is refused,
naming it, and nothing is printed; with --only-measured its rows are left out instead and
listed at the end, so a run filtered to a few benchmarks prints just what it measured.
"""
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"

# Estimates written up to this many seconds before --since still count: file times and `date`
# can round differently.
SLACK_S = 1.0


class Stale(Exception):
    """An estimate missing, or older than the run: its message says which and what to do."""


def estimates_path(name: str, root: pathlib.Path) -> pathlib.Path:
    return root / name / "new" / "estimates.json"


def median_ns(name: str, root: pathlib.Path = ROOT, since: float | None = None) -> float:
    """The median of `name`'s latest run, in ns; `Stale` when it is missing or before `since`."""
    path = estimates_path(name, root)
    if not path.exists():
        raise Stale(f"no criterion results for `{name}` at {path}; run the benchmark first")
    if since is not None and path.stat().st_mtime + SLACK_S < since:
        raise Stale(
            f"`{name}` was last measured before this run started ({path} is older than "
            f"--since {since:.0f}): run the benchmark again, or leave its row out"
        )
    return json.loads(path.read_text())["median"]["point_estimate"]


def human(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def rows(args: list[str], root: pathlib.Path, since: float | None, only_measured: bool):
    """The table rows for `args`, and the names left out (only with `only_measured`)."""
    out, left_out = [], []
    for arg in args:
        try:
            if "::" in arg:
                num, den = arg.split("::", 1)
                ratio = median_ns(num, root, since) / median_ns(den, root, since)
                out.append(f"| `{num}` / `{den}` | {ratio:.2f}x |")
            else:
                out.append(f"| `{arg}` median | {human(median_ns(arg, root, since))} |")
        except Stale as err:
            if not only_measured:
                raise
            left_out.append((arg, str(err)))
    return out, left_out


def main(argv: list[str]) -> int:
    root = ROOT
    since = os.environ.get("CY_BENCH_SINCE")
    since = float(since) if since else None
    only_measured = False
    while argv and argv[0].startswith("--"):
        flag = argv.pop(0)
        if flag == "--root" and argv:
            root = pathlib.Path(argv.pop(0)).resolve()
        elif flag == "--since" and argv:
            since = float(argv.pop(0))
        elif flag == "--only-measured":
            only_measured = True
        else:
            print(f"unknown or incomplete option `{flag}`\n{__doc__}", file=sys.stderr)
            return 2
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    if only_measured and since is None:
        print("--only-measured needs --since (or CY_BENCH_SINCE): the run's start", file=sys.stderr)
        return 2
    try:
        printed, left_out = rows(argv, root, since, only_measured)
    except Stale as err:
        print(err, file=sys.stderr)
        return 1
    for row in printed:
        print(row)
    if left_out:
        names = ", ".join(f"`{arg}`" for arg, _ in left_out)
        print(f"not measured in this run, so not printed: {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
