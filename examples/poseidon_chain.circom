pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// The example circuit of `make run`: a chain of N Poseidon(2) hashes,
// acc[0] = seed, acc[i+1] = Poseidon(acc[i], i); public: the final hash and
// the seed. With N = 6 and circom's default -O1: 3102 constraints (1458
// non-linear, 1644 linear), 3105 rows, so a 2^12 domain. circomlib's Poseidon
// constants are chosen for BN254; over BLS12-381 this is a workload, not a
// hash with a security claim.
template PoseidonChain(N) {
    signal input seed;
    signal output out;

    component h[N];
    signal acc[N + 1];
    acc[0] <== seed;
    for (var i = 0; i < N; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== acc[i];
        h[i].inputs[1] <== i;
        acc[i + 1] <== h[i].out;
    }
    out <== acc[N];
}

component main {public [seed]} = PoseidonChain(6);
