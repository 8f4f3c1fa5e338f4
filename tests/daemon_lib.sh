# Sourced by the tests that drive a real daemon (test_daemon.sh,
# test_dashboard.sh, test_bench_client.sh, test_waterfall_live.sh), after
# they set W (work dir), D (daemon dir), SOCK and PID: the cleanup trap
# (kill -9 of the daemon), die (the failure and the logs' tails), check,
# and api over the unix socket (body in $W/body, status in $CODE).
cleanup() { [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; wait 2>/dev/null; }
trap cleanup EXIT
die() {
    echo "FAIL: $*"
    for f in "$W/out" "$W/err" "$D/log" "$D/log.timeline"; do
        [ -s "$f" ] && { echo "--- $f (last 20 lines):"; tail -20 "$f"; }
    done
    exit 1
}
check() { # what, condition...
    local what=$1
    shift
    if "$@"; then echo "ok: $what"; else die "$what"; fi
}
# api METHOD PATH [curl args...]
api() {
    local m=$1 p=$2
    shift 2
    CODE=$(curl -s -o "$W/body" -w '%{http_code}' --max-time 120 --unix-socket "$SOCK" \
        -X "$m" "$@" "http://cuzk$p")
}
