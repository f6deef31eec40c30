#!/usr/bin/env bash
# Runs `sinew crowd --json` at several character counts on both backends, each with exact and
# with lossy clips (compressed on the GPU, resampled on the CPU), side by side in one run, and
# prints a Markdown table for docs/BENCHMARKS.md.
# Usage: tools/crowd_benchmarks.sh [COUNTS...]   (default: 1000 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then counts=(1000 10000); else counts=("$@"); fi
cargo build --release --quiet
bin=target/release/sinew
out=$(mktemp -d)
echo "| characters | backend | frame ms (median / p90) | control | upload | compute | render | M joints/s | dispatches | bytes written / read per joint |"
echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"
for n in "${counts[@]}"; do
  for mode in "gpu" "gpu --resampled" "cpu" "cpu --resampled"; do
    # shellcheck disable=SC2086
    json=$("$bin" crowd --characters "$n" --frames 30 --backend $mode --out "$out/crowd.png" --json 2>/dev/null)
    python3 - "$json" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
s = r["stages_ms"]
read = "–" if r.get("bytes_read_per_joint") is None else f"{r['bytes_read_per_joint']:.1f}"
print(f"| {r['characters']} | {r['backend']} ({r['clips']}) | {r['frame_ms']['median']:.2f} / {r['frame_ms']['p90']:.2f} "
      f"| {s['control']:.3f} | {s['upload']:.3f} | {s['compute']:.2f} | {s['render']:.0f} "
      f"| {r['joints_per_second'] / 1e6:.1f} | {r['dispatches_per_frame']} "
      f"| {r['bytes_written_per_joint']:.1f} / {read} |")
PY
  done
done
echo
echo "adapter: $("$bin" crowd --characters 1 --frames 1 --out "$out/one.png" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["adapter"])')"
