#!/usr/bin/env bash
# Makes a prepared BLS12-381 powers-of-tau file with one contribution:
#
#   bash tests/interop/make_ptau.sh POWER OUT.ptau [NODE_MODULES]
#
# These are the exact commands that made data/pot12.ptau (POWER = 12).
# `prepare phase2` dominates: measured on the 2-core dev box, about 165 s at
# power 12, 345 s at 13 and 700 s at 14 (see README.md).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: make_ptau.sh POWER OUT.ptau [NODE_MODULES]" >&2
  exit 2
fi
POWER=$1
OUT=$2
NM=${3:-$(cd "$(dirname "$0")" && pwd)/node_modules}
SJ="$NM/.bin/snarkjs"
TMP=$(mktemp -d "${OUT}.tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$SJ" powersoftau new bls12381 "$POWER" "$TMP/pot_0.ptau"
"$SJ" powersoftau contribute "$TMP/pot_0.ptau" "$TMP/pot_1.ptau" \
  --name="cuzk interop" -e="cuzk interop ptau entropy $POWER"
"$SJ" powersoftau prepare phase2 "$TMP/pot_1.ptau" "$TMP/pot_final.ptau"
mv "$TMP/pot_final.ptau" "$OUT"
