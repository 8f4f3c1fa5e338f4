pragma circom 2.0.0;

include "poseidon_chain.circom";

// 7 x 517 = 3619 constraints + 3 input rows = 3622 rows: domain 2^12.
component main {public [seed]} = PoseidonChain(7);
