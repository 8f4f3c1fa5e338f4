pragma circom 2.0.0;

// Many public signals: 24 public inputs x, 24 private y, and 3 outputs
// (a dot product, a product chain, and a weighted sum): 27 public signals.
template ManyPublic(N) {
    signal input x[N];
    signal input y[N];
    signal output dot;
    signal output prod;
    signal output wsum;

    signal t[N];
    signal p[N + 1];
    var acc = 0;
    var w = 0;
    p[0] <== 1;
    for (var i = 0; i < N; i++) {
        t[i] <== x[i] * y[i];
        p[i + 1] <== p[i] * (x[i] + y[i]);
        acc += t[i];
        w += (i + 1) * x[i];
    }
    dot <== acc;
    prod <== p[N];
    wsum <== w;
}

component main {public [x]} = ManyPublic(24);
