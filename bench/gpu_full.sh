#!/usr/bin/env bash
# The GPU prover's device run, in one call (docs/gpu-prover.md):
#   1. build with CUDA (cmake, Release, -j16) into build-gpu/
#   2. the GPU test suite (ctest -L gpu) and the prover's host test
#   3. porep-32g at size S: compile its PCE, setup without matrices (keys
#      made on the GPU), `cuzk prove --backend gpu` (per-stage times, the
#      workspace's key upload in GB/s), export-vk + verify, then
#      `cuzk-bench prove --backend gpu --calibrate` (median of RUNS proofs on one
#      workspace, a witness each), optionally the CPU backend too.
#
#   bench/gpu_full.sh [S]      S = 20..27 or full (default 24); env:
#     OUT=dir          logs (default ./gpu_full_out)
#     WORK=dir         keys and proofs (default /tmp/cuzk_gpu_full; ~51 GB at full size)
#     RUNS=n           cuzk-bench runs (default 3; 0 skips the bench)
#     CPU=1            also prove on the CPU backend (full size: ~144 s)
#     SKIP_BUILD=1     use build-gpu/ as it is
#     SKIP_TESTS=1     skip step 2
#     TESTS=regex      only these GPU tests (default: all; test_gpu_prove is the prover's)
#     KEEP=1           keep the key and PCE in WORK for the next call
#     SHARED=1         also bench with the five MSMs on one shared scratch, and on
#                      two (--gpu-streams 2 and 3)
#     JOB10=1          the 10-partition job through `cuzk serve` (twice), its
#                      waterfall and SVG (WITNESS_WORKERS, default 2)
# Budget at full size on the H200 machine (16 cores): build ~3 min, tests
# ~1 min, compile 31 s, setup 89 s (31 s of it writing the key), key map +
# checks ~45 s, prove: see the log. Run the full size with SKIP_BUILD=1
# SKIP_TESTS=1 after a first call at 2^24 on the same (warm) machine.
set -u -o pipefail
S=${1:-24}
OUT=${OUT:-$PWD/gpu_full_out}
WORK=${WORK:-/tmp/cuzk_gpu_full}
RUNS=${RUNS:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build-gpu
mkdir -p "$OUT" "$WORK"
LOG=$OUT/gpu_full.log
say() { echo "== $(date +%T) $*" | tee -a "$LOG"; }
# run NAME CMD...: runs CMD with its output in $OUT/NAME.log (and the log's
# tail on the console), /usr/bin/time -v for wall and peak memory.
run() {
    local name=$1; shift
    say "$name: $*"
    local t0=$(date +%s.%N)
    if command -v /usr/bin/time >/dev/null; then
        /usr/bin/time -v "$@" >"$OUT/$name.log" 2>&1
    else
        "$@" >"$OUT/$name.log" 2>&1
    fi
    local rc=$?
    local t1=$(date +%s.%N)
    grep -v "^\s" "$OUT/$name.log" | tail -40
    grep -E "Maximum resident|Elapsed \(wall" "$OUT/$name.log" | sed 's/^\s*/   /'
    say "$name: exit $rc, $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"
    return $rc
}

say "gpu_full.sh size $S, out $OUT, work $WORK"
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv 2>&1 | tee -a "$LOG"
df -h "$WORK" | tee -a "$LOG"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    run configure cmake -S "$ROOT" -B "$B" -DCUZK_CUDA=ON -DCMAKE_BUILD_TYPE=Release || exit 1
    run build cmake --build "$B" -j16 || exit 1
fi
CUZK=$B/cuzk
BENCH=$B/cuzk-bench

if [ "${SKIP_TESTS:-0}" != 1 ]; then
    (cd "$B" && run ctest_gpu ctest -L gpu -R "${TESTS:-.}" --output-on-failure --timeout 400) ||
        say "GPU SUITE FAILED (see $OUT/ctest_gpu.log); going on with the benchmark"
    (cd "$B" && run ctest_host ctest -R 'test_witness_compact|test_prove$' --output-on-failure) ||
        say "HOST TESTS FAILED"
fi

SZ=()
[ "$S" != full ] && SZ=(--size "$S")
K=$WORK/porep_$S.cuzk
P=$WORK/porep_$S.pce
if [ ! -s "$P" ]; then run compile "$CUZK" compile --circuit porep-32g "${SZ[@]}" --out "$P" || exit 1; fi
if [ ! -s "$K" ]; then
    run setup "$CUZK" setup --circuit porep-32g "${SZ[@]}" --no-matrices --seed 11 --out "$K" ||
        exit 1
fi
ls -l "$K" "$P" | tee -a "$LOG"
# The key file's bytes are in the page cache after setup wrote them; drop
# them when we may, so that the load below reads the disk.
# What the disk gives (issue 13: the key load against it): the key read
# once with the cache dropped, then dropped again for the prover.
if sync && (echo 1 > /proc/sys/vm/drop_caches) 2>/dev/null; then
    run disk_read dd if="$K" of=/dev/null bs=64M
    grep -h "copied" "$OUT/disk_read.log" | sed 's/^/   disk read: /' | tee -a "$LOG"
fi
sync; (echo 1 > /proc/sys/vm/drop_caches) 2>/dev/null && say "page cache dropped" ||
    say "page cache not dropped (not root): the key load reads from memory"

run prove_gpu "$CUZK" prove --circuit porep-32g "${SZ[@]}" --key "$K" --pce "$P" --seed 5 \
    --backend gpu --proof "$WORK/proof.json" --public "$WORK/public.json"
GPU_RC=$?
run export_vk "$CUZK" export-vk --key "$K" --out "$WORK/vk.json"
if [ $GPU_RC = 0 ]; then
    run verify "$CUZK" verify --vk "$WORK/vk.json" --proof "$WORK/proof.json" \
        --public "$WORK/public.json" && say "GPU PROOF VALID" || say "GPU PROOF INVALID"
else
    say "GPU PROVE FAILED (see $OUT/prove_gpu.log)"
fi
if [ "$RUNS" -gt 0 ]; then
    # --calibrate: the stages' floor ratios at the product rate measured
    # on this card (docs/bench.md, "Stage floors").
    run bench_gpu "$BENCH" prove --backend gpu --key "$K" --pce "$P" --circuit porep-32g \
        "${SZ[@]}" --runs "$RUNS" --calibrate
fi
if [ "${SHARED:-0}" = 1 ] && [ "$RUNS" -gt 0 ]; then
    # The five MSMs on one shared scratch, in turn (what a 2^27 key needs),
    # then on two (H | the sparse MSMs, windows in batches), against the
    # default above.
    run bench_gpu_shared "$BENCH" prove --backend gpu --key "$K" --pce "$P" --circuit porep-32g \
        "${SZ[@]}" --runs "$RUNS" --gpu-streams 2
    run bench_gpu_two "$BENCH" prove --backend gpu --key "$K" --pce "$P" --circuit porep-32g \
        "${SZ[@]}" --runs "$RUNS" --gpu-streams 3
fi
if [ "${JOB10:-0}" = 1 ]; then
    # The 10-partition job through the daemon (engine: witness workers on
    # the CPU, one GPU prover, self-verification), witness to verified
    # proof; JOB10=1 runs it twice (the first loads the key) and saves the
    # timeline, its waterfall and SVG.
    D=$WORK/daemon
    mkdir -p "$D"
    cat >"$D/cuzk.conf" <<CONF
[engine]
backend = gpu
witness_workers = ${WITNESS_WORKERS:-2}
[circuit porep-32g]
builtin = porep-32g
size = ${S/full/0}
key = $K
pce = $P
preload = yes
CONF
    . "$ROOT/bench/serve_start.sh"
    serve_start "$CUZK" "$D" "$OUT/daemon.log" || say "DAEMON DID NOT START"
    A=unix:$D/cuzk.sock
    run job10_first "$BENCH" single porep-32g --addr "$A" --seed 3 --timeout ${JOB10_TIMEOUT:-5m}
    run job10 "$BENCH" single porep-32g --addr "$A" --seed 4 --timeout ${JOB10_TIMEOUT:-5m}
    run waterfall "$BENCH" waterfall --addr "$A" --save "$OUT/timeline.json" \
        --svg "$OUT/job10.svg" --width 120
    kill -TERM $DPID; wait $DPID; say "daemon exit $?"
fi
if [ "${CPU:-0}" = 1 ]; then
    run prove_cpu "$CUZK" prove --circuit porep-32g "${SZ[@]}" --key "$K" --pce "$P" --seed 5 \
        --backend cpu --proof "$WORK/proof_cpu.json" --public "$WORK/public_cpu.json"
fi
nvidia-smi --query-gpu=name,memory.used --format=csv 2>&1 | tee -a "$LOG"
[ "${KEEP:-0}" = 1 ] || rm -f "$K" "$P"
say "done"
exit $GPU_RC
