#!/bin/bash
# The asynchronous registration against a real daemon on a unix socket:
#   bash tests/test_daemon_load.sh CUZK DATA_DIR WORK_DIR
# POST /v1/circuits?wait=0 answers 202 "loading" at once; bad requests are
# still answered 400/404 at once; a job submitted while the key loads is
# accepted, waits, and proves (its proof verifies); a load that fails
# leaves the circuit "failed" with its message and fails the waiting job
# with that reason; the same key posted twice is one load; a job accepted
# while its key loaded survives kill -9 (the config registers the key at
# the restart); the daemon serves throughout and exits 0 on SIGTERM.
#
# The load is held without a race: the key path is a named pipe, and the
# loader blocks reading it until the test writes the key into it (a .zkey
# may be a pipe: engine.h's cuzk_engine_register_begin). No fixed sleeps.
# Needs curl.
set -u
CUZK=$1
DATA=$(cd "$2" && pwd)
W=$3
. "$(dirname "$0")/daemon_lib.sh"
# quick METHOD PATH [curl args]: api with a 5 s limit: "at once"
quick() {
    local m=$1 p=$2
    shift 2
    CODE=$(curl -s -o "$W/body" -w '%{http_code}' --max-time 5 --unix-socket "$SOCK" \
        -X "$m" "$@" "http://cuzk$p")
}

cat >"$D/cuzk.conf" <<EOF
[circuit mul]
key = $DATA/mul.zkey
EOF
daemon_start

# ------------------------------------------- bad requests: 400/404 now --
quick POST "/v1/circuits?wait=0" -d '{"zkey_path": "/nonexistent/k.zkey"}'
check "a missing key file: 400 at once" [ "$CODE" = 400 ]
check "  ... naming it" grep -q "/nonexistent/k.zkey" "$W/body"
quick POST "/v1/circuits?wait=0" -d "{\"zkey_path\": \"$DATA/mul.wtns\"}"
check "a file that is no key: 400 at once" [ "$CODE" = 400 ]
check "  ... saying so" grep -q "neither a .zkey nor a .cuzk key" "$W/body"
quick POST "/v1/circuits?wait=0" -d "{\"zkey_path\": \"$DATA\"}"
check "a directory: 400 at once" [ "$CODE" = 400 ]
quick POST "/v1/circuits?wait=0" -d '{"builtin": "no-such-circuit"}'
check "an unknown built-in: 400 at once" [ "$CODE" = 400 ]
quick POST "/v1/circuits?wait=0" -d '{"zkey_path": 7}'
check "a wrong type: 400 at once" [ "$CODE" = 400 ]
quick POST "/v1/circuits?wait=x" -d "{\"zkey_path\": \"$DATA/mul.zkey\"}"
check "a bad ?wait: 400" [ "$CODE" = 400 ]
quick POST "/v1/circuits?colour=red" -d "{\"zkey_path\": \"$DATA/mul.zkey\"}"
check "an unknown query argument: 400" [ "$CODE" = 400 ]
quick GET "/v1/circuits/nope?wait=5"
check "GET of an unknown circuit: 404 at once" [ "$CODE" = 404 ]
quick GET "/v1/circuits/mul?colour=red"
check "GET with an unknown query argument: 400" [ "$CODE" = 400 ]
quick GET /v1/circuits
check "none of them was listed" sh -c "[ \$(grep -o '\"name\":' '$W/body' | wc -l) = 1 ]"

# ------------------------------------------ 202, loading, then ready --
mkfifo "$W/gate.zkey"
quick POST "/v1/circuits?wait=0" -d "{\"zkey_path\": \"$W/gate.zkey\", \"name\": \"piped\"}"
check "POST /v1/circuits?wait=0: 202 at once" [ "$CODE" = 202 ]
check "  ... {\"id\": \"piped\", \"state\": \"loading\"}" \
    grep -q '"id":"piped".*"state":"loading"\|"state":"loading".*"id":"piped"' "$W/body"
