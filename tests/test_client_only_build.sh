#!/bin/bash
# The client-only build of cuzk-bench:
#   bash tests/test_client_only_build.sh SOURCE_DIR WORK_DIR
# configures -DCUZK_CLIENT_ONLY=ON in WORK_DIR with no CUDA compiler
# reachable (nvcc's folders off the PATH, CUDACXX unset), builds it, and
# checks that the binary lists only the client commands, holds no symbol
# of the prover library (cuzk_*), and reports a refused connection.
set -u
SRC=$(cd "$1" && pwd)
W=$2
rm -rf "$W"
mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

# The PATH without any folder that holds nvcc.
P=
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    [ -n "$d" ] && [ ! -x "$d/nvcc" ] && P=${P:+$P:}$d
done
E=(env -u CUDACXX -u CUDA_PATH -u CUDA_HOME PATH="$P")
"${E[@]}" sh -c 'command -v nvcc' >/dev/null && fail "nvcc is still on the filtered PATH"

"${E[@]}" cmake -S "$SRC" -B "$W/build" -DCUZK_CLIENT_ONLY=ON -DCMAKE_BUILD_TYPE=Release \
    >"$W/configure.log" 2>&1 || { cat "$W/configure.log"; fail "configure"; }
ok "configures with -DCUZK_CLIENT_ONLY=ON and no nvcc on the PATH"
grep -q 'client-only build' "$W/configure.log" || fail "the configure log does not say client-only"
if grep -q '^CMAKE_CUDA_COMPILER:.*nvcc' "$W/build/CMakeCache.txt"; then fail "CUDA was looked up"; fi
ok "no CUDA compiler in the cache"
"${E[@]}" cmake --build "$W/build" -j 2 >"$W/build.log" 2>&1 || { cat "$W/build.log"; fail "build"; }
ok "builds"
B=$W/build/cuzk-bench
[ -x "$B" ] || fail "no cuzk-bench"

"$B" --help >"$W/help" || fail "--help exits non-zero"
for c in single batch stress status preload evict metrics waterfall; do
    grep -q "^  $c " "$W/help" || fail "--help does not list $c"
done
ok "--help lists the client commands"
for c in micro kernels prove pce setup witness engine store; do
    grep -q "^  $c " "$W/help" && fail "--help lists the prover benchmark $c"
done
ok "  ... and none of the prover's benchmarks"
if nm "$B" | grep -q ' [TtDdBbRr] cuzk_'; then
    nm "$B" | grep ' [TtDdBbRr] cuzk_' | head
    fail "the binary defines prover symbols"
fi
ok "no cuzk_* symbol in the binary"
for lib in curl jansson; do
    ldd "$B" | grep -q "lib$lib" || fail "not linked with lib$lib"
done
ok "linked with libcurl and libjansson"

"$B" status --addr "unix:$W/no.sock" >"$W/out" 2>"$W/err"
rc=$?
[ "$rc" = 1 ] || fail "a missing socket: exit $rc, not 1"
grep -q "cannot connect to unix:$W/no.sock" "$W/err" || { cat "$W/err"; fail "the message"; }
ok "a missing socket: exit 1 naming the address"
# waterfall reads timelines without the engine (its own copy of the names).
T=$SRC/tests/data/timeline
(cd "$T" && "$B" waterfall hand.log --width 77) >"$W/hand.out" 2>&1 || fail "waterfall hand.log"
diff -u "$T/hand.txt" "$W/hand.out" || fail "waterfall's text differs from the full build's"
ok "waterfall draws a recorded timeline as the full build does"
echo "all passed"
