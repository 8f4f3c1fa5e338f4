#!/bin/sh
# `make run`: the daemon on its embedded default, driven through its API.
#   sh examples/run_daemon.sh path/to/cuzk
# Starts `cuzk serve` in a temporary directory (socket cuzk.sock, store
# cuzk.db, the built-in circuits at size 10), submits a few jobs of the
# built-in circuits with curl --unix-socket, waits for each (long poll),
# prints its timings, checks every proof with `cuzk verify` against the
# circuit's verifying key from GET /v1/circuits/NAME/vk, and stops the
# daemon with SIGTERM (it exits 0).
set -eu
CUZK=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-run.XXXXXX")
SOCK=$T/cuzk.sock
PID=
trap '[ -n "$PID" ] && kill -9 $PID 2>/dev/null; true' EXIT

api() { curl -sf --max-time 600 --unix-socket "$SOCK" "$@"; }
# The first "NAME": value of a compact JSON text on stdin.
field() { grep -o "\"$1\":\"\{0,1\}[^\",}]*" | head -1 | sed 's/.*:"\{0,1\}//'; }

echo "== cuzk serve --dir $T (the embedded default; log: $T/log)"
"$CUZK" serve --dir "$T" 2>"$T/log" &
PID=$!
t0=$(date +%s)
until [ -S "$SOCK" ] && api -o /dev/null http://cuzk/v1/status; do
    kill -0 "$PID" 2>/dev/null || { cat "$T/log"; echo "the daemon did not start" >&2; exit 2; }
    [ $(($(date +%s) - t0)) -lt 300 ] || { echo "the daemon did not answer in 300 s" >&2; exit 2; }
    sleep 0.2
done
echo "   up in $(($(date +%s) - t0)) s (the built-in keys come from an INSECURE setup at start)"
api http://cuzk/v1/circuits | tr '{' '\n' | sed -n 's/^"name":"\([^"]*\)".*"partitions":\([0-9]*\),"n_vars":\([0-9]*\).*/   circuit \1: \2 partition(s), \3 variables/p'

JOBS=""
for spec in "winning-32g 1 normal" "wpost-32g 2 normal" "snap-32g 3 high" "winning-32g 4 critical"; do
    set -- $spec
    id=$(api -d "{\"circuit\": \"$1\", \"seed\": $2, \"priority\": \"$3\"}" http://cuzk/v1/jobs | field id)
    echo "== POST /v1/jobs $1 (seed $2, $3) -> job $id"
    JOBS="$JOBS $id:$1"
done

for j in $JOBS; do
    id=${j%%:*}
    c=${j#*:}
    api "http://cuzk/v1/jobs/$id?wait=600" >"$T/job$id.json"
    state=$(field state <"$T/job$id.json")
    parts=$(field partitions <"$T/job$id.json")
    total=$(field total_ms <"$T/job$id.json")
    echo "== job $id ($c): $state, $parts partition(s), ${total} ms from acceptance to proof"
    [ "$state" = done ] || { cat "$T/job$id.json"; exit 2; }
    tr '{' '\n' <"$T/job$id.json" | sed -n 's/.*"witness_ms":\([0-9.]*\).*"prove_ms":\([0-9.]*\).*/   partition: witness \1 ms, prover \2 ms/p'
    api -o "$T/vk-$c.json" "http://cuzk/v1/circuits/$c/vk"
    p=0
    while [ "$p" -lt "$parts" ]; do
        api -o "$T/proof$id-$p.json" "http://cuzk/v1/jobs/$id/proof?partition=$p"
        api -o "$T/public$id-$p.json" "http://cuzk/v1/jobs/$id/public?partition=$p"
        if "$CUZK" verify --vk "$T/vk-$c.json" --proof "$T/proof$id-$p.json" \
            --public "$T/public$id-$p.json" >/dev/null; then
            echo "   proof of partition $p: verified ($T/proof$id-$p.json)"
        else
            echo "   proof of partition $p: INVALID" >&2
            exit 1
        fi
        p=$((p + 1))
    done
done

echo "== SIGTERM"
kill -TERM "$PID"
rc=0
wait "$PID" || rc=$?
PID=
echo "   the daemon exited with $rc; proofs, store and log stay in $T"
exit "$rc"
