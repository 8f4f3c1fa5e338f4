#!/bin/bash
# cuzk-bench's client commands against a real daemon on a unix socket (and
# TCP on 127.0.0.1 with a token):
#   bash tests/test_bench_client.sh CUZK CUZK_BENCH WORK_DIR
# single (seeded built-in and an uploaded .wtns), batch -c 6 -j 3 (every job
# done, verified by the daemon and again here with `cuzk verify`), a short
# stress run with CRITICAL jobs, status/register/preload/evict/metrics
# (register --async's progress while a named-pipe key holds the load), --json parsed
# by python3, --csv parsed (header + rows), the progress bar on a pseudo
# terminal, and clear non-zero exits for bad addresses, a missing or dead
# socket, a missing token and 4xx answers. Every wait on the daemon has a
# deadline. Needs curl (the vk for `cuzk verify`) and python3.
set -u
CUZK=$1
B=$2
W=$3
DATA=$(cd "$(dirname "$0")/data" && pwd)
command -v python3 >/dev/null || { echo "skipped: python3 is missing"; exit 77; }
. "$(dirname "$0")/daemon_lib.sh"
A=unix:$SOCK
# run ARGS...: cuzk-bench with stdout in $W/out, stderr in $W/err, exit in $RC
run() { "$B" "$@" >"$W/out" 2>"$W/err"; RC=$?; }
# py EXPR: python3 evaluates EXPR with j = the JSON of $W/out; true if truthy
py() { python3 -c "import json,sys; j=json.load(open('$W/out')); sys.exit(0 if ($1) else 1)"; }

# -------------------------------------------------- before any daemon --
for c in single batch stress status register preload evict metrics; do
    run "$c" --help
    check "$c --help exits 0 with a usage" grep -q "^usage: cuzk-bench $c" "$W/out"
done
check "  ... and they name --addr and --json" grep -q -- '--addr ADDR' "$W/out"
run status --addr "$A"
check "no daemon: exit 1" [ "$RC" = 1 ]
check "  ... naming the address" grep -q "cannot connect to $A: No such file" "$W/err"
run batch winning-32g -c 2 --addr "$A"
check "batch with no daemon: exit 1, named" \
    sh -c "[ $RC = 1 ] && grep -q 'cannot connect to $A' '$W/err'"
run status --addr "tcp://127.0.0.1:1"
check "a bad address form: exit 2" [ "$RC" = 2 ]
check "  ... saying the forms" grep -q "expected unix:PATH or http://HOST:PORT" "$W/err"
run status --addr "http://127.0.0.1:1/v1"
check "an address with a path: exit 2" [ "$RC" = 2 ]
run status --addr
check "--addr without a value: exit 2" sh -c "[ $RC = 2 ] && grep -q 'needs a value' '$W/err'"
CUZK_ADDR="unix:$W/env.sock" "$B" status >"$W/out" 2>"$W/err"
check "CUZK_ADDR is the default address" grep -q "cannot connect to unix:$W/env.sock" "$W/err"
run batch winning-32g -c 0 --addr "$A"
check "batch -c 0: exit 2" sh -c "[ $RC = 2 ] && grep -q -- '-c: expected an integer' '$W/err'"
run stress --stream winning-32g:k=2 --duration 1s --addr "$A"
check "stress with a bad class: exit 2, naming the part" \
    sh -c "[ $RC = 2 ] && grep -q \"unknown part 'k=2'\" '$W/err'"
run stress --every 0s:winning-32g --duration 1s --addr "$A"
check "stress with a zero interval: exit 2" [ "$RC" = 2 ]
run stress --stream winning-32g --addr "$A"
check "stress without --duration: exit 2" [ "$RC" = 2 ]
run single --addr "$A"
check "single without a circuit: exit 2" [ "$RC" = 2 ]

# ------------------------------------------------------------ the daemon --
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$D/token"
TOKEN=$(cat "$D/token")
cat >"$D/cuzk.conf" <<CONF
[server]
tcp = 127.0.0.1:0
token_file = token
log = log
[engine]
backend = cpu
[circuit winning-32g]
builtin = winning-32g
size = 10
setup_seed = 7
[circuit mul]
key = $DATA/mul.zkey
CONF
daemon_start
run status --addr "$A"
check "status: exit 0 once the daemon is up" [ "$RC" = 0 ]
check "  ... says running and lists the circuits" \
    sh -c "grep -q '^daemon: running' '$W/out' && grep -q '^  winning-32g ' '$W/out' && grep -q '^  mul ' '$W/out'"
export CUZK_ADDR=$A

