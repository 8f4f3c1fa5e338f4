#!/bin/sh
# cuzk-bench waterfall on recorded timelines (tests/data/timeline/README.md):
#   sh tests/test_waterfall.sh CUZK_BENCH DATA_DIR WORK_DIR
# - the text waterfall of a daemon's recorded timeline matches the committed
#   expected output, from its JSON, from its log lines, and from the JSON
#   that --save wrote from those lines;
# - the SVG chart is valid XML (xmllint --noout) with a row per partition;
# - the analysis numbers (--json) of the recorded timeline equal those
#   computed here from its log lines with awk and sort, and those of a
#   hand-made timeline equal the values worked out by hand below;
# - bad input (empty, truncated, unknown event kinds, malformed lines, bad
#   options) fails with a message naming the problem and exit 1 (2 for
#   usage), never a crash.
set -u
BENCH=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DATA=$(cd "$2" && pwd)/timeline
W=$3
rm -rf "$W"
mkdir -p "$W"
W=$(cd "$W" && pwd)
. "$(dirname "$0")/check_lib.sh"

. "$(dirname "$0")/wf_json.sh" # flatten, jget, num_eq
# analysis NAME ARGS...: `waterfall ARGS --json` into NAME.jsonout, flattened
# into NAME.flat; returns the waterfall's exit status.
analysis() {
    name=$1
    shift
    "$BENCH" waterfall "$@" --json >"$name.jsonout" 2>&1
    rc=$?
    flatten "$name.jsonout" >"$name.flat"
    return $rc
}
check_num() { # FILE PATH EXPECTED
    got=$(jget "$1" "$2")
    if num_eq "$got" "$3"; then ok "$2 = $3"; else bad "$2: got '$got', expected $3"; fi
}

cp "$DATA"/load.json "$DATA"/load.log "$DATA"/iso.json "$DATA"/hand.log "$W"/
cd "$W" || exit 1

# ------------------------------------------------------------- the text --
"$BENCH" waterfall load.json --width 100 --baseline iso.json >load.out 2>load.err
check "text waterfall of load.json (exit 0)" [ $? = 0 ]
check "  ... matches tests/data/timeline/load.txt" diff -u "$DATA"/load.txt load.out
"$BENCH" waterfall load.log --width 100 --baseline iso.json >log.out 2>log.err
check "text waterfall of load.log (exit 0)" [ $? = 0 ]
sed 's/^load\.log:/load.json:/' log.out >log.cmp
check "  ... the same as from the JSON" diff -u "$DATA"/load.txt log.cmp
"$BENCH" waterfall load.log --no-chart --save saved.json >/dev/null 2>save.err
check "--save writes the log's events as JSON (exit 0)" [ $? = 0 ]
"$BENCH" waterfall saved.json --width 100 --baseline iso.json 2>&1 | sed 's/^saved\.json:/load.json:/' >saved.out
check "  ... which draws the same waterfall" diff -u "$DATA"/load.txt saved.out
"$BENCH" waterfall hand.log --width 77 >hand.out 2>&1
check "text waterfall of hand.log matches tests/data/timeline/hand.txt" diff -u "$DATA"/hand.txt hand.out
# A column is wall/width: 43.580 s / 100 columns, and each row is 100 wide.
check "the rows are --width columns of time" \
    awk 'NR > 2 && /^(gpu|job)/ { if (length($0) != 110) exit 1; n++ } END { exit n != 16 }' load.out

# -------------------------------------------------------------- the SVG --
"$BENCH" waterfall load.json --svg load.svg --no-chart >/dev/null 2>svg.err
check "--svg (exit 0)" [ $? = 0 ]
if command -v xmllint >/dev/null; then
    check "the SVG is valid XML (xmllint --noout)" xmllint --noout load.svg
else
    bad "xmllint is missing (Debian: libxml2-utils)"
