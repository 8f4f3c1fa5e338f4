#!/usr/bin/env bash
# A benchmark build that differs from build-gpu in some GPU units' defines:
# compiles src/gpu/UNIT.cu (UNIT may list several, comma-separated) with the
# extra flags, puts them into a copy of libcuzk_gpu.a and links cuzk-bench
# against that copy. For A/B rows on the device (bench/device_ntt_ab.sh,
# bench/device_msm_ab.sh) without a second configured build tree.
#   bench/build_variant.sh NAME UNIT [NVCC FLAGS...]
#   e.g. bench/build_variant.sh p0one ntt -DCUZK_FR_P0ONE_STEPS
#        bench/build_variant.sh two msm_g1,msm_g2 -DMSM_AFF_FUSED=0
# Output: build-var/NAME/cuzk-bench (and the tests named in TESTS). build-gpu
# must be built first.
set -eu -o pipefail
NAME=$1 UNIT=$2
shift 2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build-gpu
V=$ROOT/build-var/$NAME
[ -f "$B/src/gpu/libcuzk_gpu.a" ] || { echo "build_variant: build build-gpu first" >&2; exit 1; }
IFS=, read -r -a UNITS <<<"$UNIT"
for u in "${UNITS[@]}"; do
    [ -f "$ROOT/src/gpu/$u.cu" ] || { echo "build_variant: no src/gpu/$u.cu" >&2; exit 1; }
done
mkdir -p "$V"
# The units' flags exactly as CMake compiles them, plus the extra ones.
FLAGS=$(sed -n 's/^CUDA_FLAGS = //p' "$B/src/gpu/CMakeFiles/cuzk_gpu.dir/flags.make")
cp "$B/src/gpu/libcuzk_gpu.a" "$V/libcuzk_gpu.a"
for u in "${UNITS[@]}"; do
    # shellcheck disable=SC2086 # FLAGS are words
    (cd "$B/src/gpu" && nvcc -forward-unknown-to-host-compiler \
        --options-file CMakeFiles/cuzk_gpu.dir/includes_CUDA.rsp $FLAGS "$@" \
        -x cu -c "$ROOT/src/gpu/$u.cu" -o "$V/$u.cu.o")
    ar r "$V/libcuzk_gpu.a" "$V/$u.cu.o"
done
# cuzk-bench's link line with the library copy in place of build-gpu's.
sed "s#src/gpu/libcuzk_gpu.a#$V/libcuzk_gpu.a#" "$B/CMakeFiles/cuzk-bench.dir/linkLibs.rsp" \
    >"$V/linkLibs.rsp"
(cd "$B" && g++ @CMakeFiles/cuzk-bench.dir/objects1 -o "$V/cuzk-bench" @"$V/linkLibs.rsp" \
    -L/usr/local/cuda/targets/x86_64-linux/lib/stubs -L/usr/local/cuda/targets/x86_64-linux/lib)
# TESTS="test_gpu_ntt ...": those GPU tests linked against the copy too.
for t in ${TESTS:-}; do
    T=$B/src/gpu/CMakeFiles/$t.dir
    [ -f "$T/linkLibs.rsp" ] || { echo "build_variant: no test $t in build-gpu" >&2; exit 1; }
    sed "s#^ *libcuzk_gpu.a# $V/libcuzk_gpu.a#" "$T/linkLibs.rsp" >"$V/$t.rsp"
    (cd "$B/src/gpu" && g++ @"CMakeFiles/$t.dir/objects1" -o "$V/$t" @"$V/$t.rsp" \
        -L/usr/local/cuda/targets/x86_64-linux/lib/stubs -L/usr/local/cuda/targets/x86_64-linux/lib)
done
echo "build_variant: $V/cuzk-bench ${TESTS:+and $TESTS }($UNIT.cu $*)"
