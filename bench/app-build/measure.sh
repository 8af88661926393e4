#!/usr/bin/env bash
# The clean release build of an application crate, as BENCHMARKS.md reports it.
#
# Usage: bench/app-build/measure.sh CRATE_DIR LABEL [RUNS]
#
# Fetches the crate's dependencies first (not timed, so download time is left out), then builds
# it RUNS times (default 1) with `cargo build --release --locked`, each time in a fresh, empty
# CARGO_TARGET_DIR, and prints one line per run:
#
#   LABEL  run N  wall S  cpu S  crates N  stripped BYTES  load L1 L5 L15
#
# wall and cpu (user + sys) are `/usr/bin/time`'s; crates is the number of `Compiling` lines
# cargo printed; stripped is the size of a `strip`ped copy of the crate's binary; load is
# `uptime`'s load average just before the build. To compare two applications fairly on a
# machine that may be busy, alternate them: `measure.sh A a 1; measure.sh B b 1; measure.sh A a
# 1; ...`. Each run's cargo output is kept in $MEASURE_LOG_DIR (default: a temporary folder,
# whose path is printed on stderr).
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
    echo "usage: $0 CRATE_DIR LABEL [RUNS]" >&2
    exit 2
fi
crate_dir=$(cd "$1" && pwd)
label=$2
runs=${3:-1}
log_dir=${MEASURE_LOG_DIR:-$(mktemp -d /tmp/app-build-logs.XXXXXX)}
mkdir -p "$log_dir"
echo "$label: logs in $log_dir, $(cd "$crate_dir" && rustc --version)" >&2

export CARGO_TERM_COLOR=never CARGO_TERM_PROGRESS_WHEN=never
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR RUSTC_WRAPPER CARGO_BUILD_RUSTC_WRAPPER

# Dependencies downloaded now, so no build below waits on the network.
(cd "$crate_dir" && cargo fetch --quiet)

# The crate's binary: its first `bin` target.
bin=$(cd "$crate_dir" && cargo metadata --no-deps --format-version 1 --offline | python3 -c '
import json, sys
package = json.load(sys.stdin)["packages"][0]
print(next(t["name"] for t in package["targets"] if "bin" in t["kind"]))')

for run in $(seq 1 "$runs"); do
    target=$(mktemp -d /tmp/app-build-target.XXXXXX)
    log="$log_dir/$label-run$run.log"
    times="$log_dir/$label-run$run.time"
    load=$(uptime | sed 's/.*load average: //; s/,//g')
    if ! (cd "$crate_dir" &&
        CARGO_TARGET_DIR="$target" /usr/bin/time -o "$times" -f "%e %U %S" \
            cargo build --release --locked --offline) 2>"$log"; then
        tail -n 30 "$log" >&2
        rm -rf "$target"
        exit 1
    fi
    read -r wall user sys <"$times"
    crates=$(grep -c '^ *Compiling ' "$log" || true)
    cp "$target/release/$bin" "$target/stripped"
    strip "$target/stripped"
    bytes=$(stat -c %s "$target/stripped")
    cpu=$(python3 -c "print(f'{$user + $sys:.2f}')")
    printf '%s\trun %d\twall %s\tcpu %s\tcrates %d\tstripped %d\tload %s\n' \
        "$label" "$run" "$wall" "$cpu" "$crates" "$bytes" "$load"
    # The binary is kept beside the log for inspection (strings, sizes); the target dir is not.
    cp "$target/release/$bin" "$log_dir/$label-run$run.bin"
    rm -rf "$target"
done
