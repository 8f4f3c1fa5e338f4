#!/bin/bash
# cuzk-bench waterfall live from a real daemon:
#   bash tests/test_waterfall_live.sh CUZK CUZK_BENCH WORK_DIR
# A daemon (CPU backend, two simulated devices, log_timeline on, TCP with a
# token) proves a batch of jobs (cuzk-bench batch). waterfall --addr reads
# its timeline over the unix socket: every event the engine wrote parses
# (mem samples included), --save keeps it, and the daemon's own log lines
# of the same events draw the same waterfall and numbers. Over TCP it
# needs --token (401 named otherwise). --duration keeps paging while jobs
# run and stops at SIGINT with what it read. Every wait has a deadline.
set -u
CUZK=$1
B=$2
W=$3
. "$(dirname "$0")/wf_json.sh"
. "$(dirname "$0")/daemon_lib.sh"
A=unix:$SOCK
check_num() { # FILE PATH EXPECTED
    local got
    got=$(jget "$1" "$2")
    num_eq "$got" "$3" || die "$2: got '$got', expected $3"
    echo "ok: $2 = $3"
}

head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$D/token"
TOKEN=$(cat "$D/token")
cat >"$D/cuzk.conf" <<CONF
[server]
tcp = 127.0.0.1:0
token_file = token
log = log
log_timeline = yes
store =
[engine]
backend = cpu
devices = 2
witness_workers = 2
max_batch_size = 1
[circuit winning-32g]
builtin = winning-32g
size = 10
setup_seed = 7
CONF
daemon_start
"$B" batch winning-32g -c 6 -j 3 --addr "$A" >"$W/batch" 2>"$W/err"
check "6 jobs proved (cuzk-bench batch)" [ $? = 0 ]

# ------------------------------------------------- over the unix socket --
"$B" waterfall --addr "$A" --save "$W/live.json" --json >"$W/live.jsonout" 2>"$W/err"
check "waterfall --addr unix:... (exit 0)" [ $? = 0 ]
flatten "$W/live.jsonout" >"$W/live.flat"
check_num "$W/live.flat" partitions 6
check_num "$W/live.flat" job_states.done 6
check_num "$W/live.flat" devices.1.device 1
# a mem sample after each witness and each proof
check_num "$W/live.flat" memory.samples 12
check "  ... with the host's RSS" [ "$(jget "$W/live.flat" memory.peak_rss_bytes)" -gt 1000000 ]
check "  ... and the workspaces in the device pool" \
    [ "$(jget "$W/live.flat" memory.peak_device_bytes)" -gt 0 ]
check "--save wrote the JSON of GET /v1/timeline" grep -q '^{"events": \[' "$W/live.json"
# The same events from the daemon's log (written every 100 ms): the same
# waterfall and analysis, but for the name of the source.
for i in $(seq 1 300); do
    [ "$(grep -c ' done job=' "$D/log")" = 6 ] && break
    sleep 0.1
done
"$B" waterfall "$W/live.json" --width 80 2>&1 | sed 1,/^$/d >"$W/a.txt" # from the blank line on
"$B" waterfall "$D/log" --width 80 2>&1 | sed 1,/^$/d >"$W/b.txt"
"$B" waterfall "$W/live.json" --width 80 2>&1 | sed '/^$/,$d' >"$W/a.chart"
"$B" waterfall "$D/log" --width 80 2>&1 | sed '/^$/,$d' >"$W/b.chart"
check "the log lines draw the same waterfall as the JSON" diff "$W/a.chart" "$W/b.chart"
sed 1d "$W/a.txt" >"$W/a.rest"
sed 1d "$W/b.txt" >"$W/b.rest"
check "  ... and give the same analysis" diff "$W/a.rest" "$W/b.rest"
check "  ... with a row per job" [ "$(grep -c '^job [0-9]* p0 ' "$W/a.chart")" = 6 ]

# ------------------------------------------------------ over TCP, token --
"$B" status --addr "$A" --json >"$W/status" 2>/dev/null
TCP=$(grep -o '"tcp": *"[^"]*"' "$W/status" | sed 's/.*"\([^"]*\)"$/\1/')
check "the daemon listens on TCP ($TCP)" [ -n "$TCP" ]
"$B" waterfall --addr "http://$TCP" --no-chart >"$W/out" 2>"$W/err"
RC=$?
check "TCP without the token: exit 1, 401 named" sh -c "[ $RC = 1 ] && grep -q 'answered 401' '$W/err'"
"$B" waterfall --addr "http://$TCP" --token "$TOKEN" --json >"$W/tcp.jsonout" 2>"$W/err"
check "TCP with --token: exit 0" [ $? = 0 ]
flatten "$W/tcp.jsonout" >"$W/tcp.flat"
check_num "$W/tcp.flat" partitions 6

# ------------------------------------------- --duration, stopped by INT --
NEXT=$(sed -n 's/.*"next": \([0-9]*\)}$/\1/p' "$W/live.json")
check "the saved timeline has its cursor ($NEXT)" [ -n "$NEXT" ]
"$B" waterfall --addr "$A" --since "$NEXT" --duration 120 --save "$W/dur.json" --no-chart \
    >"$W/dur.out" 2>"$W/dur.err" &
WF=$!
"$B" batch winning-32g -c 4 -j 2 --seed 100 --addr "$A" >"$W/batch2" 2>"$W/err"
check "4 more jobs proved while waterfall reads" [ $? = 0 ]
sleep 1.5 # > 2 of its 0.5 s polls
kill -INT "$WF"
wait "$WF"
RC=$?
check "waterfall --duration stops at SIGINT with exit 0" [ "$RC" = 0 ]
check "  ... and reports the 4 jobs it read, from the cursor on" \
    grep -q "^unix:$SOCK: [0-9]* events (seq $NEXT\.\.[0-9]*), 4 jobs (4 done" "$W/dur.out"
echo "all live waterfall tests passed"
