#!/bin/sh
# The cuzk tool never destroys a user's file (issue 11): every command that
# writes refuses, before any work, an output that is one of its inputs or
# another of its outputs (exit 2, both flags named, the input's bytes
# unchanged); a symlink is followed (its target replaced, the link kept); a
# device or FIFO is written in place, never renamed over; a directory is
# refused; a replaced file keeps its permissions; no temporary is left.
#
#   sh tests/test_cli_files.sh CUZK_BINARY DATA_DIR WORK_DIR
#
# DATA_DIR is tests/data. Device nodes are made with mknod in WORK_DIR; where
# the sandbox forbids that, those cases print "skipped: mknod not permitted".
# Exit 0 when every check passes, 1 otherwise.
set -u

if [ $# -ne 3 ]; then
  echo "usage: test_cli_files.sh CUZK_BINARY DATA_DIR WORK_DIR" >&2
  exit 2
fi
CUZK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DATA=$(cd "$2" && pwd)
W=$3
rm -rf "$W" && mkdir -p "$W" || exit 2
cd "$W" || exit 2
fails=0
checks=0

ok() { checks=$((checks + 1)); echo "ok: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1"; }
sum() { cksum < "$1"; }

cp "$DATA/mul.zkey" "$DATA/mul.wtns" "$DATA/mul.r1cs" "$DATA/mul.params" . || exit 2
"$CUZK" setup --r1cs mul.r1cs --out k.cuzk --seed 1 --cpu --quiet >/dev/null 2>&1 || exit 2
"$CUZK" compile --r1cs mul.r1cs --out m.pce --quiet || exit 2
PROVE="prove --zkey mul.zkey --wtns mul.wtns --quiet"

# refuse INPUT FLAG1 FLAG2 ARGS...: the command exits 2 before any work, its
# message names both flags, INPUT keeps its bytes and no temporary is left.
refuse() {
  input=$1 f1=$2 f2=$3
  shift 3
  before=$(sum "$input")
  "$CUZK" "$@" >out.txt 2>err.txt
  rc=$?
  what="$* (refused)"
  if [ $rc -ne 2 ]; then
    bad "$what: exit $rc, expected 2"
  elif ! grep -q -- "$f1" err.txt || ! grep -q -- "$f2" err.txt; then
    bad "$what: message does not name $f1 and $f2: $(cat err.txt)"
  elif [ "$(sum "$input")" != "$before" ]; then
    bad "$what: $input changed"
  elif ls ./*.tmp.* >/dev/null 2>&1; then
    bad "$what: a temporary file was left"
  else
    ok "$what"
  fi
}

# ------------------------------------------ an output that is an input --
for f in mul.zkey mul.wtns; do
  refuse $f --proof "--${f#mul.}" $PROVE --proof $f --public p.json
  refuse $f --public "--${f#mul.}" $PROVE --proof p.json --public $f
done
refuse mul.r1cs --proof --r1cs $PROVE --r1cs mul.r1cs --proof mul.r1cs --public p.json
refuse k.cuzk --proof --key prove --key k.cuzk --wtns mul.wtns --proof k.cuzk --public p.json
refuse k.cuzk --public --key prove --key k.cuzk --wtns mul.wtns --proof p.json --public k.cuzk
refuse m.pce --proof --pce prove --key k.cuzk --pce m.pce --wtns mul.wtns --proof m.pce --public p.json
refuse m.pce --public --pce prove --key k.cuzk --pce m.pce --wtns mul.wtns --proof p.json --public m.pce
refuse mul.params --proof --params prove --params mul.params --snarkjs-export --r1cs mul.r1cs \
  --wtns mul.wtns --format filecoin --proof mul.params
refuse mul.zkey --out --zkey import --zkey mul.zkey --out mul.zkey
refuse mul.zkey --pce --zkey import --zkey mul.zkey --out i.cuzk --pce mul.zkey
refuse mul.r1cs --out --r1cs import --params mul.params --snarkjs-export --r1cs mul.r1cs --out mul.r1cs
refuse mul.r1cs --out --r1cs setup --r1cs mul.r1cs --out mul.r1cs
refuse mul.r1cs --zkey --r1cs setup --r1cs mul.r1cs --zkey mul.r1cs
refuse mul.r1cs --params --r1cs setup --r1cs mul.r1cs --params mul.r1cs --vk v.vk
refuse mul.r1cs --out --r1cs compile --r1cs mul.r1cs --out mul.r1cs
refuse k.cuzk --out --key export-vk --key k.cuzk --out k.cuzk
refuse mul.wtns --out --inputs witness --circuit porep-32g --size 10 --inputs mul.wtns --out mul.wtns
# The same file by another name: a hard link, a symlink.
ln mul.zkey hard.bin && refuse mul.zkey --proof --zkey $PROVE --proof hard.bin --public p.json
ln -s mul.wtns soft.json && refuse mul.wtns --public --wtns $PROVE --proof p.json --public soft.json

# ------------------------------------------- two outputs, the same file --
refuse mul.zkey --proof --public $PROVE --proof same.json --public same.json
[ -e same.json ] && bad "same.json was written"
refuse mul.zkey --proof --public $PROVE --proof same.json --public ./same.json
echo old >same.json
refuse same.json --proof --public $PROVE --proof same.json --public ../"$(basename "$PWD")"/same.json
refuse mul.r1cs --out --zkey setup --r1cs mul.r1cs --out two.bin --zkey two.bin
refuse mul.r1cs --params --vk setup --r1cs mul.r1cs --params two.bin --vk two.bin

# --------------------------------------------------- a directory output --
mkdir dir.json
"$CUZK" $PROVE --proof dir.json --public p.json 2>err.txt
rc=$?
if [ $rc -eq 2 ] && grep -q directory err.txt && [ -d dir.json ]; then ok "--proof DIR refused"
else bad "--proof DIR: exit $rc: $(cat err.txt)"; fi

# ------------------------------------ regular files: replaced atomically --
echo old >p.json
chmod 600 p.json
if "$CUZK" $PROVE --proof proof.json --public p.json && grep -q '"pi_a"' proof.json &&
   [ "$(cat p.json)" != old ] && [ "$(stat -c %a p.json)" = 600 ]; then
  ok "an existing output is replaced and keeps its permissions"
else
  bad "replacing an existing output"
fi
ls ./*.tmp.* >/dev/null 2>&1 && bad "a temporary file was left after a write"

# -------------------------------------------- symlinks: the target is written --
echo old >target.json
ln -s target.json link.json
ln -s sub/new.json dangling.json
mkdir sub
if "$CUZK" $PROVE --proof link.json --public dangling.json && [ -L link.json ] &&
   [ -L dangling.json ] && grep -q '"pi_a"' target.json && grep -q '"' sub/new.json; then
  ok "a symlink is followed: its target replaced (also a dangling one), the link kept"
else
  bad "symlink outputs: $(ls -l link.json dangling.json 2>&1)"
fi
ln -s target.json vk_link.json
if "$CUZK" export-vk --key k.cuzk --out vk_link.json >/dev/null && [ -L vk_link.json ] &&
   grep -q vk_alpha_1 target.json; then ok "export-vk through a symlink"
else bad "export-vk through a symlink"; fi

# ----------------------------------- streams: written in place, never renamed --
"$CUZK" $PROVE --proof /dev/stdout --public p.json | cat >piped.txt
if grep -q '"pi_a"' piped.txt; then ok "--proof /dev/stdout (a pipe)"
else bad "--proof /dev/stdout: $(head -c 200 piped.txt)"; fi
# stdout redirected to a regular file: appended to through the descriptor,
# not renamed over (which would lose what the file held).
echo "kept line" >redir.txt
"$CUZK" $PROVE --proof /dev/stdout --public /dev/stdout >>redir.txt
if [ "$(head -n 1 redir.txt)" = "kept line" ] && grep -q '"pi_a"' redir.txt &&
   [ "$(tail -n 1 redir.txt)" = "]" ] && [ -L /dev/stdout ]; then ok "--proof/--public /dev/stdout (>> a file)"
else bad "--proof/--public /dev/stdout >> file: $(head -c 200 redir.txt)"; fi
"$CUZK" prove --zkey mul.zkey --wtns mul.wtns --format filecoin --proof /dev/stdout --quiet |
  cat >piped.bin
if [ "$(wc -c <piped.bin)" -eq 192 ]; then ok "--format filecoin --proof /dev/stdout"
else bad "--format filecoin --proof /dev/stdout: $(wc -c <piped.bin) bytes"; fi
if [ ! -w /dev ]; then
  # Not root: /dev cannot be renamed into, so a regression cannot harm it.
  if "$CUZK" $PROVE --proof /dev/null --public /dev/null && [ -c /dev/null ]; then
    ok "--proof /dev/null --public /dev/null"
  else bad "--proof /dev/null"; fi
fi
mkfifo fifo.json
cat fifo.json >from_fifo.txt &
reader=$!
"$CUZK" $PROVE --proof fifo.json --public p.json
rc=$?
wait $reader
if [ $rc -eq 0 ] && [ -p fifo.json ] && grep -q '"pi_a"' from_fifo.txt; then
  ok "a FIFO is written in place"
else
  bad "FIFO output: exit $rc, $(ls -l fifo.json)"
fi

# Device nodes of our own (root in CI): the null device (1,3) takes every
# output; the full device (1,7) fails the write, exit 2, and stays a device.
if mknod null.dev c 1 3 2>/dev/null && mknod full.dev c 1 7 2>/dev/null &&
   printf x >null.dev 2>/dev/null; then
  if "$CUZK" $PROVE --proof null.dev --public null.dev && [ -c null.dev ] &&
     "$CUZK" setup --r1cs mul.r1cs --out null.dev --zkey null.dev --seed 1 --cpu --quiet \
       >/dev/null && [ -c null.dev ]; then
    ok "a null device node is written in place and stays a device"
  else
    bad "null device node: $(ls -l null.dev)"
  fi
  for cmd in "$PROVE --proof full.dev --public p.json" \
             "compile --r1cs mul.r1cs --out full.dev --quiet" \
             "setup --r1cs mul.r1cs --out full.dev --seed 1 --cpu --quiet" \
             "export-vk --key k.cuzk --out full.dev"; do
    # shellcheck disable=SC2086
    "$CUZK" $cmd >/dev/null 2>err.txt
    rc=$?
    if [ $rc -eq 2 ] && [ -c full.dev ] && grep -q full.dev err.txt; then
      ok "$cmd: exit 2, the device stays"
    else
      bad "$cmd: exit $rc, $(ls -l full.dev): $(cat err.txt)"
    fi
  done
else
  echo "skipped: mknod not permitted (device-node cases)"
fi
ls ./*.tmp.* >/dev/null 2>&1 && bad "a temporary file was left"

echo "$checks checks, $fails failed"
[ $fails -eq 0 ]
