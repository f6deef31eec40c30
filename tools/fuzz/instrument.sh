#!/usr/bin/env bash
# A rustc wrapper (RUSTC_WRAPPER) that compiles the crates worth fuzzing with libFuzzer's
# coverage instrumentation, using stable codegen flags (LLVM's SanitizerCoverage pass: 8-bit
# edge counters, a PC table and comparison tracing). Every other crate (wgpu and co.) builds
# as usual. FUZZ_INSTRUMENT overrides the list of crate names.
set -euo pipefail
rustc="$1"
shift
crate=""
previous=""
for arg in "$@"; do
  if [ "$previous" = "--crate-name" ]; then
    crate="$arg"
    break
  fi
  previous="$arg"
done
case " ${FUZZ_INSTRUMENT:-sinew sinew_fuzz import_gltf load_sinew gltf gltf_json} " in
  *" $crate "*)
    exec "$rustc" "$@" \
      -Cpasses=sancov-module \
      -Cllvm-args=-sanitizer-coverage-level=4 \
      -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
      -Cllvm-args=-sanitizer-coverage-pc-table \
      -Cllvm-args=-sanitizer-coverage-trace-compares \
      --cfg fuzzing
    ;;
esac
exec "$rustc" "$@"
