# Sourced by the script tests that count their failures instead of stopping
# at the first (test_waterfall.sh, test_bench_prove.sh): ok, bad and check,
# with the failures in NFAIL (the script exits non-zero when it is not 0).
NFAIL=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; NFAIL=$((NFAIL + 1)); }
check() { # what, command...
    what=$1
    shift
    if "$@"; then ok "$what"; else bad "$what"; fi
}
