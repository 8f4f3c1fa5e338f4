#!/bin/sh
# cuzk-bench prove on the tiny snarkjs key of tests/data (mul.zkey, 7
# variables, domain 2^3), CPU backend:
#   sh tests/test_bench_prove.sh CUZK_BENCH DATA_DIR WORK_DIR
# - the table keeps its first lines (what scripts read) and gains the
#   bytes, GB/s and floor columns;
# - --json parses, lists every stage with bytes and GB/s, no floors and no
#   model on the CPU without --model; with --model h200 every modelled stage
#   has a floor and its ratio (median / floor), the host stages none, and
#   the sums add up (a stage = its parts, the total = its stages);
# - the floor of MSM A at round rates equals the value worked by hand
#   below;
# - bad options exit 2 with a message naming the option; an optional
#   value (--gpu-ntt-full-tw) is taken or left.
# Needs python3 (exit 77 = skipped without it).
set -u
BENCH=$1
DATA=$2
W=$3
command -v python3 >/dev/null || { echo "skipped: python3 is missing"; exit 77; }
rm -rf "$W"
mkdir -p "$W"
. "$(dirname "$0")/check_lib.sh"
K="--zkey $DATA/mul.zkey --wtns $DATA/mul.wtns --backend cpu --runs 3 --threads 1"
# py FILE EXPR: python3 evaluates EXPR with j = FILE's JSON and s = its
# stages by key; true if truthy.
py() {
    python3 -c "
import json, sys
j = json.load(open('$1'))
s = {x['stage']: x for x in j['stages']}
sys.exit(0 if ($2) else 1)"
}

# ------------------------------------------------------------- the text --
"$BENCH" prove $K >"$W/text" 2>"$W/err"
check "text: exit 0" [ $? = 0 ]
check "text: first line" grep -q "mul.zkey: 7 variables, 2 public, domain 2^3, 3 runs, backend cpu$" "$W/text"
check "text: key load line" sh -c "sed -n 2p '$W/text' | grep -q '^key load .* ms; workspace .* GB held$'"
check "text: the columns" grep -q "^stage  *median ms  *min ms  *max ms  *GB  *GB/s  *floor ms  *x floor$" "$W/text"
check "text: the total" grep -q "^prover total " "$W/text"
check "text: no model on the CPU" grep -q "^floors: no model on the cpu backend" "$W/text"

# -------------------------------------------------------- JSON, no model --
"$BENCH" prove $K --json >"$W/none.json" 2>"$W/err"
check "json: exit 0" [ $? = 0 ]
STAGES="['witness','abc','h','msm_a','msm_b2','msm_c','assemble','verify','total','msm_sum']"
MODELLED="['abc','h','msm_a','msm_b2','msm_c','total','msm_sum']"
check "json: parses, every stage" py "$W/none.json" "sorted(s) == sorted($STAGES) and j['backend'] == 'cpu' and j['runs'] == 3"
check "json: bytes and GB/s of each modelled stage" py "$W/none.json" \
    "all(s[k]['bytes'] > 0 and (s[k]['gb_per_s'] > 0 if s[k]['median_ms'] > 0 else s[k]['gb_per_s'] is None) for k in $MODELLED)"
check "json: host stages have no bytes" py "$W/none.json" \
    "all(s[k]['bytes'] is None and s[k]['floor_ms'] is None for k in ['witness','assemble','verify'])"
check "json: no model, no floors on the CPU" py "$W/none.json" \
    "j['model'] is None and all(x['floor_ms'] is None and x['floor_ratio'] is None for x in j['stages'])"
check "json: witness counts cover the key" py "$W/none.json" \
    "j['witness']['counted'] and sum(j['witness']['all'].values()) == j['key']['n_vars'] == 7 and sum(j['witness']['b'].values()) == j['key']['n_b']"
check "json: the CPU uploads nothing" py "$W/none.json" "[p['name'] for p in s['abc']['parts']] == ['SpMV']"

# ------------------------------------------------------ JSON, h200 model --
"$BENCH" prove $K --json --model h200 >"$W/h200.json" 2>"$W/err"
check "json h200: exit 0" [ $? = 0 ]
check "json h200: the model and its sources" py "$W/h200.json" \
    "j['model']['name'] == 'h200' and j['model']['hbm_bytes_per_s'] == 4.25e12 and 'DESIGN.md' in j['model']['hbm_source']"
check "json h200: floor and ratio of each modelled stage" py "$W/h200.json" \
    "all(s[k]['floor_ms'] > 0 and abs(s[k]['floor_ratio'] - s[k]['median_ms'] / s[k]['floor_ms']) <= 1e-6 * s[k]['floor_ratio'] for k in $MODELLED)"
check "json h200: host stages have no floor" py "$W/h200.json" \
    "all(s[k]['floor_ms'] is None and s[k]['floor_ratio'] is None for k in ['witness','assemble','verify'])"
check "json h200: a stage's bytes and floor are its parts'" py "$W/h200.json" \
    "all(abs(s[k]['bytes'] - sum(p['bytes'] for p in s[k]['parts'])) < 1e-9 and abs(s[k]['floor_ms'] - sum(p['floor_ms'] for p in s[k]['parts'])) <= 1e-6 * s[k]['floor_ms'] for k in ['abc','h','msm_a','msm_b2','msm_c'])"
