#!/usr/bin/env bash
# The cuzk <-> snarkjs interoperability suite (see README.md).
#
#   bash tests/interop/run.sh CUZK_BINARY WORK_DIR
#
# For each circuit in circuits/ (compiled by circom2 --prime bls12381, keyed
# by snarkjs groth16 setup + one zkey contribution):
#   1. cuzk prove -> snarkjs groth16 verify accepts (and cuzk verify)
#   2. snarkjs groth16 prove -> cuzk verify exits 0
#   3. tampered proofs and public inputs -> snarkjs rejects, cuzk verify exits 1
#   4. an unsatisfying witness -> cuzk prove fails (naming the constraint
#      with --r1cs), writes no proof
#   5. unusable inputs (truncated, BN254, wrong length, off-curve points) ->
#      exit 2 with a one-line "cuzk: ..." message, never a crash
#   6. cuzk setup --zkey (an insecure key) -> snarkjs exports its vk and
#      proves with it, snarkjs and cuzk verify; cuzk prove --key -> snarkjs
#      verify accepts
#
# Everything that depends only on snarkjs/circom (compiled circuits,
# witnesses, keys, snarkjs proofs) is cached under WORK_DIR/cache (or
# $CUZK_INTEROP_CACHE) and rebuilt when its inputs change, so a second run
# only runs the checks. node_modules lives next to this script and is
# (re)installed by `npm ci` when package-lock.json changes.
#
# Environment:
#   CUZK_INTEROP_CACHE   cache directory (default WORK_DIR/cache)
#   CUZK_INTEROP_BIG=1   also run chain14 (domain 2^14); the first run makes a
#                        power-14 ptau (about 10 min on 2 cores), then cached
#   CUZK_INTEROP_ONLY    space-separated circuit names to run (default: all)
#
# Exit: 0 all checks pass; 1 a check failed; 2 usage or setup failure;
# 77 node/npm not installed (ctest SKIP_RETURN_CODE).
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: run.sh CUZK_BINARY WORK_DIR" >&2
  exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CUZK=$1
[ -x "$CUZK" ] || { echo "run.sh: $CUZK is not an executable" >&2; exit 2; }
CUZK=$(cd "$(dirname "$CUZK")" && pwd)/$(basename "$CUZK")
mkdir -p "$2"
WORK=$(cd "$2" && pwd)
CACHE=${CUZK_INTEROP_CACHE:-$WORK/cache}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
RUN=$WORK/run
rm -rf "$RUN"
mkdir -p "$RUN"

for tool in node npm; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool not found (the interop suite needs node >= 18 and npm)"
    exit 77
  fi
done

now_us() { echo "${EPOCHREALTIME/./}"; }
secs_since() { # START_US: seconds since START_US, one decimal
  local d=$(($(now_us) - $1))
  printf '%d.%d' $((d / 1000000)) $((d % 1000000 / 100000))
}
T_START=$(now_us)
declare -a TIMES=()
stamp() { # NAME START_US: records the seconds since START_US
  TIMES+=("$(printf '%-48s %7s s' "$1" "$(secs_since "$2")")")
}
log() { printf '== %s\n' "$*"; }
die() { echo "run.sh: $*" >&2; exit 2; }
# fresh OUT DEP...: OUT exists and is newer than every DEP.
fresh() {
  local out=$1 d
  shift
  [ -e "$out" ] || return 1
  for d in "$@"; do [ "$out" -nt "$d" ] || return 1; done
  return 0
}
# quietly CMD...: runs CMD, shows its output only if it fails.
quietly() {
  local out
  if ! out=$("$@" 2>&1); then
    printf '%s\n' "$out" | tail -20 >&2
    die "failed: $*"
  fi
}

