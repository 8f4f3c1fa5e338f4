#!/bin/sh
# What a new user meets in the cuzk tool (issue 11): every command's -h and
# --help print that command's own usage (exit 0); --size 0 is refused (only
# "full" is the full size); verify reads the 192-byte Filecoin proof and a
# bellperson .vk, and its messages name the file given; a snarkjs-exported
# .params read without --snarkjs-export says that the flag exists; info on
# an empty .cuzk or .pce says "empty file"; writers say what they wrote.
#
#   sh tests/test_cli_usage.sh CUZK_BINARY DATA_DIR WORK_DIR
#
# Exit 0 when every check passes, 1 otherwise.
set -u

if [ $# -ne 3 ]; then
  echo "usage: test_cli_usage.sh CUZK_BINARY DATA_DIR WORK_DIR" >&2
  exit 2
fi
CUZK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
D=$(cd "$2" && pwd)
W=$3
rm -rf "$W" && mkdir -p "$W" || exit 2
cd "$W" || exit 2
fails=0
checks=0
ok() { checks=$((checks + 1)); echo "ok: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1"; }

# expect RC PATTERN WHAT CMD...: exit RC and PATTERN in stdout + stderr.
expect() {
  rc_want=$1 pat=$2 what=$3
  shift 3
  "$CUZK" "$@" >out.txt 2>&1
  rc=$?
  if [ $rc -eq "$rc_want" ] && grep -q -- "$pat" out.txt; then ok "$what"
  else bad "$what: exit $rc (want $rc_want), output: $(head -c 300 out.txt)"; fi
}

for c in prove verify setup import export-vk circuits compile info witness; do
  for h in -h --help; do
    expect 0 "usage: cuzk $c" "$c $h: its own usage" $c $h
  done
done
expect 0 "usage: cuzk COMMAND" "cuzk --help: the overview" --help
expect 0 "^cuzk [0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]* ([0-9a-z.-]*)$" "cuzk version: the version and the build's commit" version
expect 0 "^cuzk [0-9]" "cuzk --version: the same" --version

for c in circuits "compile --circuit porep-32g --out x.pce" \
         "witness --circuit porep-32g --seed 1 --out w.wtns"; do
  # shellcheck disable=SC2086
  expect 2 "expects full" "$c --size 0 refused" $c --size 0
done
expect 0 "smallest form" "a size below the circuit's smallest says what it became" \
  compile --circuit porep-32g --size 10 --out p.pce
expect 0 "at 2^12:" "circuits --size 12 describes the scaled circuit" circuits --size 12

expect 0 valid "verify: the 192-byte Filecoin proof" \
  verify --vk "$D/vk.json" --proof "$D/mul.proof" --public "$D/public.json"
expect 0 valid "verify --format filecoin" \
  verify --vk "$D/vk.json" --proof "$D/mul.proof" --public "$D/public.json" --format filecoin
"$CUZK" setup --r1cs "$D/mul.r1cs" --params k.params --vk k.vk --seed 5 --cpu --quiet &&
  "$CUZK" prove --params k.params --r1cs "$D/mul.r1cs" --wtns "$D/mul.wtns" --format filecoin \
    --proof bp.bin --public bp.json --quiet || bad "bellperson setup + prove"
expect 0 valid "verify: a bellperson .vk with a Filecoin proof" \
  verify --vk k.vk --proof bp.bin --public bp.json
cp "$D/public.json" given.json
expect 2 "given.json: proof JSON" "verify names the file given" \
  verify --vk "$D/vk.json" --proof given.json --public "$D/public.json"
if grep -q "proof.json" out.txt; then bad "verify's message names proof.json"; fi

expect 2 "snarkjs-export" "a snarkjs export without --snarkjs-export names the flag" \
  prove --params "$D/mul.params" --r1cs "$D/mul.r1cs" --wtns "$D/mul.wtns" \
  --format filecoin --proof x.bin
if "$CUZK" prove --params "$D/mul.params" --snarkjs-export --r1cs "$D/mul.r1cs" \
     --wtns "$D/mul.wtns" --format filecoin --proof x.bin --quiet &&
   [ "$(wc -c <x.bin)" -eq 192 ]; then ok "--snarkjs-export proves"
else bad "--snarkjs-export proves"; fi

: >empty.cuzk
: >empty.pce
expect 2 "empty file" "info on an empty .cuzk" info empty.cuzk
expect 2 "empty file" "info on an empty .pce" info empty.pce
if grep -q "cuzk_blob\|aligned" out.txt; then bad "info names an internal function"; fi

"$CUZK" setup --r1cs "$D/mul.r1cs" --out k.cuzk --seed 1 --cpu --quiet
expect 0 "wrote vk.json" "export-vk says what it wrote" export-vk --key k.cuzk --out vk.json
expect 0 "wrote i.cuzk" "import says what it wrote" import --zkey "$D/mul.zkey" --out i.cuzk

echo "$checks checks, $fails failed"
[ $fails -eq 0 ]