fi
check "the SVG has a row per partition (14)" [ "$(grep -c '>job [0-9]* p[0-9]*</text>' load.svg)" = 14 ]
check "  ... two GPU lanes" [ "$(grep -c '>gpu[0-9]</text>' load.svg)" = 2 ]
check "  ... a legend with every stage" grep -q '>MSM B (G2)</text>' load.svg
check "  ... a time axis with ticks" grep -q 'text-anchor="middle">10s</text>' load.svg
"$BENCH" waterfall hand.log --svg hand.svg --no-chart >/dev/null 2>&1
check "the hand-made timeline's SVG is valid XML" xmllint --noout hand.svg

# ------------------------------------ the analysis, against awk and sort --
analysis load load.json
check "--json (exit 0)" [ $? = 0 ]
# From the log lines: every attempt's prove_start..prove_end per device,
# the wall from the first to the last event of a job (key events are not).
grep -o 't=[0-9.]* seq=[0-9]* [a-z_]* job=[0-9]* part=[0-9a-z]* dev=[0-9]* try=[0-9]*' load.log |
    awk '{
        split(substr($1, 3), s, "."); t = s[1] * 1000000 + s[2]
        kind = $3; job = substr($4, 5); id = $4 " " $5 " " $7
        if (job > 0 && kind != "key") { if (t0 == "" || t < t0) t0 = t; if (t > t1) t1 = t }
        if (kind == "prove_start") { st[id] = t; dv[id] = substr($6, 5); jb[id] = job }
        if (kind == "prove_end") en[id] = t
    } END {
        printf "wall %d %d\n", t0, t1 > "wall.txt"
        for (id in st) printf "%d %d %d %d\n", dv[id], st[id], en[id], jb[id]
    }' | sort -n -k1,1 -k2,2 >attempts.txt
awk -v wall="$(awk '{ print $3 - $2 }' wall.txt)" '
    function flush() {
        if (d == "") return
        busy[d] += b - a
    }
    {
        if ($1 != d) { flush(); d = $1; a = $2; b = $3; n[d] = 0; next }
        if ($2 <= b) { if ($3 > b) b = $3; next }
        flush()
        g = $2 - b
        k = g < 50000 ? 0 : g <= 500000 ? 1 : 2
        gc[d, k]++; gt[d, k] += g
        a = $2; b = $3
    } END {
        flush()
        for (x in busy) {
            printf "devices.%d.busy_us %d\n", x, busy[x]
            printf "devices.%d.efficiency %.9f\n", x, busy[x] / wall
            for (k = 0; k < 3; k++) {
                name = k == 0 ? "lt_50ms" : k == 1 ? "50_500ms" : "gt_500ms"
                printf "devices.%d.gaps.%s.count %d\n", x, name, gc[x, k]
                printf "devices.%d.gaps.%s.total_us %d\n", x, name, gt[x, k]
            }
        }
        printf "wall_us %d\n", wall
    }' attempts.txt >expected.txt
check "awk found the two devices' attempts (14)" [ "$(wc -l <attempts.txt)" = 14 ]
while read -r key val; do
    check_num load.flat "$key" "$val"
done <expected.txt
# Job transitions on a device: consecutive attempts of different jobs.
awk '{ if (NR > 1 && $1 == d && $4 != j) n[d]++; d = $1; j = $4 } END { for (x in n) print x, n[x] }' \
    attempts.txt >trans.txt
while read -r dev n; do
    check_num load.flat "devices.$dev.transitions" "$n"
done <trans.txt
check_num load.flat partitions 14
check_num load.flat jobs 5
# Peak memory: the largest of the mem lines' fields.
for f in rss:peak_rss_bytes pinned:peak_pinned_bytes device_bytes:peak_device_bytes; do
    max=$(grep -o " ${f%%:*}=[0-9]*" load.log | cut -d= -f2 | sort -n | tail -1)
    check_num load.flat "memory.${f#*:}" "$max"
done