check "json h200: the total's bytes and floor are its stages'" py "$W/h200.json" \
    "all(abs(s['total'][f] - sum(s[k][f] for k in ['abc','h','msm_a','msm_b2','msm_c'])) <= 1e-6 * s['total'][f] for f in ['bytes','floor_ms'])"
check "json h200: MSM C is L, H and B1" py "$W/h200.json" "[p['name'] for p in s['msm_c']['parts']] == ['L','H','B1']"

# ---------------------------------------------------- by hand, round rates --
# mul.wtns over A's 7 variables: 0 zeros, 1 one, 6 other. MSM A (G1), at
# c = 8 (32 windows; c = 9 gives 29 * 6 * 1734 + 512 * 4068 = 2,384,892):
# 32 * 6 * 1734 + 2^8 * 4068 + 1 * 1734 = 332,928 + 1,041,408 + 1,734 =
# 1,376,070 products, at 1 T/s 1.37607e-3 ms; bytes (32 * 6 + 1) * 96 +
# 6 * 32 = 18,720, at 1000 GB/s 1.872e-5 ms: the floor is 1.37607e-3 ms.
"$BENCH" prove $K --json --product-rate 1 --hbm 1000 --h2d 10 >"$W/round.json" 2>"$W/err"
check "json round rates: exit 0" [ $? = 0 ]
check "json round rates: overrides named" py "$W/round.json" \
    "j['model']['product_rate'] == 1e12 and j['model']['product_rate_source'] == '--product-rate' and j['model']['h2d_bytes_per_s'] == 1e10"
check "json round rates: MSM A by hand" py "$W/round.json" \
    "j['witness']['all'] == {'zeros': 0, 'ones': 1, 'other': 6} and s['msm_a']['bytes'] == 18720 and abs(s['msm_a']['floor_ms'] - 1.37607e-3) < 1e-12 and s['msm_a']['parts'][0]['window'] == 8"

# ------------------------------------------------------------ bad input --
bad_opt() { # what, expected message, options...
    what=$1
    msg=$2
    shift 2
    "$BENCH" prove $K "$@" >"$W/out" 2>"$W/err"
    rc=$?
    if [ $rc = 2 ] && grep -q -- "$msg" "$W/err"; then ok "$what"
    else bad "$what (exit $rc: $(cat "$W/err"))"; fi
}
bad_opt "--model unknown" "--model expects h200 or none, not 'a100'" --model a100
bad_opt "--product-rate negative" "--product-rate expects a positive number, not '-1'" --product-rate -1
bad_opt "--hbm not a number" "--hbm expects a positive number, not '4TB'" --hbm 4TB
bad_opt "--h2d zero" "--h2d expects a positive number, not '0'" --h2d 0
bad_opt "--model none with a rate" "--model none takes no" --model none --hbm 100
bad_opt "--gpu-ntt-fp64 out of range" "--gpu-ntt-fp64 expects 0..4, not '5'" --gpu-ntt-fp64 5
bad_opt "--gpu-msm-fp64 not a number" "--gpu-msm-fp64 expects 0..4, not 'x2'" --gpu-msm-fp64 x2
bad_opt "--gpu-ntt-full-tw out of range" "--gpu-ntt-full-tw expects 0, 1 (full table) or 2 (positional table), plus 4 for the coset table, plus 8 for Shoup pairs (with 1), not '3'" --gpu-ntt-full-tw 3
bad_opt "--gpu-ntt-full-tw 7" "plus 8 for Shoup pairs (with 1), not '7'" --gpu-ntt-full-tw 7
bad_opt "--gpu-ntt-full-tw 12 (pairs without the full table)" "(with 1), not '12'" --gpu-ntt-full-tw 12
bad_opt "--gpu-ntt-full-tw 16" "(with 1), not '16'" --gpu-ntt-full-tw 16
bad_opt "--gpu-pool not a number" "--gpu-pool expects GB (10^9 bytes) above 0, not 'x'" --gpu-pool x
bad_opt "--gpu-pool 0" "--gpu-pool expects GB (10^9 bytes) above 0, not '0'" --gpu-pool 0
# --gpu-ntt-full-tw's value is optional (the CPU backend ignores the mode)
"$BENCH" prove --gpu-ntt-full-tw $K >"$W/out" 2>"$W/err"
check "--gpu-ntt-full-tw before an option: exit 0" [ $? = 0 ]
"$BENCH" prove $K --gpu-ntt-full-tw 2 >"$W/out" 2>"$W/err"
check "--gpu-ntt-full-tw 2: exit 0" [ $? = 0 ]
"$BENCH" prove $K --gpu-ntt-full-tw 5 >"$W/out" 2>"$W/err"
check "--gpu-ntt-full-tw 5: exit 0" [ $? = 0 ]
"$BENCH" prove $K --gpu-ntt-full-tw 13 >"$W/out" 2>"$W/err"
check "--gpu-ntt-full-tw 13: exit 0" [ $? = 0 ]

[ $NFAIL = 0 ] && echo "bench_prove: all passed" || echo "bench_prove: $NFAIL failed"
[ $NFAIL = 0 ]