quick GET /v1/circuits/piped
check "GET /v1/circuits/piped: loading" [ "$CODE:$(field state)" = 200:loading ]
check "  ... with no vk yet" grep -q '"vk":null' "$W/body"
quick GET /v1/circuits
check "GET /v1/circuits lists it as loading" grep -q '"name":"piped"[^}]*"state":"loading"' "$W/body"
quick POST "/v1/circuits?wait=0" -d "{\"zkey_path\": \"$W/gate.zkey\", \"name\": \"piped\"}"
check "the same key again: 202, the same id" [ "$CODE:$(field id)" = 202:piped ]
check "  ... existing (no second load)" grep -q '"existing":true' "$W/body"
quick POST "/v1/circuits?wait=0" -d "{\"zkey_path\": \"$DATA/mul.zkey\", \"name\": \"piped\"}"
check "another key under the loading name: 400" [ "$CODE" = 400 ]
quick GET /v1/circuits/piped/vk
check "its vk while loading: 409" [ "$CODE" = 409 ]
quick POST /v1/circuits/piped/preload
check "preload while loading: 409" [ "$CODE" = 409 ]
quick GET /v1/status
check "status shows it loading" grep -q '"name":"piped"[^}]*"state":"loading"' "$W/body"
check "  ... and one load in progress" grep -q '"registrations":1' "$W/body"
quick GET /metrics
check "metrics: cuzk_circuits{state=\"loading\"} 1" grep -q '^cuzk_circuits{state="loading"} 1$' "$W/body"

quick POST /v1/jobs -d "{\"circuit\": \"piped\", \"wtns_path\": \"$DATA/mul.wtns\"}"
check "a job for the loading circuit: 202" [ "$CODE" = 202 ]
check "  ... saying it waits for the key" grep -q '"circuit_state":"loading"' "$W/body"
J1=$(field id)
quick GET "/v1/jobs/$J1"
check "  ... it is queued" [ "$(field state)" = queued ]
quick GET "/v1/circuits/piped?wait=1"
check "GET ?wait=1 while loading: 200 after the wait, still loading" [ "$CODE:$(field state)" = 200:loading ]
# A blocking POST of the same key joins the load in progress.
curl -s -o "$W/join" -w '%{http_code}' --max-time 120 --unix-socket "$SOCK" -X POST \
    -d "{\"zkey_path\": \"$W/gate.zkey\", \"name\": \"piped\"}" http://cuzk/v1/circuits >"$W/join.code" &
JOIN=$!
curl -s -o "$W/lp" -w '%{http_code}' --max-time 120 --unix-socket "$SOCK" \
    "http://cuzk/v1/circuits/piped?wait=100" >"$W/lp.code" &
LP=$!
for i in $(seq 1 100); do # both are parked: the daemon counts them
    quick GET /v1/status
    grep -q '"waiters":2' "$W/body" && break
    sleep 0.1
done
check "a blocking POST and a long poll wait on the load" grep -q '"waiters":2' "$W/body"
quick GET "/v1/jobs/$J1"
check "  ... the job is still queued" [ "$(field state)" = queued ]

cat "$DATA/mul.zkey" >"$W/gate.zkey" # the key arrives: the load goes on
wait "$LP"
check "the long poll answers once it is ready" [ "$(cat "$W/lp.code")" = 200 ]
check "  ... ready, with its vk" grep -q '"state":"ready".*"vk":{"protocol":"groth16"\|"vk":{"protocol":"groth16".*"state":"ready"' "$W/lp"
wait "$JOIN"
check "the blocking POST answers 200, existing" [ "$(cat "$W/join.code")" = 200 ]
check "  ... ready" grep -q '"state":"ready"' "$W/join"
api GET "/v1/jobs/$J1?wait=60"
check "the job submitted while loading is done" [ "$(field state)" = done ]
check "  ... and its proof verifies" verify "$J1" piped
quick POST "/v1/circuits?wait=0" -d "{\"zkey_path\": \"$W/gate.zkey\", \"name\": \"piped\"}"
check "posting it again once ready: 200, existing, ready" \
    [ "$CODE:$(field state)" = 200:ready ]