vk() { curl -s --max-time 30 --unix-socket "$SOCK" -o "$W/vk.json" "http://cuzk/v1/circuits/$1/vk"; }
verify_job() { # ID CIRCUIT: the stored proof verifies against the served vk
    curl -s --max-time 30 --unix-socket "$SOCK" -o "$W/p.json" "http://cuzk/v1/jobs/$1/proof" &&
        curl -s --max-time 30 --unix-socket "$SOCK" -o "$W/u.json" "http://cuzk/v1/jobs/$1/public" &&
        vk "$2" && "$CUZK" verify --vk "$W/vk.json" --proof "$W/p.json" --public "$W/u.json" >/dev/null
}

# ---------------------------------------------------------------- single --
run single winning-32g --seed 5 -p high --proof "$W/proof.json" --public "$W/public.json"
check "single: exit 0" [ "$RC" = 0 ]
check "  ... the state" grep -q '^job [0-9]*: done (winning-32g, priority high, 1 partition' "$W/out"
for t in queue 'key load' witness prove verify total proof verified; do
    grep -q "^  $t " "$W/out" || die "single prints no '$t' line"
done
check "  ... every timing line, and the proof size" grep -q '^  proof     1 x 192 = 192 bytes' "$W/out"
check "  ... its --proof/--public verify against the daemon's vk" \
    sh -c "curl -s --max-time 30 --unix-socket '$SOCK' -o '$W/vk.json' http://cuzk/v1/circuits/winning-32g/vk &&
           '$CUZK' verify --vk '$W/vk.json' --proof '$W/proof.json' --public '$W/public.json' >/dev/null"
run single mul --wtns "$DATA/mul.wtns" --json
check "single --wtns (an uploaded witness) --json: exit 0" [ "$RC" = 0 ]
check "  ... JSON: done, verified, 192 bytes, timings" \
    py "j['job']['state']=='done' and j['job']['verified_partitions']==1 and j['job']['proof_bytes']==192 and j['job']['total_ms']>0 and j['answer']['timings']['partitions'][0]['prove_ms']>0"
MULID=$(python3 -c "import json; print(json.load(open('$W/out'))['job']['id'])")
check "  ... and that proof verifies" verify_job "$MULID" mul
pub() { python3 -c "import json; print(json.load(open('$W/out'))['answer']['public'])"; }
run single winning-32g --inputs '{"seed": 9}' --json
check "single --inputs JSON: done" py "j['job']['state']=='done'"
P1=$(pub)
echo '{"seed": 9}' >"$W/in.json"
run single winning-32g --inputs "@$W/in.json" --json
check "single --inputs @FILE: the same public inputs" [ "$(pub)" = "$P1" ]
run single winning-32g --seed 10 --json
check "  ... and another seed other ones" [ "$(pub)" != "$P1" ]
run single winning-32g --csv
check "single --csv: a header and one row" \
    python3 -c "import csv,sys; r=list(csv.DictReader(open('$W/out'))); sys.exit(0 if len(r)==1 and r[0]['state']=='done' else 1)"
run single nope
check "single on an unknown circuit: exit 1" [ "$RC" = 1 ]
check "  ... with the daemon's 404 message" grep -q 'HTTP 404: no circuit "nope"' "$W/err"
run single mul --seed 3
check "single with inputs the circuit refuses: exit 1, the reason" \
    sh -c "[ $RC = 1 ] && grep -q 'HTTP 4[0-9][0-9]' '$W/err'"
run single winning-32g --inputs '{"seed": '
check "single --inputs with bad JSON: exit 2" [ "$RC" = 2 ]
run single winning-32g --wtns "$W/nonexistent.wtns"
check "single --wtns of a missing file: exit 2, named" \
    sh -c "[ $RC = 2 ] && grep -q 'nonexistent.wtns' '$W/err'"

# ------------------------------------------------------------------ TCP --
TCP=$(curl -s --max-time 30 --unix-socket "$SOCK" http://cuzk/v1/status |
    python3 -c "import json,sys; print(json.load(sys.stdin)['server']['tcp'])")
run status --addr "http://$TCP"
check "TCP without the token: exit 1" [ "$RC" = 1 ]
check "  ... the daemon's 401 said" grep -q 'answered 401' "$W/err"
run status --addr "http://$TCP" --token "$TOKEN"
check "TCP with --token: exit 0" [ "$RC" = 0 ]
CUZK_TOKEN=$TOKEN "$B" single winning-32g --addr "http://$TCP/" >"$W/out" 2>"$W/err"
check "single over TCP with CUZK_TOKEN: done" grep -q ': done (winning-32g' "$W/out"

