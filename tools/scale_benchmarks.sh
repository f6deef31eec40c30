#!/usr/bin/env bash
# The CPU side of the GPU backend at scale: runs `sinew crowd --backend gpu --json` at several
# character counts, side by side in one run, and prints a Markdown table for
# docs/BENCHMARKS.md: CPU ms per frame (control + upload), bytes of instance state uploaded per
# frame and per character, evaluation ms (GPU timestamps).
# Usage: tools/scale_benchmarks.sh MODEL FRAMES COUNTS...
#   e.g. tools/scale_benchmarks.sh ../shared/gltf/Fox.glb 5 10000 100000 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
model="$1"
frames="$2"
shift 2
cargo build --release --quiet
bin=target/release/sinew
out=$(mktemp -d)
echo "| characters | CPU ms per frame (control + upload) | CPU ns per character | bytes uploaded per frame | per character | evaluation ms (GPU timestamps) | dispatches |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in "$@"; do
  json=$("$bin" crowd --model "$model" --characters "$n" --frames "$frames" --backend gpu \
    --out "$out/crowd.png" --json 2>/dev/null)
  python3 - "$json" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
s = r["stages_ms"]
n = r["characters"]
cpu = s["control"] + s["upload"]
b = r["bytes_uploaded_per_character"]
print(f"| {n:,} | {cpu:.3f} | {cpu * 1e6 / n:.1f} | {b * n:,.0f} | {b:.2f} "
      f"| {s['compute']:.1f} | {r['dispatches_per_frame']} |")
PY
done
echo
echo "adapter: $("$bin" crowd --characters 1 --frames 1 --out "$out/one.png" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["adapter"])')"
