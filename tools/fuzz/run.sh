#!/usr/bin/env bash
# Builds the fuzz targets (libFuzzer, stable Rust) and runs each for a fixed time, starting from
# the corpus in tools/fuzz/corpus/<target>. Exits non-zero when any target crashes, hangs or
# runs out of memory, and prints one final line per target.
#
#   tools/fuzz/run.sh [SECONDS] [TARGET...]     SECONDS per target (default 60); all targets
#
# Environment: FUZZ_TIMEOUT (seconds one input may take before it counts as a hang, default 5),
# FUZZ_RSS_MB (memory limit, default 2048), FUZZ_JOBS (cargo build jobs), FUZZ_ARGS (extra
# libFuzzer flags). New inputs go to tools/fuzz/target/corpus/<target> (not the committed
# corpus); a failing input is saved under tools/fuzz/target/artifacts/<target>/ and its log
# under tools/fuzz/target/logs/. Replay one input: tools/fuzz/target/release/<target> FILE.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
seconds="${1:-60}"
shift || true
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  targets=(import_gltf load_sinew)
fi
timeout="${FUZZ_TIMEOUT:-5}"
rss_mb="${FUZZ_RSS_MB:-2048}"

build_start=$(date +%s)
# The binaries are looked up under tools/fuzz/target whatever CARGO_TARGET_DIR says.
RUSTC_WRAPPER="$here/instrument.sh" cargo build --release --bins \
  --manifest-path "$here/Cargo.toml" --target-dir "$here/target" ${FUZZ_JOBS:+--jobs "$FUZZ_JOBS"}
echo "fuzz: built in $(($(date +%s) - build_start)) s"

# The evaluators run on one thread: coverage then depends on the input alone.
export RAYON_NUM_THREADS=1
mkdir -p "$here/target/logs"
failed=0
summary=()
for target in "${targets[@]}"; do
  binary="$here/target/release/$target"
  seeds="$here/corpus/$target"
  if [ ! -x "$binary" ] || [ ! -d "$seeds" ]; then
    echo "fuzz: unknown target $target" >&2
    exit 2
  fi
  work="$here/target/corpus/$target"
  artifacts="$here/target/artifacts/$target"
  log="$here/target/logs/$target.log"
  mkdir -p "$work" "$artifacts"
  dict=()
  if [ -f "$here/$target.dict" ]; then
    dict=("-dict=$here/$target.dict")
  fi
  echo "fuzz: $target for $seconds s (log: $log)"
  status=0
  # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags.
  "$binary" "$work" "$seeds" "${dict[@]}" \
    -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss_mb" \
    -artifact_prefix="$artifacts/" -print_final_stats=1 ${FUZZ_ARGS:-} \
    >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
  inputs=$(find "$work" -type f | wc -l)
  if [ "$status" -eq 0 ]; then
    summary+=("fuzz $target: ok, ${runs:-?} runs in $seconds s, $inputs inputs, peak RSS ${rss:-?} MB")
  else
    failed=1
    what=$(grep -m 1 -o -E 'ERROR: libFuzzer: [a-z-]+|panicked at [^ ]+' "$log" || echo "exit $status")
    saved=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
    tail -n 60 "$log" >&2
    summary+=("fuzz $target: FAILED ($what), input: ${saved:-none saved}")
  fi
done
printf '%s\n' "${summary[@]}"
exit "$failed"
