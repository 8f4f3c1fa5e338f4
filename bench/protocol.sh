#!/usr/bin/env bash
# The standard benchmark runs of docs/bench.md ("Benchmark protocol") against
# a daemon this script starts and stops:
#   1. isolation  `cuzk-bench batch porep-32g -c 3 -j 1`
#   2. sustained  `cuzk-bench batch porep-32g -c 20 -j 15`, its waterfall and
#                 SVG, stage times against the isolation run's
#   3. critical   `cuzk-bench stress --stream porep-32g:j=4
#                  --every 30s:winning-32g:critical --duration 120s`
# Each run's JSON, its timeline, waterfall (text, SVG, analysis JSON) and a
# summary (summary.txt) go to OUT.
#
#   bench/protocol.sh [BUILD_DIR]      (default build-gpu, else build)
# env: OUT (default ./protocol_out), SIZE (porep-32g's size: 10..27 or
#   full; default full), KEY / PCE (porep-32g's .cuzk key and compiled PCE;
#   without KEY the daemon makes an insecure one, kept in OUT/daemon),
#   WSIZE (winning-32g's size, 0 = full), BACKEND (auto), WITNESS_WORKERS (2), C_ISO (3), C_SUS (20), J_SUS (15),
#   STRESS (120s), EVERY (30s), STREAM_J (4), PHASES ("iso sus crit"),
#   PHASE_LIMIT (seconds a phase's client may run; 0 = no limit: a phase
#   cut there still saves its timeline and analysis), SAMPLE (seconds
#   between the lines of status.log: the daemon's jobs, lanes and devices
#   as the run goes; default 10), DAEMON_DIR (the daemon's files: its key,
#   store and socket; default OUT/daemon).
# The daemon's own log (each workspace made, failed attempts, each job's
# end) is OUT/daemon.log.
# A CPU-sized trial: SIZE=10 WSIZE=10 C_SUS=4 J_SUS=2 STRESS=20s EVERY=5s.
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-}
[ -n "$B" ] || { [ -x "$ROOT/build-gpu/cuzk" ] && B=$ROOT/build-gpu || B=$ROOT/build; }
CUZK=$B/cuzk
BENCH=$B/cuzk-bench
OUT=${OUT:-$PWD/protocol_out}
SIZE=${SIZE:-full}
PHASES=${PHASES:-iso sus crit}
for t in "$CUZK" "$BENCH"; do [ -x "$t" ] || { echo "protocol: no $t (build first)" >&2; exit 2; }; done
command -v python3 >/dev/null || { echo "protocol: needs python3" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
D=${DAEMON_DIR:-$OUT/daemon}
mkdir -p "$D"
D=$(cd "$D" && pwd)
SOCK=$D/cuzk.sock
A=unix:$SOCK
S=$OUT/summary.txt
say() { echo "== $(date +%T) $*" | tee -a "$S"; }

{
    echo "[engine]"
    echo "backend = ${BACKEND:-auto}"
    echo "witness_workers = ${WITNESS_WORKERS:-2}"
    echo "timeline_capacity = 1000000"
    echo "[circuit porep-32g]"
    echo "builtin = porep-32g"
    echo "size = ${SIZE/full/0}"
    [ -n "${KEY:-}" ] && echo "key = $KEY"
    [ -n "${PCE:-}" ] && echo "pce = $PCE"
    echo "preload = yes"
    echo "[circuit winning-32g]"
    echo "builtin = winning-32g"
    echo "size = ${WSIZE:-0}"
    echo "preload = yes"
} >"$D/cuzk.conf"
. "$(dirname "$0")/serve_start.sh"
serve_start "$CUZK" "$D" "$OUT/daemon.log" 600
started=$?
PID=$DPID
trap 'kill -TERM $PID 2>/dev/null; wait $PID 2>/dev/null' EXIT
[ $started = 0 ] || exit 1
# Preloads end before the first job's timeline matters: wait for both keys.
"$BENCH" preload porep-32g --addr "$A" >/dev/null 2>&1
"$BENCH" preload winning-32g --addr "$A" >/dev/null 2>&1
say "daemon $PID on $A, porep-32g size $SIZE, $(nproc) cores, $("$CUZK" version)"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/   /' | tee -a "$S"

# The timeline's cursor now: the "next" of everything the daemon keeps
# (read by cuzk-bench waterfall; 0 before the first event).
cursor() {
    "$BENCH" waterfall --addr "$A" --save "$OUT/.cursor.json" --no-chart >/dev/null 2>&1 ||
        { echo 0; return; }
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("next", 0))' \
        "$OUT/.cursor.json"
}
# sampler NAME: a line every SAMPLE s into status.log while phase NAME runs:
# jobs queued / running / done / failed, retries, each device's backend and
# busy lanes, the prover lanes' job, partition and stage.
sampler() {
    while sleep "${SAMPLE:-10}"; do
        "$BENCH" status --addr "$A" --json 2>/dev/null | python3 -c '
import json, sys, time
try:
    s = json.load(sys.stdin)
except ValueError:
    print(time.strftime("%H:%M:%S"), sys.argv[1], "no status"); sys.exit()
q, t = s.get("queues", {}), s.get("totals", {})
devs = " ".join("dev%d %s busy %d proofs %d fail %d" % (d["index"], d["backend"], d["busy"], d["proofs"], d["failures"]) for d in s.get("devices", []))
lanes = " ".join("[job %s part %s try %s %s]" % (l.get("job"), l.get("partition"), l.get("attempt"), l.get("stage", "")) for l in s.get("lanes", []) if l.get("kind") == "prover" and "job" in l)
print(time.strftime("%H:%M:%S"), sys.argv[1], "queued %d running %d done %d failed %d retries %d parts %d;" % (q.get("jobs_queued", 0), q.get("jobs_running", 0), t.get("jobs_done", 0), t.get("jobs_failed", 0), t.get("retries", 0), t.get("partitions_proved", 0)), devs, lanes)
' "$1" >>"$OUT/status.log"
        # The card's own view: memory held and SM utilisation.
        command -v nvidia-smi >/dev/null &&
            nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader 2>/dev/null |
            sed "s/^/$(date +%T) $1 nvidia-smi: /" >>"$OUT/status.log"
    done
}

