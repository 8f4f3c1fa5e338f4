pragma circom 2.0.0;

// A tiny circuit with non-trivial coefficients (2, 3, -1, 7) and a domain of
// 8 rows, where the snarkjs and bellperson roots of unity already differ.
template Mul() {
    signal input a;   // public
    signal input b;   // private
    signal input k;   // private
    signal output c;
    signal t;
    signal u;
    t <== (a + 2*b) * (3*a - b);
    u <== t * k;
    c <== u * u + 7;
}

component main {public [a]} = Mul();
