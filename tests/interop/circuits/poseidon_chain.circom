pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// A Poseidon chain: acc[0] = seed, acc[i+1] = Poseidon(acc[i], i). Public:
// the seed and the final hash. Each Poseidon(2) is 517 constraints (243
// non-linear + 274 linear; circom's default -O1 keeps the linear ones).
// The main components are in chain12.circom and chain14.circom.
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
