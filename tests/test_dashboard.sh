#!/bin/bash
# The daemon's dashboard (GET /) in a real browser:
#   bash tests/test_dashboard.sh CUZK WORK_DIR
# Starts `cuzk serve` on a unix socket and on TCP with a token (CPU backend,
# built-in circuits at size 10, two simulated devices), submits a batch
# through the API with curl, and while it runs loads the page in headless
# Chromium over TCP with the token in the URL fragment: the rendered DOM
# must show every lane (a prover lane busy with a job), the queues by
# priority, the waterfall and the submitted jobs. Without the token, or
# with a wrong one, the page must show the authentication message and no
# data. Saves a screenshot (its path is printed). Needs curl and chromium
# (Debian's package); exit 77 (skipped) without them. Every wait is on a
# condition with a deadline.
set -u
CUZK=$1
W=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
    { echo "skipped: no chromium"; exit 77; }
. "$(dirname "$0")/daemon_lib.sh"
# tcp METHOD PATH [curl args...] over TCP with the token.
tcp() {
    local m=$1 p=$2
    shift 2
    CODE=$(curl -s -o "$W/body" -w '%{http_code}' --max-time 120 \
        -H "Authorization: Bearer $TOKEN" -X "$m" "$@" "http://$TCP$p")
}

# browse OUT URL [chromium args...]: the page after ~4 s of its (virtual)
# time, i.e. after several of its 1 s updates. A fresh profile each time:
# nothing (sessionStorage included) carries over between loads.
browse() {
    local out=$1 url=$2
    shift 2
    local prof
    prof=$(mktemp -d "$W/profile.XXXXXX")
    timeout -k 5 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --hide-scrollbars --user-data-dir="$prof" \
        --virtual-time-budget=4000 "$@" "$url" >"$out" 2>>"$W/chromium.log"
    local rc=$?
    rm -rf "$prof"
    return $rc
}

# ------------------------------------------------------------- daemon --
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$D/token"
TOKEN=$(cat "$D/token")
cat >"$D/cuzk.conf" <<EOF
[server]
tcp = 127.0.0.1:0
token_file = token
log = log
[engine]
devices = 2
witness_workers = 1
max_batch_size = 1
[circuit porep-32g]
builtin = porep-32g
size = 10
setup_seed = 11
[circuit winning-32g]
builtin = winning-32g
size = 10
setup_seed = 12
EOF
daemon_start
api GET /v1/status
check "the daemon answers on its unix socket" [ "$CODE" = 200 ]
TCP=$(sed -n 's/.*"tcp":"\([^"]*\)".*/\1/p' "$W/body")
check "status names the TCP address" [ -n "$TCP" ]
check "status lists the lanes (1 witness + 1 for critical jobs + 2 prover workers)" \
    [ "$(grep -o '"kind":"\(witness\|prover\)"' "$W/body" | wc -l)" = 4 ]
check "  ... the critical jobs' witness worker marked" \
    [ "$(grep -o '"critical":true' "$W/body" | wc -l)" = 1 ]
check "status has the queues by priority" grep -q '"by_priority":{"critical":{' "$W/body"

# --------------------------------------------------------- the page --
api GET /
check "GET / on the unix socket: 200" [ "$CODE" = 200 ]
check "  ... the embedded page, byte for byte" cmp -s "$W/body" "$SRC/src/server/dashboard.html"
curl -s -D "$W/headers" -o "$W/page" --max-time 10 "http://$TCP/"
check "GET / on TCP without the token: 200 (the page holds no data)" \
    grep -q '^HTTP/1.1 200' "$W/headers"
check "  ... the same page" cmp -s "$W/page" "$SRC/src/server/dashboard.html"
check "  ... as text/html; charset=utf-8" grep -qi '^content-type: text/html; charset=utf-8' "$W/headers"
check "  ... with a policy that allows this origin only" \
    grep -qi "^content-security-policy: default-src 'none';.*connect-src 'self'" "$W/headers"
check "  ... and no referrer" grep -qi '^referrer-policy: no-referrer' "$W/headers"
check "the page loads nothing from elsewhere (no src=, href=, @import, url())" \
    sh -c "! grep -Eq 'src=|href=|@import|url\\(' '$W/page'"
CODE=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://$TCP/v1/status")
check "the API on TCP without the token: still 401" [ "$CODE" = 401 ]
CODE=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST "http://$TCP/")
check "POST / on TCP without the token: 401" [ "$CODE" = 401 ]
api POST /index.html
check "POST /index.html: 405" [ "$CODE" = 405 ]

# ---------------------------------------------------------- a batch --
# Three 10-partition jobs (normal) keep the provers busy; four 1-partition
# jobs of high priority overtake them and finish; one low one waits.
JP=""
for i in 1 2 3; do
    tcp POST /v1/jobs -d "{\"circuit\": \"porep-32g\", \"seed\": $i}"
    [ "$CODE" = 202 ] || die "submit porep $i over TCP: $CODE $(cat "$W/body")"
    JP="$JP $(field id)"
