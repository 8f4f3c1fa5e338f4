#!/usr/bin/env bash
# Regenerates the shipped example files (see README.md):
#
#   bash examples/gen.sh [SCRATCH_DIR]
#
# Needs node >= 18 and npm (network for `npm ci`). Uses the pinned tools of
# tests/interop (snarkjs 0.7.6, circom2 0.2.23, circomlib 2.0.5) and its
# committed powers of tau (tests/interop/data/pot12.ptau). The zkey
# contribution and the proof are randomized, so a rerun gives different
# (equally valid) key bytes; the witness and r1cs are reproducible.
set -euo pipefail
EX=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$EX/.." && pwd)
W=${1:-/tmp/cuzk-example}
NM=$REPO/tests/interop/node_modules
SJ=$NM/.bin/snarkjs
PTAU=$REPO/tests/interop/data/pot12.ptau

[ -x "$SJ" ] || (cd "$REPO/tests/interop" && npm ci --no-audit --no-fund)
rm -rf "$W"
mkdir -p "$W/lib/circomlib"
cd "$W"
cp "$EX/poseidon_chain.circom" "$EX/input.json" .
# circom2 (WASI) sees only the current directory and below: stage circomlib.
cp -r "$NM/circomlib/circuits" lib/circomlib/

"$NM/.bin/circom2" poseidon_chain.circom --r1cs --wasm --prime bls12381 -l lib -o .
node poseidon_chain_js/generate_witness.js poseidon_chain_js/poseidon_chain.wasm input.json poseidon_chain.wtns
"$SJ" wtns check poseidon_chain.r1cs poseidon_chain.wtns
"$SJ" groth16 setup poseidon_chain.r1cs "$PTAU" poseidon_chain_0.zkey
"$SJ" zkey contribute poseidon_chain_0.zkey poseidon_chain.zkey --name="cuzk example" -e="cuzk example entropy"
"$SJ" zkey verify poseidon_chain.r1cs "$PTAU" poseidon_chain.zkey
"$SJ" zkey export verificationkey poseidon_chain.zkey vk.json
"$SJ" groth16 prove poseidon_chain.zkey poseidon_chain.wtns proof.json public.json
"$SJ" groth16 verify vk.json public.json proof.json

cp poseidon_chain.r1cs poseidon_chain.wtns poseidon_chain.zkey vk.json "$EX/"
ls -l "$EX"
