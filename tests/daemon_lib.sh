# Sourced by the tests that drive a real daemon (test_daemon.sh,
# test_daemon_load.sh, test_dashboard.sh, test_bench_client.sh,
# test_waterfall_live.sh), after they set CUZK and W (the work dir, made
# afresh here): the daemon's dir D, its socket SOCK, PID and NFAIL; the
# cleanup trap (kill -9 of the daemon), die (the failure and the logs'
# tails), check, api over the unix socket (body in $W/body, status in
# $CODE), body and field (of $W/body), verify and daemon_start. Skips (exit 77)
# without curl.
command -v curl >/dev/null || { echo "skipped: curl is missing"; exit 77; }
rm -rf "$W"
mkdir -p "$W/d"
W=$(cd "$W" && pwd)
D=$W/d
SOCK=$D/cuzk.sock
PID=
NFAIL=0
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
body() { cat "$W/body"; }
# A JSON field of the (compact, flat-enough) body: a number or a string.
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" "$W/body" | head -1; }
# verify JOB CIRCUIT: the job's proof and public inputs against the
# circuit's vk (all fetched from the daemon), by cuzk verify.
verify() {
    api GET "/v1/jobs/$1/proof"
    [ "$CODE" = 200 ] || return 1
    cp "$W/body" "$W/proof.json"
    api GET "/v1/jobs/$1/public"
    [ "$CODE" = 200 ] || return 1
    cp "$W/body" "$W/public.json"
    api GET "/v1/circuits/$2/vk"
    [ "$CODE" = 200 ] || return 1
    cp "$W/body" "$W/vk.json"
    "$CUZK" verify --vk "$W/vk.json" --proof "$W/proof.json" --public "$W/public.json" >/dev/null
}
# daemon_start: `cuzk serve` with $D/cuzk.conf in $D (output in $D/log),
# its pid in PID, waited for until it answers GET /v1/status on the socket.
daemon_start() {
    "$CUZK" serve --config "$D/cuzk.conf" --dir "$D" >>"$D/log" 2>&1 &
    PID=$!
    local i
    for i in $(seq 1 1200); do # 120 s: the keys' setup on a busy machine
        kill -0 "$PID" 2>/dev/null || die "the daemon exited at start"
        if [ -S "$SOCK" ] && curl -s -o /dev/null --max-time 5 --unix-socket "$SOCK" http://cuzk/v1/status; then
            return
        fi
        sleep 0.1
    done
    die "the daemon did not answer within 120 s"
}
