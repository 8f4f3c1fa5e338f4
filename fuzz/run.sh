#!/bin/sh
# Builds the libFuzzer targets (src/formats, the daemon's request and config
# parsers, cuzk-bench waterfall's timeline reader)
# and runs each one.
#   sh fuzz/run.sh [seconds per target, default 60] [targets...]
# Build and corpora go to $FUZZ_DIR (default build-fuzz/ in the repo root,
# which git ignores); crashes to $FUZZ_DIR/artifacts/. Needs clang with the
# libFuzzer runtime (Debian: clang-14 + libclang-rt-14-dev) and libjansson-dev.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=${1:-60}
[ $# -gt 0 ] && shift
TARGETS=${*:-"r1cs wtns zkey params proof json pce key inputs request config timeline"}
B=${FUZZ_DIR:-$ROOT/build-fuzz}
CC=${CC:-clang}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
CFLAGS="-std=gnu11 -g -O2 -fno-omit-frame-pointer $SAN -I$ROOT/include -I$ROOT/src"
mkdir -p "$B/obj" "$B/artifacts"

# The library, instrumented for coverage (fuzzer-no-link), built once.
objs=""
for f in "$ROOT"/src/common/*.c "$ROOT"/src/ff/*.c "$ROOT"/src/ec/*.c \
         "$ROOT"/src/pairing/*.c "$ROOT"/src/formats/*.c "$ROOT"/src/r1cs/*.c \
         "$ROOT"/src/poly/*.c "$ROOT"/src/msm/*.c "$ROOT"/src/groth16/*.c \
         "$ROOT"/src/gadgets/*.c "$ROOT"/src/circuits/*.c "$ROOT"/src/prove/*.c; do
    o="$B/obj/$(basename "$(dirname "$f")")_$(basename "$f" .c).o"
    if [ ! -f "$o" ] || [ "$f" -nt "$o" ]; then
        $CC $CFLAGS -fsanitize=fuzzer-no-link -c "$f" -o "$o"
    fi
    objs="$objs $o"
done

seed() { # target, files...
    d="$B/corpus/$1"; shift
    mkdir -p "$d"
    for f in "$@"; do cp "$ROOT/tests/data/$f" "$d/"; done
}
seed r1cs mul.r1cs mul_bn254.r1cs
seed wtns mul.wtns mul_bn254.wtns
seed zkey mul.zkey mul_bn254.zkey
seed params mul.params
head -c 1156 "$ROOT/tests/data/mul.params" > "$B/corpus/params/mul.vk"
seed proof mul.proof
seed json vk.json proof.json public.json
seed pce # no files: the target builds valid images itself
seed key # likewise (odd first byte: an insecure key made by setup)
seed inputs # first byte: the circuit (0 porep, 1 winning, 2 wpost, 3 snap), then JSON
seed request # first line: the query string; the rest: the body
seed timeline # recorded timelines, JSON and log lines
seed config # the sample config, and small ones
cp "$ROOT/examples/cuzk.conf" "$B/corpus/config/"
printf '[engine]\ngpu_ntt_full_twiddles = 5\ndevices = 2\n[circuit a]\nbuiltin = porep-32g\nsize = 12\n' \
    > "$B/corpus/config/small.conf"
cp "$ROOT"/tests/data/timeline/hand.log "$ROOT"/tests/data/timeline/iso.json "$B/corpus/timeline/"
printf '\n{"circuit": "porep-32g", "priority": "high", "request_id": "r1", "seed": 7}' \
    > "$B/corpus/request/seed.txt"
printf '\n{"circuit": "c", "inputs": [{"seed": 1, "partition": 0}]}' > "$B/corpus/request/inputs.txt"
printf '\n{"circuit": "c", "wtns_path": "/tmp/w.wtns"}' > "$B/corpus/request/path.txt"
{ printf 'circuit=mul&priority=low&request_id=x\n'; cat "$ROOT/tests/data/mul.wtns"; } \
    > "$B/corpus/request/wtns.bin"
for i in 0 1 2 3; do
    printf "\\00$i"'{"seed": 7, "partition": 0}' > "$B/corpus/inputs/p$i.json"
done

for t in $TARGETS; do
    extra="" # the request parser is the one file of src/server it needs
    [ "$t" = request ] && extra="$ROOT/src/server/request.c"
    # the config parser, and the engine whose rules it applies
    [ "$t" = config ] && extra="$ROOT/src/server/config.c $ROOT/src/engine/engine.c \
        $ROOT/src/engine/report.c $ROOT/src/store/store.c"
    # cuzk-bench waterfall with its reader, and the HTTP client it links
    [ "$t" = timeline ] && extra="$ROOT/bench/waterfall.c $ROOT/bench/wf_input.c \
        $ROOT/bench/http.c -lcurl"
    $CC $CFLAGS -fsanitize=fuzzer "$ROOT/fuzz/fuzz_$t.c" $extra $objs -ljansson -lpthread \
        -o "$B/fuzz_$t"
    dict=""
    [ -f "$ROOT/fuzz/$t.dict" ] && dict="-dict=$ROOT/fuzz/$t.dict"
    # the waterfall's messages (one per bad input) off; libFuzzer keeps its own
    [ "$t" = timeline ] && dict="$dict -close_fd_mask=2"
    echo "== fuzz_$t: $T s"
    "$B/fuzz_$t" -max_total_time="$T" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
        -print_final_stats=1 -artifact_prefix="$B/artifacts/$t-" $dict "$B/corpus/$t"
done
