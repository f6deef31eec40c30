#!/usr/bin/env bash
# Measures ACL 2.1 on glTF clips side by side with `sinew bake --compress`: converts each .glb to
# ACL's raw clip format (0.01 cm at 3 cm, ACL's CMU setup), compresses it with ACL's default
# settings and prints raw size, compressed size, ratio and ACL's measured error.
#
#   ACL=path/to/acl RTM=path/to/rtm SJSON=path/to/sjson-cpp tools/acl_compare/run.sh CLIP.glb...
#
# ACL, RTM and SJSON are checkouts of nfrechette/acl v2.1.0 and the rtm and sjson-cpp commits it
# pins as submodules (header-only; g++ builds the measuring program directly).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-target/acl_compare}"
mkdir -p "$out"
g++ -O2 -std=c++17 -DNDEBUG -DACL_USE_SJSON -DACL_ON_ASSERT_ABORT -DRTM_ON_ASSERT_ABORT \
  -DSJSON_CPP_ON_ASSERT_ABORT -I"$ACL/includes" -I"$RTM/includes" -I"$SJSON/includes" \
  "$here/acl_measure.cpp" -o "$out/acl_measure"
for glb in "$@"; do
  name="$(basename "$glb" .glb)"
  python3 "$here/glb2acl.py" "$glb" "$out/$name.acl.sjson" --units cm
  echo "== $name"
  "$out/acl_measure" "$out/$name.acl.sjson" --pp=lossless
done