# ----------------------------------------------------------------- batch --
run batch winning-32g -c 6 -j 3 --seed 100 --json
check "batch -c 6 -j 3 --json: exit 0" [ "$RC" = 0 ]
check "  ... summary: 6 completed, 0 failed, s/proof and proofs/min" \
    py "j['summary']['completed']==6 and j['summary']['failed']==0 and j['summary']['s_per_proof']>0 and j['summary']['proofs_per_min']>0"
check "  ... latency min <= p50 <= p95 <= p99 <= max over 6 jobs" \
    py "(lambda l: l['n']==6 and l['min_ms']<=l['p50_ms']<=l['p95_ms']<=l['p99_ms']<=l['max_ms'])(j['summary']['latency'])"
check "  ... 6 rows, distinct ids, every one done and self-verified by the daemon" \
    py "len(j['jobs'])==6 and len({r['id'] for r in j['jobs']})==6 and all(r['state']=='done' and r['verified_partitions']==r['partitions']==1 for r in j['jobs'])"
check "  ... the latencies are the rows' (p50 is one of them)" \
    py "j['summary']['latency']['p50_ms'] in [r['latency_ms'] for r in j['jobs']]"
IDS=$(python3 -c "import json; print(' '.join(str(r['id']) for r in json.load(open('$W/out'))['jobs']))")
for id in $IDS; do verify_job "$id" winning-32g || die "batch job $id's proof does not verify"; done
check "  ... and all 6 proofs verify here with cuzk verify" true
# At most 3 in flight: no instant is inside more than 3 jobs' [submit, submit+latency].
check "  ... never more than 3 jobs in flight" \
    py "max(sum(1 for s in j['jobs'] if s['submit_s']<=r['submit_s']<s['submit_s']+s['latency_ms']/1e3) for r in j['jobs'])<=3"
run batch winning-32g -c 4 -j 2
check "batch (text): exit 0, 4 job lines" \
    sh -c "[ $RC = 0 ] && [ \$(grep -c '^job ' '$W/out') = 4 ]"
check "  ... and the summary lines" \
    sh -c "grep -q 'completed 4   failed 0' '$W/out' && grep -q '^latency (ms, 4 jobs): min' '$W/out'"
run batch winning-32g -c 5 -j 2 --csv
check "batch --csv: exit 0" [ "$RC" = 0 ]
check "  ... a header and 5 rows of the same width, all done" \
    python3 -c "
import csv,sys
rows=list(csv.reader(open('$W/out')))
h=rows[0]; body=rows[1:]
ok=h[0]=='idx' and 'latency_ms' in h and len(body)==5 and all(len(r)==len(h) for r in body)
ok=ok and all(r[h.index('state')]=='done' for r in body)
sys.exit(0 if ok else 1)"
check "  ... the summary on stderr" grep -q 'completed 5' "$W/err"
run batch nope -c 3 -j 2 --json
check "batch on an unknown circuit: exit 1 before any job" \
    sh -c "[ $RC = 1 ] && [ ! -s '$W/out' ]"
check "  ... with the daemon's 404" grep -q 'answered 404: no circuit "nope"' "$W/err"
run stress --stream winning-32g --every 1s:nope --duration 1s
check "stress with an unknown circuit: exit 1, the 404" \
    sh -c "[ $RC = 1 ] && grep -q 'answered 404: no circuit \"nope\"' '$W/err'"

# The progress bar: on a terminal (a pseudo-terminal from script(1)) the
# bar is drawn on stderr; through a pipe there is none.
if command -v script >/dev/null; then
    script -qec "'$B' batch winning-32g -c 3 -j 1" "$W/tty.log" >/dev/null 2>&1
    check "batch on a terminal draws a progress bar" grep -q '\] 3/3  done 3' "$W/tty.log"
    run batch winning-32g -c 2 -j 1
    check "  ... and not into a pipe" sh -c "! grep -q 'in flight' '$W/err'"
fi

# ---------------------------------------------------------------- stress --
run stress --stream winning-32g:j=2:low --every 1s:winning-32g:critical --duration 3s --json
check "stress --json: exit 0" [ "$RC" = 0 ]
check "  ... two classes, the stream at low priority, 2 in flight" \
    py "len(j['summary']['classes'])==2 and j['summary']['classes'][0]['priority']=='low' and j['summary']['classes'][0]['j']==2"
check "  ... a CRITICAL job each second: 3 submitted, all done" \
    py "(lambda c: c['submitted']==3 and c['done']==3 and c['interval_s']==1)(j['summary']['classes'][1])"
check "  ... the CRITICAL latency reported apart, over those 3" \
    py "j['summary']['critical']['n']==3 and j['summary']['critical']['max_ms']==max(r['latency_ms'] for r in j['jobs'] if r['priority']=='critical')"