# ----------------------------------------------- the hand-made timeline --
# hand.log (tests/data/timeline/README.md draws it): wall 0 .. 2.310 s (the
# key event at 3.0 s is not a job's).
#   gpu0: job 1 p0 [0.200, 0.700], job 1 p1 try 2 [0.730, 1.230]
#         busy 1.000 s = 1000000/2310000 = 0.432900433; one gap of 30 ms
#         (< 50 ms); idle 0.200 s before, 1.080 s after; no transition.
#   gpu1: job 1 p1 try 1 [0.220, 0.320] (failed), job 2 p0 [0.400, 0.650],
#         job 3 p0 [2.000, 2.300] (canceled): busy 0.650 s = 0.281385281;
#         gaps 80 ms (50-500 ms) and 1350 ms (> 500 ms); transitions 2
#         (1 -> 2 after 80 ms, 2 -> 3 after 1350 ms).
#   all: 1.650 / (2 * 2.310) = 0.357142857.
# In flight: j1p0 [0.010, 0.720], j1p1 [0.110, 1.250], j2p0 [0.210,
# 0.660], j3p0 [1.300, 2.300]. Alone: j1p0's witness [0.010, 0.110], j1p1's
# second attempt [0.730, 1.230] and its verify, j3p0's witness. So for c1:
# rows load {50, 20} mean 35 against iso {50}: 0.7; prove load {460, 200}
# mean 330 against {460}: 0.717391304; assemble load {10, 20} against
# {10}: 1.5; verify load {15, 10} mean 12.5 against {15}.
analysis hand hand.log
check "--json of hand.log (exit 0)" [ $? = 0 ]
while read -r key val; do
    check_num hand.flat "$key" "$val"
done <<'EOF'
wall_us 2310000
gpu_efficiency 0.357142857
devices.0.attempts 2
devices.0.busy_us 1000000
devices.0.efficiency 0.432900433
devices.0.idle_before_us 200000
devices.0.idle_after_us 1080000
devices.0.gaps.lt_50ms.count 1
devices.0.gaps.lt_50ms.total_us 30000
devices.0.gaps.50_500ms.count 0
devices.0.gaps.gt_500ms.count 0
devices.0.transitions 0
devices.0.within_job 1
devices.0.within_job_gap_us 30000
devices.1.attempts 3
devices.1.busy_us 650000
devices.1.efficiency 0.281385281
devices.1.gaps.lt_50ms.count 0
devices.1.gaps.50_500ms.count 1
devices.1.gaps.50_500ms.total_us 80000
devices.1.gaps.gt_500ms.count 1
devices.1.gaps.gt_500ms.total_us 1350000
devices.1.transitions 2
devices.1.transition_gap_us 1430000
devices.1.transition_gap_max_us 1350000
job_states.done 2
job_states.canceled 1
partitions 4
retries 1
key_changes 1
stages.0.load.n 2
stages.0.load.mean_ms 100
stages.0.isolation.n 1
stages.1.load.mean_ms 35
stages.1.isolation.mean_ms 50
stages.1.inflation 0.7
stages.6.inflation 1.5
stages.7.load.mean_ms 12.5
stages.7.isolation.mean_ms 15
stages.8.load.n 2
stages.8.load.mean_ms 330
stages.8.load.median_ms 330
stages.8.isolation.mean_ms 460
stages.8.inflation 0.717391304
stages.9.isolation.n 1
memory.samples 9
memory.peak_rss_bytes 300000000
memory.peak_rss_at_us 700000
memory.peak_pinned_bytes 6000000
memory.peak_device_bytes 45000000
memory.peak_device 1
EOF
check "stage rows name their stage (stages.8 is c1's prove)" \
    [ "$(jget hand.flat stages.8.stage)$(jget hand.flat stages.8.circuit)" = '"prove""c1"' ]