done
J1=$(echo $JP | cut -d' ' -f1)
JH=""
for i in 1 2 3 4; do
    api POST /v1/jobs -d "{\"circuit\": \"winning-32g\", \"seed\": $i, \"priority\": \"high\"}"
    [ "$CODE" = 202 ] || die "submit winning $i: $CODE $(cat "$W/body")"
    JH="$JH $(field id)"
done
api POST /v1/jobs -d '{"circuit": "winning-32g", "seed": 9, "priority": "low"}'
JL=$(field id)
JH_LAST=$(echo $JH | awk '{print $NF}')
api GET "/v1/jobs/$JH_LAST?wait=120"
check "the last high-priority job (job $JH_LAST) is done" [ "$(field state)" = done ]
for i in $(seq 1 600); do # a prover lane holds a partition
    api GET /v1/status
    grep -q '"kind":"prover","device":[0-9]*,"slot":[0-9]*,"job":' "$W/body" && break
    sleep 0.1
done
check "a prover lane is busy (status)" \
    grep -q '"kind":"prover","device":[0-9]*,"slot":[0-9]*,"job":' "$W/body"

# ------------------------------------------------- in the browser --
browse "$W/dom.html" "http://$TCP/#token=$TOKEN" --dump-dom
check "chromium rendered the page (token in the fragment)" grep -q 'data-ready="1"' "$W/dom.html"
check "  ... no authentication message" grep -q '<section id="auth" hidden' "$W/dom.html"
for l in witness-0 witness-1 prover-0-0 prover-1-0; do
    check "  ... lane $l" grep -q "data-lane=\"$l\"" "$W/dom.html"
done
check "  ... a prover lane busy with a job and a stage" \
    grep -Eq 'data-lane="prover-[0-9]+-[0-9]+" data-kind="prover" data-job="[0-9]+"><div class="name">[^<]*</div><div class="what">.*data-stage="' "$W/dom.html"
for p in critical high normal low; do
    check "  ... the $p queue" grep -q "id=\"queue-$p\"" "$W/dom.html"
done
check "  ... the low job $JL waiting in its queue" \
    grep -Eq "id=\"queue-low\".*data-job=\"$JL\"" "$W/dom.html"
check "  ... the first submitted job ($J1) in the jobs table" \
    grep -q "id=\"job-$J1\" data-job=\"$J1\"" "$W/dom.html"
for j in $JH; do
    check "  ... job $j done in the jobs table" \
        grep -q "id=\"job-$j\" data-job=\"$j\" data-state=\"done\"" "$W/dom.html"
done
check "  ... the keys with their tiers" grep -Eq 'data-circuit="porep-32g" data-tier="(resident|pinned)"' "$W/dom.html"
check "  ... and the backend their workspaces are on" grep -q 'data-backend="cpu">0, 1 (cpu)<\|data-backend="cpu">[01] (cpu)<' "$W/dom.html"
check "  ... the waterfall, with a row of job $J1" \
    grep -Eq "id=\"waterfall-svg\".*data-job=\"$J1\" data-partition=\"0\"" "$W/dom.html"
check "  ... the throughput and latency" grep -q 'id="rate-stats"' "$W/dom.html"

SHOT=$W/dashboard.png
browse /dev/null "http://$TCP/#token=$TOKEN" --window-size=1400,1000 --screenshot="$SHOT"
check "the screenshot is a PNG" sh -c "head -c 8 '$SHOT' | od -An -c | grep -q 'P   N   G'"
echo "screenshot: $SHOT ($(wc -c <"$SHOT") bytes)"

browse "$W/noauth.html" "http://$TCP/" --dump-dom
check "without the token: the authentication message" \
    grep -zq '<section id="auth">.*This daemon requires a bearer token' "$W/noauth.html"
check "  ... saying the daemon answered 401" grep -q 'answered HTTP 401: no token given' "$W/noauth.html"
check "  ... and no data (no lane, no job)" \
    sh -c "! grep -Eq 'data-lane=\"|data-job=\"' '$W/noauth.html'"
browse "$W/badauth.html" "http://$TCP/#token=x$TOKEN" --dump-dom
check "with a wrong token: the token was refused" \
    grep -q 'The daemon refused the token (HTTP 401)' "$W/badauth.html"
check "  ... and no data" sh -c "! grep -Eq 'data-lane=\"|data-job=\"' '$W/badauth.html'"
check "the token never reached the daemon's log" sh -c "! grep -q '$TOKEN' '$D/log'"

# ------------------------------------------------------------- stop --
for j in $JP $JL; do api DELETE "/v1/jobs/$j"; done
kill -TERM "$PID"
wait "$PID"
RC=$?
PID=
check "SIGTERM: the daemon exits 0" [ "$RC" = 0 ]
echo "all dashboard tests passed"
