#!/usr/bin/env node
// Edits a snarkjs proof.json or public.json for the negative tests.
//
//   node json_edit.js neg-a        IN OUT   pi_a -> -pi_a (y := q - y): on the curve, wrong proof
//   node json_edit.js swap-ac      IN OUT   pi_c := pi_a: on the curve, wrong proof
//   node json_edit.js neg-b        IN OUT   pi_b -> -pi_b (G2, both y coordinates negated)
//   node json_edit.js offcurve-a   IN OUT   pi_a.y := y + 1: off the curve
//   node json_edit.js offcurve-b   IN OUT   pi_b.x.c0 := x.c0 + 1 (G2): off the curve (w.h.p.)
//   node json_edit.js nosubgroup-a IN OUT   pi_a := a point of E(Fq) outside the order-r subgroup
//   node json_edit.js noncanon-a   IN OUT   pi_a.x := x + q: the same point, non-canonical
//   node json_edit.js bump-pub     IN OUT   public[0] := public[0] + 1 (mod r)
//   node json_edit.js pub-plus-r   IN OUT   public[0] := public[0] + r: non-canonical
"use strict";
const fs = require("fs");

const q = BigInt("0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
const r = BigInt("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
const mod = (a, m) => ((a % m) + m) % m;
function pow(b, e, m) {
    let x = 1n;
    b = mod(b, m);
    while (e > 0n) {
        if (e & 1n) x = (x * b) % m;
        b = (b * b) % m;
        e >>= 1n;
    }
    return x;
}
// A point on y^2 = x^3 + 4 over Fq that is not in the order-r subgroup:
// the first x >= 2 with x^3 + 4 a square whose point P has r*P != O.
function pointOutsideSubgroup() {
    for (let x = 2n; ; x++) {
        const rhs = mod(x * x * x + 4n, q);
        const y = pow(rhs, (q + 1n) / 4n, q); // q = 3 mod 4
        if ((y * y) % q !== rhs) continue;
        if (!inSubgroup([x, y])) return [x, y];
    }
}
function add(P, Q) { // affine, null = infinity
    if (P === null) return Q;
    if (Q === null) return P;
    if (P[0] === Q[0]) {
        if (mod(P[1] + Q[1], q) === 0n) return null;
        const l = mod(3n * P[0] * P[0] * pow(2n * P[1], q - 2n, q), q);
        const x = mod(l * l - 2n * P[0], q);
        return [x, mod(l * (P[0] - x) - P[1], q)];
    }
    const l = mod((Q[1] - P[1]) * pow(Q[0] - P[0], q - 2n, q), q);
    const x = mod(l * l - P[0] - Q[0], q);
    return [x, mod(l * (P[0] - x) - P[1], q)];
}
function inSubgroup(P) {
    let acc = null, b = P, e = r;
    while (e > 0n) {
        if (e & 1n) acc = add(acc, b);
        b = add(b, b);
        e >>= 1n;
    }
    return acc === null;
}

const [op, inPath, outPath] = process.argv.slice(2);
if (!op || !inPath || !outPath) {
    process.stderr.write("usage: json_edit.js OP IN OUT (see the header)\n");
    process.exit(2);
}
const j = JSON.parse(fs.readFileSync(inPath, "utf8"));
const s = (v) => v.toString();
switch (op) {
case "neg-a": j.pi_a[1] = s(mod(-BigInt(j.pi_a[1]), q)); break;
case "swap-ac": j.pi_c = j.pi_a.slice(); break;
case "neg-b":
    j.pi_b[1] = j.pi_b[1].map((c) => s(mod(-BigInt(c), q)));
    break;
case "offcurve-a": j.pi_a[1] = s(mod(BigInt(j.pi_a[1]) + 1n, q)); break;
case "offcurve-b": j.pi_b[0][0] = s(mod(BigInt(j.pi_b[0][0]) + 1n, q)); break;
case "nosubgroup-a": {
    const P = pointOutsideSubgroup();
    j.pi_a = [s(P[0]), s(P[1]), "1"];
    break;
}
case "noncanon-a": j.pi_a[0] = s(BigInt(j.pi_a[0]) + q); break;
case "bump-pub": j[0] = s(mod(BigInt(j[0]) + 1n, r)); break;
case "pub-plus-r": j[0] = s(BigInt(j[0]) + r); break;
default:
    process.stderr.write("json_edit: unknown op " + op + "\n");
    process.exit(2);
}
fs.writeFileSync(outPath, JSON.stringify(j, null, 1) + "\n");