# --------------------------------------------------- a load that fails --
mkfifo "$W/cut.zkey"
quick POST "/v1/circuits?wait=0" -d "{\"zkey_path\": \"$W/cut.zkey\", \"name\": \"cut\"}"
check "a key that will fail: 202 loading" [ "$CODE:$(field state)" = 202:loading ]
quick POST /v1/jobs -d "{\"circuit\": \"cut\", \"wtns_path\": \"$DATA/mul.wtns\"}"
check "  ... a job for it: 202" [ "$CODE" = 202 ]
J2=$(field id)
head -c 2000 "$DATA/mul.zkey" >"$W/cut.zkey" # a truncated key
api GET "/v1/circuits/cut?wait=60"
check "the circuit is failed" [ "$CODE:$(field state)" = 200:failed ]
check "  ... with the load's message, naming the file" grep -q '"error":"[^"]*cut.zkey' "$W/body"
ERR=$(sed -n 's/.*"error":"\([^"]*\)".*/\1/p' "$W/body")
api GET "/v1/jobs/$J2?wait=60"
check "the waiting job failed" [ "$(field state)" = failed ]
check "  ... with the load's reason" grep -qF "circuit cut failed to load: $ERR" "$W/body"
quick POST /v1/jobs -d "{\"circuit\": \"cut\", \"wtns_path\": \"$DATA/mul.wtns\"}"
check "a job for the failed circuit: 409 at once" [ "$CODE" = 409 ]
quick GET /metrics
check "metrics: cuzk_circuits{state=\"failed\"} 1" grep -q '^cuzk_circuits{state="failed"} 1$' "$W/body"
head -c 2000 "$DATA/mul.zkey" >"$W/trunc.zkey"
api POST /v1/circuits -d "{\"zkey_path\": \"$W/trunc.zkey\", \"name\": \"trunc\"}"
check "the blocking form with a truncated key: 400 with the message" \
    sh -c "[ '$CODE' = 400 ] && grep -q 'trunc.zkey' '$W/body'"
api POST "/v1/circuits?wait=30" -d "{\"zkey_path\": \"$DATA/mul.zkey\", \"name\": \"cut\"}"
check "the failed name registered again (?wait=30): 201 ready" [ "$CODE:$(field state)" = 201:ready ]
api POST /v1/prove -d "{\"circuit\": \"cut\", \"wtns_path\": \"$DATA/mul.wtns\"}"
check "  ... and it proves" [ "$(field state)" = done ]
check "  ... a proof that verifies" verify "$(field id)" cut

# ----------------------------- a job accepted while loading, kill -9 --
mkfifo "$W/late.zkey"
quick POST "/v1/circuits?wait=0" -d "{\"zkey_path\": \"$W/late.zkey\", \"name\": \"late\"}"
check "late: 202 loading" [ "$CODE:$(field state)" = 202:loading ]
quick POST /v1/jobs -d "{\"circuit\": \"late\", \"wtns_path\": \"$DATA/mul.wtns\", \"request_id\": \"r-late\"}"
check "  ... a job for it: 202 (committed to the store)" [ "$CODE" = 202 ]
J3=$(field id)
api GET /v1/status
check "the daemon serves on" [ "$CODE" = 200 ]
kill -9 "$PID"
wait "$PID" 2>/dev/null
PID=
# Circuits registered through the API are not kept across a restart (the
# config is what registers at start): the restart's config names it.
cat >>"$D/cuzk.conf" <<EOF
[circuit late]
key = $DATA/mul.zkey
EOF
daemon_start
api GET "/v1/jobs/$J3?wait=60"
check "after the restart, the job accepted while loading is done" [ "$(field state)" = done ]
check "  ... and its proof verifies" verify "$J3" late

# --------------------------------------------------------- SIGTERM --
# With a load blocked on a pipe nobody writes and a blocking POST waiting
# for it: the daemon still exits 0 (the stop gives the pipe its end of
# file), and the client is told why (503).
mkfifo "$W/stuck.zkey"
quick POST "/v1/circuits?wait=0" -d "{\"zkey_path\": \"$W/stuck.zkey\", \"name\": \"stuck\"}"
check "stuck: 202 loading" [ "$CODE:$(field state)" = 202:loading ]
curl -s -o "$W/join" -w '%{http_code}' --max-time 120 --unix-socket "$SOCK" -X POST \
    -d "{\"zkey_path\": \"$W/stuck.zkey\", \"name\": \"stuck\"}" http://cuzk/v1/circuits >"$W/join.code" &
JOIN=$!
for i in $(seq 1 100); do
    quick GET /v1/status
    grep -q '"waiters":1' "$W/body" && break
    sleep 0.1
done
check "a blocking POST waits on the stuck load" grep -q '"waiters":1' "$W/body"
kill -TERM "$PID"
wait "$PID"
RC=$?
PID=
wait "$JOIN"
check "SIGTERM with a load stuck on a pipe: exit 0" [ "$RC" = 0 ]
check "  ... the waiting POST got 503" [ "$(cat "$W/join.code")" = 503 ]
check "  ... saying why" grep -q "shutting down" "$W/join"
echo "all daemon load tests passed"