check "c2 has no sample under load" [ "$(jget hand.flat stages.9.load)" = null ]
# A baseline: the hand-made timeline against itself is no inflation.
analysis self hand.log --baseline hand.log
check_num self.flat stages.8.inflation 1
check_num self.flat stages.8.isolation.n 3
# An attempt that began before the window (its start from the prover's
# 5 s total, 4 s before the first event) is busy from the window's start
# only: busy 1 s of a 2 s wall, not 5 s (250%).
cat >pre.log <<'EOF2'
cuzk serve: t=10.000000 seq=1 queued job=1 part=all dev=0 try=0 ms=0.000 circuit=c1
cuzk serve: t=11.000000 seq=2 prove_end job=1 part=0 dev=0 try=1 ms=5000.000 circuit=c1
cuzk serve: t=12.000000 seq=3 done job=1 part=all dev=0 try=0 ms=2000.000 circuit=c1
EOF2
analysis pre pre.log
check_num pre.flat devices.0.busy_us 1000000
check_num pre.flat devices.0.efficiency 0.5
check_num pre.flat devices.0.idle_before_us 0
# An attempt on the CPU fallback lane (prove_start ... lane=cpu) is its
# partition's, not the device's: the lane is busy 1 s of 3 (the failed GPU
# attempt), and no stage sample comes from the CPU's H.
cat >cpu.log <<'EOF2'
cuzk serve: t=10.000000 seq=1 queued job=1 part=all dev=0 try=0 ms=0.000 circuit=c1
cuzk serve: t=10.000000 seq=2 prove_start job=1 part=0 dev=0 try=1 ms=0.000 circuit=c1
cuzk serve: t=11.000000 seq=3 prove_end job=1 part=0 dev=0 try=1 ms=1000.000 status=CUDA error circuit=c1
cuzk serve: t=11.000000 seq=4 retry job=1 part=0 dev=0 try=1 ms=0.000 status=CUDA error circuit=c1
cuzk serve: t=11.000000 seq=5 prove_start job=1 part=0 dev=0 try=2 ms=0.000 lane=cpu circuit=c1
cuzk serve: t=13.000000 seq=6 stage job=1 part=0 dev=0 try=2 ms=1500.000 stage=H (NTTs) circuit=c1
cuzk serve: t=13.000000 seq=7 prove_end job=1 part=0 dev=0 try=2 ms=2000.000 circuit=c1
cuzk serve: t=13.000000 seq=8 done job=1 part=all dev=0 try=0 ms=3000.000 circuit=c1
EOF2
analysis cpu cpu.log
check_num cpu.flat devices.0.busy_us 1000000
check_num cpu.flat devices.0.attempts 1
check "  ... and no stage sample from the CPU lane" sh -c '! grep -q "^stages\." cpu.flat'
"$BENCH" waterfall cpu.log --no-chart --save cpu.json >/dev/null 2>&1
analysis cpu2 cpu.json
check_num cpu2.flat devices.0.busy_us 1000000
# ... and drawn on a lane of its own, after the GPU's (1 s of 3 there, 2 s
# here: 10 and 20 of 30 columns).
"$BENCH" waterfall cpu.log --width 30 >cpu.out 2>&1
check "the text waterfall has a cpu lane" \
    grep -q '^gpu0     AAAAAAAAAA\.\.\.\.\.\.\.\.\.\.\.\.\.\.\.\.\.\.\.\.$' cpu.out
check "  ... with the CPU attempt on it" \
    grep -q '^cpu      \.\.\.\.\.\.\.\.\.\.AAAAAAAAAAAAAAAAAAAA$' cpu.out
"$BENCH" waterfall cpu.log --svg cpu.svg --no-chart >/dev/null 2>&1
check "  ... and so has the SVG (valid XML)" \
    sh -c 'xmllint --noout cpu.svg && grep -q ">cpu</text>" cpu.svg'
sed 's/ lane=cpu / lane=gpu /' cpu.log >lane.log
"$BENCH" waterfall lane.log >lane.out 2>lane.err
rc=$?
check "an unknown lane is refused (exit 1)" [ $rc = 1 ]
check "  ... naming the field" grep -q 'malformed timeline line (at "lane")' lane.err