# ------------------------------------------------------------ node_modules --
NM=$HERE/node_modules
LOCK_SUM=$(sha256sum "$HERE/package-lock.json" | cut -d' ' -f1)
t=$(now_us)
(
  if command -v flock >/dev/null; then flock 9; fi
  if [ "$(cat "$NM/.cuzk-lock-sha256" 2>/dev/null)" != "$LOCK_SUM" ] ||
     [ ! -x "$NM/.bin/snarkjs" ] || [ ! -x "$NM/.bin/circom2" ]; then
    log "npm ci (tests/interop)"
    (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error) >&2 || die "npm ci failed"
    echo "$LOCK_SUM" > "$NM/.cuzk-lock-sha256"
  fi
) 9>"$HERE/.npm-lock"
stamp "npm ci (skipped when current)" "$t"
SJ=$NM/.bin/snarkjs
CIRCOM=$NM/.bin/circom2
SNARKJS_VERSION=$(node -p "require('$NM/snarkjs/package.json').version")
CIRCOM_VERSION=$(node -p "require('$NM/circom2/package.json').version")
log "snarkjs $SNARKJS_VERSION, circom2 $CIRCOM_VERSION, node $(node --version), cuzk $CUZK"

# ------------------------------------------------------------------ ptau --
CIRCUITS=(mulchain poseidon manypub chain12)
declare -A PTAU=([mulchain]=12 [poseidon]=12 [manypub]=12 [chain12]=12 [chain14]=14)
PTAU12=$HERE/data/pot12.ptau
PTAU14=$CACHE/pot14.ptau
[ "${CUZK_INTEROP_BIG:-0}" = 1 ] && CIRCUITS+=(chain14)
if [ -n "${CUZK_INTEROP_ONLY:-}" ]; then
  read -r -a CIRCUITS <<<"$CUZK_INTEROP_ONLY"
fi
for c in "${CIRCUITS[@]}"; do
  [ -n "${PTAU[$c]:-}" ] || die "unknown circuit '$c' (known: ${!PTAU[*]})"
  if [ "${PTAU[$c]}" = 14 ] && [ ! -s "$PTAU14" ]; then
    log "making a power-14 ptau (slow: about 10 min on 2 cores; cached in $CACHE)"
    t=$(now_us)
    quietly bash "$HERE/make_ptau.sh" 14 "$PTAU14" "$NM"
    stamp "ptau power 14 (new + contribute + prepare)" "$t"
  fi
done
[ -s "$PTAU12" ] || die "$PTAU12 is missing (make it with make_ptau.sh 12)"
ptau_of() { if [ "${PTAU[$1]}" = 14 ]; then echo "$PTAU14"; else echo "$PTAU12"; fi; }

