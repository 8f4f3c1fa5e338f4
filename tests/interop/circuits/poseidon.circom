pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// Proves knowledge of a preimage: hash = Poseidon(secret[0..3], salt).
// Public: the output hash and the salt. (circomlib's Poseidon constants are
// chosen for BN254; over BLS12-381 this is a test circuit, not a hash.)
template PoseidonPreimage() {
    signal input secret[4];
    signal input salt;
    signal output hash;

    component h = Poseidon(5);
    for (var i = 0; i < 4; i++) h.inputs[i] <== secret[i];
    h.inputs[4] <== salt;
    hash <== h.out;
}

component main {public [salt]} = PoseidonPreimage();