check "  ... the CRITICAL jobs were submitted on schedule (0, 1, 2 s)" \
    py "all(abs(a-b)<0.5 for a,b in zip(sorted(r['submit_s'] for r in j['jobs'] if r['priority']=='critical'),[0,1,2]))"
# Closed loop: a stream job that ended before the 3 s had a successor, one
# that ended after had none (50 ms either side: the client's clock reads).
ends() { echo "[r['submit_s']+r['latency_ms']/1e3 for r in j['jobs'] if r['priority']=='low']"; }
check "  ... the stream replaced each job that ended in time, and nothing failed" \
    py "j['summary']['failed']==0 and 2+sum(e<2.95 for e in $(ends)) <= len($(ends)) <= 2+sum(e<3.05 for e in $(ends))"
run stress --stream winning-32g --every 1s:winning-32g:critical --duration 2s
check "stress (text): the CRITICAL latency line" grep -q '^CRITICAL jobs under load: latency (ms, 2 jobs)' "$W/out"
run stress --stream winning-32g --duration 1s --csv
check "stress --csv: a header and rows" \
    python3 -c "import csv,sys; r=list(csv.DictReader(open('$W/out'))); sys.exit(0 if len(r)>=1 and all(x['class']=='winning-32g' for x in r) else 1)"

# ------------------------------------------- status, preload, evict, metrics --
run status --json
check "status --json is the daemon's status" py "j['running'] is True and j['totals']['jobs_done']>=20"
run preload mul
check "preload: exit 0, the key resident" \
    sh -c "[ $RC = 0 ] && grep -q '^mul: preloaded, key tier resident' '$W/out'"
run evict mul --json
check "evict --json: the key no longer resident" py "j['name']=='mul' and j['tier']!='resident'"
run evict nope
check "evict of an unknown circuit: exit 1, the 404" \
    sh -c "[ $RC = 1 ] && grep -q 'answered 404: no circuit' '$W/err'"
run preload
check "preload without a circuit: exit 2" [ "$RC" = 2 ]
run metrics
check "metrics: the Prometheus text" grep -q '^cuzk_jobs_done_total ' "$W/out"
run metrics --json
check "metrics --json: the samples as numbers" \
    py "j['metrics']['cuzk_jobs_done_total']>=20 and 'cuzk_http_requests_total{class=\"all\"}' in j['metrics']"

# ------------------------------------------------------------ register --
run register "$DATA/mul.zkey" --name mul3
check "register (blocking): exit 0, ready" sh -c "[ $RC = 0 ] && grep -q '^mul3: ready after' '$W/out'"
# --async: the key is a named pipe, so the load waits for the test to
# write it: the progress lines and the status are seen without a race.
mkfifo "$W/gate.zkey"
"$B" register "$W/gate.zkey" --name gated --async >"$W/reg.out" 2>"$W/reg.err" &
RP=$!
for i in $(seq 1 100); do
    grep -q '^gated: loading' "$W/reg.err" && break
    sleep 0.1
done
check "register --async: 202, then the state while the key loads" \
    grep -q '^gated: loading, [0-9]* s$' "$W/reg.err"
run status
check "  ... status shows it loading" grep -q '^  gated .* loading ' "$W/out"
cat "$DATA/mul.zkey" >"$W/gate.zkey"
wait "$RP"
check "  ... exit 0 once it is ready" sh -c "[ $? = 0 ] && grep -q '^gated: ready after' '$W/reg.out'"
head -c 2000 "$DATA/mul.zkey" >"$W/trunc.zkey"
run register "$W/trunc.zkey" --async
check "register --async of a truncated key: exit 1, the load's message" \
    sh -c "[ $RC = 1 ] && grep -q 'trunc: failed: .*trunc.zkey' '$W/err'"
run register /nonexistent/k.zkey --async
check "register of a missing file: exit 1, the 400" \
    sh -c "[ $RC = 1 ] && grep -q 'answered 400: .*/nonexistent/k.zkey' '$W/err'"
run register
check "register without a key: exit 2" [ "$RC" = 2 ]

# ------------------------------------------------------ a dead daemon --
{ kill -9 "$PID" && wait "$PID"; } 2>/dev/null
PID=
run status
check "a socket with no daemon behind it: exit 1" [ "$RC" = 1 ]
check "  ... connection refused, naming the address" \
    grep -q "cannot connect to $A: connection refused" "$W/err"
run single winning-32g
check "single on a dead daemon: exit 1" [ "$RC" = 1 ]
echo "all passed"