# ------------------------------------------------- snarkjs/circom artifacts --
# CACHE/C/: C.r1cs, C_js/, C.wtns, C.zkey (setup + one contribution),
# vk.json, proof.json + public.json (by snarkjs).
build_circuit() {
  local c=$1 d=$CACHE/$1 src=$HERE/circuits/$1.circom input=$HERE/circuits/$1.input.json
  local ptau t
  ptau=$(ptau_of "$c")
  [ -f "$src" ] || die "no circuit $src"
  mkdir -p "$d"
  local deps_src=("$src" "$HERE/circuits/poseidon_chain.circom" "$HERE/package-lock.json")
  if ! fresh "$d/$c.r1cs" "${deps_src[@]}"; then
    log "$c: compile"
    t=$(now_us)
    rm -rf "$d/$c.r1cs" "$d/${c}_js"
    # circom2 runs under WASI and sees only the current directory and below
    # (not .., not symlinks), so the sources and circomlib are staged in the
    # cache and compiled with relative paths from there.
    rm -rf "$CACHE/src"
    mkdir -p "$CACHE/src/lib/circomlib"
    cp "$HERE"/circuits/*.circom "$CACHE/src/"
    cp -r "$NM/circomlib/circuits" "$CACHE/src/lib/circomlib/"
    (cd "$CACHE" && quietly "$CIRCOM" "src/$c.circom" --r1cs --wasm --prime bls12381 -l src/lib -o "$c")
    stamp "$c: circom2 compile" "$t"
  fi
  if ! fresh "$d/$c.wtns" "$d/$c.r1cs" "$input"; then
    log "$c: witness"
    t=$(now_us)
    quietly node "$d/${c}_js/generate_witness.js" "$d/${c}_js/$c.wasm" "$input" "$d/$c.wtns.tmp"
    quietly "$SJ" wtns check "$d/$c.r1cs" "$d/$c.wtns.tmp"
    mv "$d/$c.wtns.tmp" "$d/$c.wtns"
    stamp "$c: witness (generate_witness.js + wtns check)" "$t"
  fi
  if ! fresh "$d/$c.zkey" "$d/$c.r1cs" "$ptau"; then
    log "$c: groth16 setup + zkey contribute"
    t=$(now_us)
    quietly "$SJ" groth16 setup "$d/$c.r1cs" "$ptau" "$d/${c}_0.zkey"
    stamp "$c: snarkjs groth16 setup" "$t"
    t=$(now_us)
    quietly "$SJ" zkey contribute "$d/${c}_0.zkey" "$d/$c.zkey.tmp" --name="cuzk interop" \
      -e="cuzk interop zkey entropy $c"
    rm -f "$d/${c}_0.zkey"
    mv "$d/$c.zkey.tmp" "$d/$c.zkey"
    stamp "$c: snarkjs zkey contribute" "$t"
  fi
  if ! fresh "$d/vk.json" "$d/$c.zkey"; then
    quietly "$SJ" zkey export verificationkey "$d/$c.zkey" "$d/vk.tmp.json"
    mv "$d/vk.tmp.json" "$d/vk.json"
  fi
  if ! fresh "$d/proof.json" "$d/$c.zkey" "$d/$c.wtns"; then
    log "$c: snarkjs groth16 prove"
    t=$(now_us)
    quietly "$SJ" groth16 prove "$d/$c.zkey" "$d/$c.wtns" "$d/proof.tmp" "$d/public.json"
    mv "$d/proof.tmp" "$d/proof.json"
    stamp "$c: snarkjs groth16 prove" "$t"
  fi
}

# ----------------------------------------------------------------- checks --
PASSED=0
FAILED=0
FAILURES=()
pass() { PASSED=$((PASSED + 1)); printf 'PASS  %s\n' "$1"; }
fail() {
  FAILED=$((FAILED + 1))
  FAILURES+=("$1")
  printf 'FAIL  %s: %s\n' "$1" "$2"
}
# run_cmd LOG CMD...: runs CMD with stdout/stderr in LOG.out/LOG.err; sets RC.
run_cmd() {
  local logf=$1
  shift
  set +e
  "$@" >"$logf.out" 2>"$logf.err"
  RC=$?
  set -e
}
first_line() { head -n 1 "$1" | cut -c1-160; }

# expect NAME WANT [MATCH] -- CMD...: CMD must exit with WANT (nz: any
# non-zero exit below 128). Exit 2 also needs exactly one stderr line
# starting with "cuzk: "; MATCH, when given, is an extended regex that the
# output must match.
expect() {
  local name=$1 want=$2 match=
  shift 2
  if [ "$1" != -- ]; then match=$1; shift; fi
  shift
  local logf=$LOGS/${name//[^A-Za-z0-9_.-]/_}
  run_cmd "$logf" "$@"
  if [ "$RC" -ge 128 ]; then
    fail "$C: $name" "crashed (exit $RC, signal $((RC - 128))): $(first_line "$logf.err")"
    return
  fi
  case $want in
    nz) if [ "$RC" = 0 ]; then fail "$C: $name" "exit 0, expected a failure"; return; fi ;;
    *) if [ "$RC" != "$want" ]; then
         fail "$C: $name" "exit $RC, expected $want: $(first_line "$logf.err")"
         return
       fi ;;
  esac
  if grep -Eq 'Sanitizer|runtime error:' "$logf.err"; then
    fail "$C: $name" "sanitizer report: $(grep -Em1 'Sanitizer|runtime error:' "$logf.err" | cut -c1-160)"
    return
  fi
  if [ "$RC" = 1 ] && ! grep -q '^invalid' "$logf.out"; then
    fail "$C: $name" "exit 1 without 'invalid' on stdout: $(first_line "$logf.err")"
    return
  fi
  if [ "$RC" = 2 ]; then
    local n
    n=$(wc -l <"$logf.err")
    if [ "$n" != 1 ] || ! grep -q '^cuzk: ' "$logf.err"; then
      fail "$C: $name" "expected one line 'cuzk: ...' on stderr, got $n lines: $(first_line "$logf.err")"
      return
    fi
  fi
  if [ -n "$match" ] && ! grep -Eq "$match" "$logf.err" "$logf.out"; then
    fail "$C: $name" "output does not match /$match/: $(first_line "$logf.err")"
    return
  fi
  local msg
  msg=$(first_line "$logf.err")
  pass "$C: $name${msg:+  [$msg]}"
}

# snarkjs_verify NAME WANT(ok|reject) VK PUBLIC PROOF
snarkjs_verify() {
  local name=$1 want=$2 logf=$LOGS/${1//[^A-Za-z0-9_.-]/_}
  run_cmd "$logf" "$SJ" groth16 verify "$3" "$4" "$5"
  if [ "$want" = ok ]; then
    if [ "$RC" = 0 ] && grep -q 'OK' "$logf.out"; then pass "$C: $name"
    else fail "$C: $name" "snarkjs exit $RC: $(first_line "$logf.out")"; fi
  else
    if [ "$RC" != 0 ] && ! grep -q 'OK!' "$logf.out"; then pass "$C: $name"
    else fail "$C: $name" "snarkjs accepted it (exit $RC)"; fi
  fi
}

# no_file NAME PATH: a failed prove must not leave a proof behind.
no_file() {
  if [ -e "$2" ]; then fail "$C: $1" "$2 was written"; else pass "$C: $1"; fi
}

same_json() { # A B: the same JSON value
  node -e 'const fs=require("fs");const [a,b]=process.argv.slice(1).map(f=>JSON.stringify(JSON.parse(fs.readFileSync(f,"utf8"))));process.exit(a===b?0:1)' "$1" "$2"
}

truncate_to() { # IN OUT BYTES
  head -c "$3" "$1" >"$2"
}

check_circuit() {
  C=$1
  local d=$CACHE/$C r=$RUN/$C other=$2 t
  LOGS=$r/logs
  mkdir -p "$LOGS"
  local zkey=$d/$C.zkey wtns=$d/$C.wtns r1cs=$d/$C.r1cs vk=$d/vk.json
  local od=$CACHE/$other
  t=$(now_us)

  # 1. cuzk proves, snarkjs verifies.
  expect "1 cuzk prove --r1cs" 0 -- \
    "$CUZK" prove --zkey "$zkey" --wtns "$wtns" --r1cs "$r1cs" --proof "$r/cz_proof.json" --public "$r/cz_public.json"
  if [ -s "$r/cz_proof.json" ]; then
    snarkjs_verify "1 snarkjs verify accepts cuzk's proof" ok "$vk" "$r/cz_public.json" "$r/cz_proof.json"
    if same_json "$r/cz_public.json" "$d/public.json"; then pass "$C: 1 cuzk public.json = snarkjs public.json"
    else fail "$C: 1 cuzk public.json = snarkjs public.json" "they differ"; fi
    expect "1 cuzk verify accepts cuzk's proof" 0 -- \
      "$CUZK" verify --vk "$vk" --proof "$r/cz_proof.json" --public "$r/cz_public.json"
  else
    fail "$C: 1 snarkjs verify accepts cuzk's proof" "no proof to verify"
  fi
  expect "1 cuzk prove (no --r1cs, --threads 1)" 0 -- \
    "$CUZK" prove --quiet --threads 1 --zkey "$zkey" --wtns "$wtns" --proof "$r/cz_proof1.json" --public "$r/cz_public1.json"
  if [ -s "$r/cz_proof1.json" ]; then
    snarkjs_verify "1 snarkjs verify accepts cuzk's proof (1 thread)" ok "$vk" "$r/cz_public1.json" "$r/cz_proof1.json"
  fi

  # 2. snarkjs proves, cuzk verifies.
  expect "2 cuzk verify accepts snarkjs's proof" 0 -- \
    "$CUZK" verify --vk "$vk" --proof "$d/proof.json" --public "$d/public.json"

  # 3. Tampered proofs (points still on the curve) and public inputs.
  local op
  for op in neg-a neg-b swap-ac; do
    node "$HERE/tools/json_edit.js" "$op" "$d/proof.json" "$r/proof_$op.json"
    snarkjs_verify "3 snarkjs rejects proof $op" reject "$vk" "$d/public.json" "$r/proof_$op.json"
    expect "3 cuzk verify rejects proof $op" 1 -- \
      "$CUZK" verify --vk "$vk" --proof "$r/proof_$op.json" --public "$d/public.json"
  done
  node "$HERE/tools/json_edit.js" bump-pub "$d/public.json" "$r/public_bump.json"
  snarkjs_verify "3 snarkjs rejects public[0]+1" reject "$vk" "$r/public_bump.json" "$d/proof.json"
  expect "3 cuzk verify rejects public[0]+1" 1 -- \
    "$CUZK" verify --vk "$vk" --proof "$d/proof.json" --public "$r/public_bump.json"

  # 4. Unsatisfying witnesses: a private wire in the middle, and public[0].
  local which idx
  for which in mid 1; do
    if [ "$which" = mid ]; then
      idx=$(node -e 'const b=require("fs").readFileSync(process.argv[1]);const n8=b.readUInt32LE(24);console.log(Math.floor(b.readUInt32LE(28+n8)/2))' "$wtns")
    else idx=1; fi
    node "$HERE/tools/wtns_edit.js" "$wtns" "$r/bad_$which.wtns" "$idx" >/dev/null
    expect "4 cuzk prove --r1cs rejects w[$idx]+1" 2 'satisf.*constraint [0-9]+' -- \
      "$CUZK" prove --zkey "$zkey" --wtns "$r/bad_$which.wtns" --r1cs "$r1cs" --proof "$r/bad_$which.json" --public "$r/bad_pub_$which.json"
    no_file "4 no proof written (w[$idx]+1, --r1cs)" "$r/bad_$which.json"
    expect "4 cuzk prove (self-check) rejects w[$idx]+1" 2 'satisf' -- \
      "$CUZK" prove --zkey "$zkey" --wtns "$r/bad_$which.wtns" --proof "$r/bad2_$which.json" --public "$r/bad2_pub_$which.json"
    no_file "4 no proof written (w[$idx]+1, self-check)" "$r/bad2_$which.json"
  done

  # 5. Unusable inputs: exit 2, one line, no crash.
  local f size
  for f in zkey wtns r1cs; do
    local src=$d/$C.$f
    size=$(stat -c %s "$src")
    truncate_to "$src" "$r/half.$f" $((size / 2))
    truncate_to "$src" "$r/short.$f" $((size - 1))
    truncate_to "$src" "$r/head.$f" 10
  done
  : >"$r/empty"
  local P=(--proof "$r/o.json" --public "$r/op.json")
  for f in half short head; do
    expect "5 truncated zkey ($f)" 2 'zkey: ' -- "$CUZK" prove --zkey "$r/$f.zkey" --wtns "$wtns" "${P[@]}"
    expect "5 truncated wtns ($f)" 2 'wtns: ' -- "$CUZK" prove --zkey "$zkey" --wtns "$r/$f.wtns" "${P[@]}"
    expect "5 truncated r1cs ($f)" 2 'r1cs: ' -- "$CUZK" prove --zkey "$zkey" --wtns "$wtns" --r1cs "$r/$f.r1cs" "${P[@]}"
  done
  expect "5 empty zkey" 2 'zkey: ' -- "$CUZK" prove --zkey "$r/empty" --wtns "$wtns" "${P[@]}"
  expect "5 missing zkey" 2 'no-such.zkey' -- "$CUZK" prove --zkey "$r/no-such.zkey" --wtns "$wtns" "${P[@]}"
  expect "5 BN254 zkey" 2 'BN254' -- "$CUZK" prove --zkey "$REPO/tests/data/mul_bn254.zkey" --wtns "$wtns" "${P[@]}"
  expect "5 BN254 wtns" 2 'BN254' -- "$CUZK" prove --zkey "$zkey" --wtns "$REPO/tests/data/mul_bn254.wtns" "${P[@]}"
  expect "5 BN254 r1cs" 2 'BN254' -- "$CUZK" prove --zkey "$zkey" --wtns "$wtns" --r1cs "$REPO/tests/data/mul_bn254.r1cs" "${P[@]}"
  expect "5 witness of $other (wrong length)" 2 '[0-9]+ values' -- "$CUZK" prove --zkey "$zkey" --wtns "$od/$other.wtns" "${P[@]}"
  expect "5 witness of $other with --r1cs" 2 '[0-9]+ values' -- "$CUZK" prove --zkey "$zkey" --wtns "$od/$other.wtns" --r1cs "$r1cs" "${P[@]}"
  expect "5 r1cs of $other" 2 '[0-9]+ wires' -- "$CUZK" prove --zkey "$zkey" --wtns "$wtns" --r1cs "$od/$other.r1cs" "${P[@]}"
  expect "5 a .wtns given as the zkey" 2 'magic' -- "$CUZK" prove --zkey "$wtns" --wtns "$wtns" "${P[@]}"
  no_file "5 no proof written by any of the above" "$r/o.json"

  local json
  for json in vk proof public; do
    local src
    case $json in vk) src=$vk ;; proof) src=$d/proof.json ;; public) src=$d/public.json ;; esac
    size=$(stat -c %s "$src")
    truncate_to "$src" "$r/half_$json.json" $((size / 2))
  done
  expect "5 truncated vk.json" 2 'vk.json' -- "$CUZK" verify --vk "$r/half_vk.json" --proof "$d/proof.json" --public "$d/public.json"
  expect "5 truncated proof.json" 2 'proof.json' -- "$CUZK" verify --vk "$vk" --proof "$r/half_proof.json" --public "$d/public.json"
  expect "5 truncated public.json" 2 'public.json' -- "$CUZK" verify --vk "$vk" --proof "$d/proof.json" --public "$r/half_public.json"
  expect "5 empty proof.json" 2 'empty: proof JSON' -- "$CUZK" verify --vk "$vk" --proof "$r/empty" --public "$d/public.json"
  for op in offcurve-a offcurve-b nosubgroup-a; do
    node "$HERE/tools/json_edit.js" "$op" "$d/proof.json" "$r/proof_$op.json"
    expect "5 proof point $op" 2 'not on the curve|not in G[12]' -- "$CUZK" verify --vk "$vk" --proof "$r/proof_$op.json" --public "$d/public.json"
  done
  # snarkjs reduces coordinates mod q and accepts x + q; cuzk is strict.
  node "$HERE/tools/json_edit.js" noncanon-a "$d/proof.json" "$r/proof_noncanon-a.json"
  expect "5 proof coordinate x + q (non-canonical)" 2 'canonical' -- \
    "$CUZK" verify --vk "$vk" --proof "$r/proof_noncanon-a.json" --public "$d/public.json"
  node "$HERE/tools/json_edit.js" pub-plus-r "$d/public.json" "$r/public_plus_r.json"
  snarkjs_verify "5 snarkjs rejects public[0] + r" reject "$vk" "$r/public_plus_r.json" "$d/proof.json"
  expect "5 cuzk verify refuses public[0] + r (non-canonical)" 2 'canonical' -- \
    "$CUZK" verify --vk "$vk" --proof "$d/proof.json" --public "$r/public_plus_r.json"
  expect "5 public.json of $other" nz -- "$CUZK" verify --vk "$vk" --proof "$d/proof.json" --public "$od/public.json"
  stamp "$C: checks" "$t"

  # 6. cuzk setup (an INSECURE key: for tests only) used by snarkjs, and
  #    cuzk prove --key checked by snarkjs.
  t=$(now_us)
  expect "6 cuzk setup --zkey" 0 -- \
    "$CUZK" setup --quiet --r1cs "$r1cs" --out "$r/setup.cuzk" --zkey "$r/setup.zkey"
  if [ -s "$r/setup.zkey" ] && [ -s "$r/setup.cuzk" ]; then
    run_cmd "$LOGS/6_export_vk" "$SJ" zkey export verificationkey "$r/setup.zkey" "$r/setup_vk.json"
    if [ "$RC" = 0 ]; then pass "$C: 6 snarkjs zkey export verificationkey of our zkey"
    else fail "$C: 6 snarkjs zkey export verificationkey of our zkey" "exit $RC: $(first_line "$LOGS/6_export_vk.err")"; fi
    run_cmd "$LOGS/6_sj_prove" "$SJ" groth16 prove "$r/setup.zkey" "$wtns" "$r/sj_setup_proof.json" "$r/sj_setup_public.json"
    if [ "$RC" = 0 ]; then pass "$C: 6 snarkjs groth16 prove with our zkey"
    else fail "$C: 6 snarkjs groth16 prove with our zkey" "exit $RC: $(first_line "$LOGS/6_sj_prove.err")"; fi
    snarkjs_verify "6 snarkjs verify accepts its proof with our zkey" ok "$r/setup_vk.json" "$r/sj_setup_public.json" "$r/sj_setup_proof.json"
    expect "6 cuzk verify accepts snarkjs's proof with our zkey" 0 -- \
      "$CUZK" verify --vk "$r/setup_vk.json" --proof "$r/sj_setup_proof.json" --public "$r/sj_setup_public.json"
    expect "6 cuzk prove --key" 0 -- \
      "$CUZK" prove --quiet --key "$r/setup.cuzk" --wtns "$wtns" --proof "$r/key_proof.json" --public "$r/key_public.json"
    snarkjs_verify "6 snarkjs verify accepts a cuzk prove --key proof" ok "$r/setup_vk.json" "$r/key_public.json" "$r/key_proof.json"
    snarkjs_verify "6 the snarkjs-made vk rejects it" reject "$vk" "$r/key_public.json" "$r/key_proof.json"
    size=$(stat -c %s "$r/setup.cuzk")
    truncate_to "$r/setup.cuzk" "$r/half.cuzk" $((size / 2))
    expect "6 truncated key file" 2 'key: .*truncated' -- \
      "$CUZK" prove --key "$r/half.cuzk" --wtns "$wtns" --proof "$r/o6.json" --public "$r/op6.json"
    expect "6 witness of $other with our key" 2 '[0-9]+ values' -- \
      "$CUZK" prove --key "$r/setup.cuzk" --wtns "$od/$other.wtns" --proof "$r/o6.json" --public "$r/op6.json"
    no_file "6 no proof written by the refused runs" "$r/o6.json"
  fi
  stamp "$C: setup checks" "$t"
}

log "building the snarkjs artifacts (cached in $CACHE)"
for c in "${CIRCUITS[@]}"; do build_circuit "$c"; done
# Cross-circuit inputs come from the next circuit in the list; with one
# circuit, from mulchain.
if [ ${#CIRCUITS[@]} = 1 ] && [ "${CIRCUITS[0]}" != mulchain ]; then build_circuit mulchain; fi

log "checks"
n=${#CIRCUITS[@]}
for i in "${!CIRCUITS[@]}"; do
  other=${CIRCUITS[$(((i + 1) % n))]}
  [ "$other" = "${CIRCUITS[$i]}" ] && other=mulchain
  check_circuit "${CIRCUITS[$i]}" "$other"
done

echo
echo "times:"
printf '  %s\n' "${TIMES[@]}"
printf '  %-48s %7s s\n' "total" "$(secs_since "$T_START")"
echo
if [ "$FAILED" != 0 ]; then
  echo "interop: FAIL: $FAILED of $((PASSED + FAILED)) checks failed (logs in $RUN):"
  printf '  %s\n' "${FAILURES[@]}"
  exit 1
fi
echo "interop: PASS: all $PASSED checks passed"