# phase NAME CMD...: the client's JSON in NAME.json, then the phase's
# timeline, waterfall, SVG and analysis.
phase() {
    local name=$1
    shift
    local since
    since=$(cursor)
    say "$name: $*"
    sampler "$name" &
    local spid=$!
    local lim=()
    [ "${PHASE_LIMIT:-0}" != 0 ] && lim=(timeout "$PHASE_LIMIT")
    "${lim[@]}" "$@" --addr "$A" --json >"$OUT/$name.json" 2>"$OUT/$name.err"
    local rc=$?
    kill "$spid" 2>/dev/null
    wait "$spid" 2>/dev/null
    if [ $rc = 124 ] && [ ${#lim[@]} != 0 ]; then
        say "$name: CUT after PHASE_LIMIT=$PHASE_LIMIT s (what the timeline has is analysed)"
    else
        say "$name: exit $rc"
    fi
    local base=()
    [ "$name" != iso ] && [ -s "$OUT/iso.timeline.json" ] && base=(--baseline "$OUT/iso.timeline.json")
    "$BENCH" waterfall --addr "$A" --since "$since" --save "$OUT/$name.timeline.json" \
        --svg "$OUT/$name.svg" --width 120 "${base[@]}" >"$OUT/$name.waterfall.txt" 2>&1
    "$BENCH" waterfall "$OUT/$name.timeline.json" "${base[@]}" --json >"$OUT/$name.analysis.json"
    python3 - "$OUT/$name.json" "$OUT/$name.analysis.json" <<'PY' | tee -a "$S"
import json, sys
try:
    run = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    run = {}  # the client was cut (PHASE_LIMIT) or failed: no summary
an = json.load(open(sys.argv[2]))
def lat(l): return "p50 %.0f p95 %.0f max %.0f ms" % (l["p50_ms"], l["p95_ms"], l["max_ms"]) if l and l.get("n") else "-"
summ = run.get("summary", run)
if not summ:
    print("   no client summary (see status.log and daemon.log)")
elif "classes" in summ:
    for c in summ["classes"]:
        print("   %-28s %-8s done %d failed %d  latency %s" % (c["class"], c["priority"], c["done"], c["failed"], lat(c.get("latency"))))
else:
    print("   %d done, %d failed in %.1f s: %.2f s a proof, latency %s" % (summ["completed"], summ["failed"], summ["wall_s"], summ["s_per_proof"], lat(summ.get("latency"))))
for d in an.get("devices", []):
    print("   device %d busy %.1f%% (%d attempts)" % (d["device"], 100 * d["efficiency"], d["attempts"]))
for st in an.get("stages", []):
    if st["stage"] in ("witness", "prove") and st.get("inflation") is not None:
        print("   %s %s: mean %.1f ms under load, %.1f alone: x%.2f" % (st["circuit"], st["stage"], st["load"]["mean_ms"], st["isolation"]["mean_ms"], st["inflation"]))
m = an.get("memory", {})
print("   peak host RSS %.2f GiB, pinned %.2f GiB, device %.2f GiB" % (m.get("peak_rss_bytes", 0) / 2**30, m.get("peak_pinned_bytes", 0) / 2**30, m.get("peak_device_bytes", 0) / 2**30))
PY
}
for p in $PHASES; do
    case $p in
    iso) phase iso "$BENCH" batch porep-32g -c "${C_ISO:-3}" -j 1 ;;
    sus) phase sus "$BENCH" batch porep-32g -c "${C_SUS:-20}" -j "${J_SUS:-15}" ;;
    crit) phase crit "$BENCH" stress --stream "porep-32g:j=${STREAM_J:-4}" \
              --every "${EVERY:-30s}:winning-32g:critical" --duration "${STRESS:-120s}" ;;
    *) echo "protocol: unknown phase '$p'" >&2; exit 2 ;;
    esac
done
say "done: $OUT"
