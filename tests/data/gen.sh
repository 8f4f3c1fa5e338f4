#!/bin/sh
# Regenerates the test files in tests/data (see README.md there).
# Runs in a scratch directory outside the repository; needs node >= 18 and
# network access for `npm install`. Usage: sh tests/data/gen.sh [scratch]
set -eu
DATA=$(cd "$(dirname "$0")" && pwd)
W=${1:-/tmp/cuzk-fmt}
mkdir -p "$W" && cd "$W"
[ -f package.json ] || npm init -y >/dev/null
[ -d node_modules/snarkjs ] || npm install snarkjs@0.7.6 circom2@0.2.23 @noble/curves@2.4.0
cp "$DATA/mul.circom" "$DATA/input.json" "$DATA/proof_bin.mjs" .
SJ="npx snarkjs"

# ---- BLS12-381 ----
npx circom2 mul.circom --r1cs --wasm --prime bls12381 -o .
$SJ powersoftau new bls12381 4 pot_0.ptau
$SJ powersoftau contribute pot_0.ptau pot_1.ptau --name=one -e="cuzk test entropy 1"
$SJ powersoftau prepare phase2 pot_1.ptau pot_final.ptau
$SJ groth16 setup mul.r1cs pot_final.ptau mul_0.zkey
$SJ zkey contribute mul_0.zkey mul.zkey --name=two -e="cuzk test entropy 2"
$SJ zkey verify mul.r1cs pot_final.ptau mul.zkey
$SJ zkey export verificationkey mul.zkey vk.json
$SJ zkey export bellman mul.zkey mul.params
node mul_js/generate_witness.js mul_js/mul.wasm input.json mul.wtns
$SJ wtns check mul.r1cs mul.wtns
$SJ groth16 prove mul.zkey mul.wtns proof.json public.json
$SJ groth16 verify vk.json public.json proof.json
node proof_bin.mjs proof.json mul.proof   # 192-byte form, by @noble/curves

# ---- BN254 (only to test that it is rejected) ----
mkdir -p bn && cd bn
cp ../mul.circom ../input.json .
npx circom2 mul.circom --r1cs --wasm --prime bn128 -o .
$SJ powersoftau new bn128 4 pot_0.ptau
$SJ powersoftau contribute pot_0.ptau pot_1.ptau --name=one -e="cuzk test entropy 3"
$SJ powersoftau prepare phase2 pot_1.ptau pot_final.ptau
$SJ groth16 setup mul.r1cs pot_final.ptau mul_bn254.zkey
node mul_js/generate_witness.js mul_js/mul.wasm input.json mul_bn254.wtns
cd ..

cp mul.r1cs mul.zkey mul.wtns mul.params mul.proof vk.json proof.json public.json "$DATA/"
cp bn/mul.r1cs "$DATA/mul_bn254.r1cs"
cp bn/mul_bn254.zkey bn/mul_bn254.wtns "$DATA/"
ls -l "$DATA"
