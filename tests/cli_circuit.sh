#!/usr/bin/env bash
# The built-in circuit flow of the cuzk tool, end to end:
#
#   cuzk setup --circuit porep-32g --size 16 --out k.cuzk
#   cuzk prove --circuit porep-32g --size 16 --key k.cuzk --seed 1 ...
#   cuzk export-vk --key k.cuzk --out vk.json
#   cuzk verify --vk vk.json ...                       -> exit 0, "valid"
#
# then the same with --inputs (a written JSON with explicit challenges) and
# --format filecoin, a tampered public.json (verify exits 1), and unusable
# input: each exits 2 with a one-line "cuzk: ..." message naming what is
# wrong, and writes no proof.
#
#   bash tests/cli_circuit.sh CUZK_BINARY WORK_DIR
#
# Exit 0 when every check passes, 1 otherwise.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: cli_circuit.sh CUZK_BINARY WORK_DIR" >&2
  exit 2
fi
CUZK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
W=$2
rm -rf "$W" && mkdir -p "$W" || exit 2
cd "$W" || exit 2
fails=0
checks=0

ok() { checks=$((checks + 1)); echo "ok: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1" >&2; }

# run_ok WHAT CMD...: the command exits 0.
run_ok() {
  local what=$1; shift
  if "$@" > out.txt 2> err.txt; then ok "$what"; else
    bad "$what (exit $?)"; cat err.txt >&2; fi
}

# run_exit WHAT STATUS PATTERN CMD...: exits STATUS, and stderr is one
# "cuzk: ..." line matching PATTERN (grep -E).
run_exit() {
  local what=$1 want=$2 pat=$3; shift 3
  rm -f proof_bad.json
  "$@" > out.txt 2> err.txt
  local got=$?
  if [ "$got" -ne "$want" ]; then
    bad "$what: exit $got, expected $want"; cat err.txt >&2; return; fi
  if [ "$want" -eq 2 ]; then
    if [ "$(wc -l < err.txt)" -ne 1 ] || ! grep -q '^cuzk: ' err.txt; then
      bad "$what: not one 'cuzk: ' line:"; cat err.txt >&2; return; fi
    if ! grep -Eq "$pat" err.txt; then
      bad "$what: message does not match /$pat/:"; cat err.txt >&2; return; fi
    if [ -e proof_bad.json ]; then bad "$what: wrote a proof"; return; fi
  fi
  ok "$what"
}

C=(--circuit porep-32g --size 16)
run_ok "setup --circuit" "$CUZK" setup "${C[@]}" --out k.cuzk --seed 7 --quiet
run_ok "setup --circuit (another circuit)" \
  "$CUZK" setup --circuit winning-32g --size 12 --out w.cuzk --seed 8 --quiet
run_ok "export-vk" "$CUZK" export-vk --key k.cuzk --out vk.json
grep -q '"protocol": "groth16"' vk.json && grep -q '"nPublic": 4' vk.json \
  && ok "vk.json is snarkjs's (groth16, 4 public)" || bad "vk.json content"

run_ok "prove --circuit --seed" "$CUZK" prove "${C[@]}" --key k.cuzk --seed 1 \
  --proof proof.json --public public.json --quiet
run_exit "verify (seed 1)" 0 "" "$CUZK" verify --vk vk.json --proof proof.json --public public.json
grep -qx valid out.txt && ok "verify says valid" || bad "verify output: $(cat out.txt)"

# A JSON job with explicit challenges in partition 9, the filecoin format.
echo '{"seed": 12345, "partition": 9, "challenges": [63]}' > in.json
run_ok "prove --circuit --inputs --format filecoin" "$CUZK" prove "${C[@]}" --key k.cuzk \
  --inputs in.json --proof proof.bin --format filecoin --public public2.json --quiet
[ "$(wc -c < proof.bin)" -eq 192 ] && ok "filecoin proof is 192 bytes" || bad "proof.bin size"
cmp -s public.json public2.json && bad "another job, same public inputs" \
  || ok "another job has other public inputs"
run_ok "prove --circuit --inputs (json)" "$CUZK" prove "${C[@]}" --key k.cuzk \
  --inputs in.json --proof proof2.json --public public2.json --quiet
run_exit "verify (inputs json)" 0 "" "$CUZK" verify --vk vk.json --proof proof2.json \
  --public public2.json
# The first proof against the second job's public inputs: invalid.
run_exit "verify, public inputs of another job" 1 "" "$CUZK" verify --vk vk.json \
  --proof proof.json --public public2.json

# The witness through a .wtns proves the same way.
run_ok "witness --seed" "$CUZK" witness "${C[@]}" --seed 1 --out w1.wtns --quiet
run_ok "prove --wtns" "$CUZK" prove --key k.cuzk --wtns w1.wtns --proof proof3.json \
  --public public3.json --quiet
cmp -s public.json public3.json && ok "same public inputs via .wtns" || bad "public3.json"

# Unusable input: exit 2, one line naming it, no proof written.
P=(--proof proof_bad.json --public public_bad.json --quiet)
run_exit "missing key" 2 "nothere.cuzk" "$CUZK" prove "${C[@]}" --key nothere.cuzk --seed 1 "${P[@]}"
run_exit "key of another circuit" 2 "w.cuzk.*another circuit" \
  "$CUZK" prove "${C[@]}" --key w.cuzk --seed 1 "${P[@]}"
run_exit "key of another size" 2 "k.cuzk.*another circuit or size" \
  "$CUZK" prove --circuit porep-32g --size 17 --key k.cuzk --seed 1 "${P[@]}"