# -------------------------------------------------------------- bad input --
# expect_fail WHAT CODE PATTERN ARGS...: exits CODE, stderr matches PATTERN.
expect_fail() {
    what=$1 code=$2 pat=$3
    shift 3
    "$BENCH" waterfall "$@" >bad.out 2>bad.err
    rc=$?
    if [ "$rc" = "$code" ] && grep -q -- "$pat" bad.err; then
        ok "$what: exit $rc, $(head -1 bad.err)"
    else
        bad "$what: exit $rc (expected $code), stderr: $(head -3 bad.err)"
    fi
}
: >empty.json
expect_fail "an empty file" 1 "empty.json: empty file" empty.json
printf '  \n\n' >blank.log
expect_fail "a file of blanks" 1 "blank.log: empty file" blank.log
head -c 3000 load.json >trunc.json
expect_fail "truncated JSON" 1 "trunc.json: line .*truncated" trunc.json
sed '0,/"kind":"verified"/s//"kind":"verifyed"/' load.json >kind.json
expect_fail "an unknown event kind (JSON)" 1 'kind.json: event [0-9]*: unknown event kind "verifyed"' kind.json
sed '0,/ verified job=/s// verifyed job=/' load.log >kind.log
expect_fail "an unknown event kind (log)" 1 'kind.log:[0-9]*: unknown event kind "verifyed"' kind.log
printf 'cuzk serve: t=1.000000 seq=1 prove_end job=x part=0 dev=0 try=1 ms=1.000 circuit=c\n' >mal.log
expect_fail "a malformed log line" 1 'mal.log:1: malformed timeline line (at "job")' mal.log
head -c 2000 load.log >cut.log
expect_fail "a log line cut short" 1 "cut.log:[0-9]*: malformed timeline line" cut.log
printf 'hello\nworld\n' >text.log
expect_fail "a text without events" 1 "text.log: no timeline events" text.log
printf '{"events": 5}' >noarr.json
expect_fail "no events array" 1 'noarr.json: no "events" array' noarr.json
printf '{"events": [{"kind": "done", "job": 1, "partition": null}]}' >not.json
expect_fail "an event without t_us" 1 'not.json: event 0: "t_us" missing' not.json
printf '{"events": [{"seq": 1, "t_us": 5, "kind": "key", "job": 0, "partition": null}]}' >key.json
expect_fail "no job in the timeline" 1 "key.json: no job in the timeline" key.json
printf 't=1.0 seq=1 \000 x\n' >nul.log
expect_fail "a binary file" 1 "nul.log: holds NUL bytes" nul.log
expect_fail "a missing file" 1 "nope.json: No such file" nope.json
expect_fail "a bad baseline" 1 "empty.json: empty file" load.json --baseline empty.json
expect_fail "an unwritable --svg" 1 "no/such/dir/x.svg" load.json --svg no/such/dir/x.svg
export CUZK_ADDR=unix:$W/none.sock # without FILE: the daemon at $CUZK_ADDR
expect_fail "no file and no daemon" 1 "cannot connect to unix:$W/none.sock"
unset CUZK_ADDR
expect_fail "a file and --addr" 2 "a FILE or a daemon" load.json --addr unix:x.sock
expect_fail "--since x" 2 "since: expected a cursor" --since x
expect_fail "--duration -1" 2 "duration: expected seconds" --duration -1
expect_fail "--width 5" 2 "width: expected 10..10000" load.json --width 5
expect_fail "--width x" 2 "width: expected 10..10000" load.json --width x
expect_fail "an unknown option" 2 "unknown option '--nope'" load.json --nope
expect_fail "two files" 2 "one timeline file" load.json load.log

if [ "$NFAIL" != 0 ]; then
    echo "$NFAIL checks failed"
    exit 1
fi
echo "all waterfall tests passed"
