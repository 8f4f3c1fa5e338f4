// Converts a snarkjs proof.json (bls12381) into the 192-byte Filecoin /
// bellperson proof (A, B, C zcash-compressed), independently of cuzk, with
// @noble/curves. Usage: node proof_bin.mjs proof.json out.bin
import { readFileSync, writeFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const { G1, G2 } = bls12_381;
const Fp2 = bls12_381.fields.Fp2;
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
for (const pt of [p.pi_a, p.pi_c]) if (pt[2] !== '1') throw new Error('not affine');
if (p.pi_b[2][0] !== '1' || p.pi_b[2][1] !== '0') throw new Error('not affine');
const g1 = (a) => G1.Point.fromAffine({ x: BigInt(a[0]), y: BigInt(a[1]) });
const fp2 = (c) => Fp2.fromBigTuple([BigInt(c[0]), BigInt(c[1])]);
const a = g1(p.pi_a), c = g1(p.pi_c);
const b = G2.Point.fromAffine({ x: fp2(p.pi_b[0]), y: fp2(p.pi_b[1]) });
for (const q of [a, b, c]) q.assertValidity();
const out = Buffer.concat([a.toBytes(true), b.toBytes(true), c.toBytes(true)]);
if (out.length !== 192) throw new Error('length');
writeFileSync(process.argv[3], out);