printf '{"seed": 1, "partition": ' > trunc.json
run_exit "corrupt inputs json" 2 "trunc.json.*not JSON" \
  "$CUZK" prove "${C[@]}" --key k.cuzk --inputs trunc.json "${P[@]}"
echo '{"seed": 1, "partition": 10}' > part.json
run_exit "partition out of range" 2 "part.json.*partition" \
  "$CUZK" prove "${C[@]}" --key k.cuzk --inputs part.json "${P[@]}"
echo '{"seed": 1, "partition": 0, "challenges": [64]}' > chal.json
run_exit "challenge out of range" 2 "chal.json.*challenge" \
  "$CUZK" prove "${C[@]}" --key k.cuzk --inputs chal.json "${P[@]}"
run_exit "missing inputs file" 2 "none.json" \
  "$CUZK" prove "${C[@]}" --key k.cuzk --inputs none.json "${P[@]}"
run_exit "unknown circuit" 2 "unknown circuit 'nope'" \
  "$CUZK" prove --circuit nope --key k.cuzk --seed 1 "${P[@]}"
run_exit "--seed and --inputs" 2 "exactly one of --inputs and --seed" \
  "$CUZK" prove "${C[@]}" --key k.cuzk --seed 1 --inputs in.json "${P[@]}"
run_exit "--seed without --circuit" 2 "go with --circuit" \
  "$CUZK" prove --key k.cuzk --wtns w1.wtns --seed 1 "${P[@]}"
run_exit "bad --size" 2 "size" "$CUZK" prove --circuit porep-32g --size 9 --key k.cuzk --seed 1 "${P[@]}"
head -c 5000 k.cuzk > trunc.cuzk
run_exit "truncated key" 2 "trunc.cuzk" "$CUZK" prove "${C[@]}" --key trunc.cuzk --seed 1 "${P[@]}"
run_exit "info: truncated key" 2 "truncated.*trunc.cuzk" "$CUZK" info trunc.cuzk
run_ok "info: key file" "$CUZK" info k.cuzk
grep -q "cuzk key file, version 2" out.txt && grep -q "in B" out.txt && ok "info describes the key" \
  || bad "info output: $(cat out.txt)"
run_exit "setup: unknown circuit" 2 "unknown circuit" "$CUZK" setup --circuit nope --out x.cuzk
run_exit "setup: --r1cs and --circuit" 2 "one of them" \
  "$CUZK" setup --circuit porep-32g --r1cs x.r1cs --out x.cuzk
run_exit "setup: --no-matrices without --out" 2 "no-matrices goes with --out" \
  "$CUZK" setup "${C[@]}" --no-matrices --zkey x.zkey
run_ok "setup --no-matrices --cpu" "$CUZK" setup "${C[@]}" --out nm.cuzk --seed 7 --no-matrices --cpu --quiet
if [ -s nm.cuzk ] && [ "$(wc -c < nm.cuzk)" -lt "$(wc -c < k.cuzk)" ]; then
  ok "a key without matrices is smaller"; else bad "nm.cuzk size"; fi
run_exit "prove: key without matrices" 2 "nm.cuzk.*no matrices" \
  "$CUZK" prove "${C[@]}" --key nm.cuzk --seed 1 "${P[@]}"
run_ok "compile the circuit's PCE" "$CUZK" compile "${C[@]}" --out c.pce
run_ok "prove: key without matrices, with --pce" \
  "$CUZK" prove "${C[@]}" --key nm.cuzk --pce c.pce --seed 3 --proof p_nm.json --public pub_nm.json --quiet
"$CUZK" export-vk --key nm.cuzk --out vk_nm.json 2> err.txt
run_exit "verify the --pce proof" 0 "" "$CUZK" verify --vk vk_nm.json --proof p_nm.json --public pub_nm.json
run_ok "prove: key with matrices, with --pce" \
  "$CUZK" prove "${C[@]}" --key k.cuzk --pce c.pce --seed 3 --proof p_m.json --public pub_m.json --quiet
"$CUZK" compile --circuit winning-32g --size 12 --out w.pce 2> err.txt > /dev/null
run_exit "prove: the PCE of another circuit" 2 "w.pce.*another circuit" \
  "$CUZK" prove "${C[@]}" --key nm.cuzk --pce w.pce --seed 3 "${P[@]}"
run_exit "prove: missing PCE" 2 "none.pce" \
  "$CUZK" prove "${C[@]}" --key nm.cuzk --pce none.pce --seed 3 "${P[@]}"
# A snarkjs key imported with its PCE (a zkey has no C: c = a o b).
run_ok "setup --zkey" "$CUZK" setup "${C[@]}" --zkey kz.zkey --seed 9 --cpu --quiet
run_ok "import --zkey --pce" "$CUZK" import --zkey kz.zkey --out kz.cuzk --pce kz.pce --quiet
run_ok "prove: imported key with its PCE" \
  "$CUZK" prove "${C[@]}" --key kz.cuzk --pce kz.pce --seed 4 --proof p_z.json --public pub_z.json --quiet
"$CUZK" export-vk --key kz.cuzk --out vk_z.json 2> err.txt
run_exit "verify the imported key's proof" 0 "" "$CUZK" verify --vk vk_z.json --proof p_z.json --public pub_z.json
run_exit "export-vk: not a key" 2 "not a cuzk key.*in.json" "$CUZK" export-vk --key in.json --out v.json
if [ -e x.cuzk ] || [ -e v.json ] || [ -e x.zkey ]; then bad "a failed command wrote its output"
else ok "no output on failure"; fi

echo "cli_circuit: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
