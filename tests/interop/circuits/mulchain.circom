pragma circom 2.0.0;

// A multiplication chain: acc[i+1] = (acc[i] + 2 x) * (3 k[i] - i) + 7.
// One public input (x), N private inputs (k), one public output.
// Coefficients other than +-1 make the matrices non-trivial.
template MulChain(N) {
    signal input x;
    signal input k[N];
    signal output out;

    signal acc[N + 1];
    acc[0] <== x;
    for (var i = 0; i < N; i++) {
        acc[i + 1] <== (acc[i] + 2 * x) * (3 * k[i] - i) + 7;
    }
    out <== acc[N];
}

component main {public [x]} = MulChain(100);
