#!/usr/bin/env node
// Rewrites one value of an iden3 .wtns file (version 2: section 1 = n8, prime,
// nWitness; section 2 = nWitness values, n8 bytes each, little-endian,
// standard form). The new value stays canonical (reduced mod the prime).
//
//   node wtns_edit.js IN.wtns OUT.wtns INDEX [VALUE]
//
// INDEX may be negative (-1 = the last value). Without VALUE the value at
// INDEX is replaced by (old + 1) mod prime. Prints "index old -> new".
"use strict";
const fs = require("fs");

function die(msg) {
    process.stderr.write("wtns_edit: " + msg + "\n");
    process.exit(2);
}
function readLE(buf, off, n) {
    let v = 0n;
    for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(buf[off + i]);
    return v;
}
function writeLE(buf, off, n, v) {
    for (let i = 0; i < n; i++) {
        buf[off + i] = Number(v & 0xffn);
        v >>= 8n;
    }
}

const [inPath, outPath, idxArg, valArg] = process.argv.slice(2);
if (!inPath || !outPath || idxArg === undefined)
    die("usage: wtns_edit.js IN.wtns OUT.wtns INDEX [VALUE]");
const buf = Buffer.from(fs.readFileSync(inPath));
if (buf.length < 12 || buf.toString("latin1", 0, 4) !== "wtns") die(inPath + ": not a .wtns file");
const nSections = buf.readUInt32LE(8);
let pos = 12, hdr = null, data = null;
for (let s = 0; s < nSections; s++) {
    if (pos + 12 > buf.length) die(inPath + ": truncated section table");
    const type = buf.readUInt32LE(pos);
    const size = Number(buf.readBigUInt64LE(pos + 4));
    if (type === 1) hdr = pos + 12;
    if (type === 2) data = { off: pos + 12, size };
    pos += 12 + size;
}
if (hdr === null || data === null) die(inPath + ": sections 1 and 2 are required");
const n8 = buf.readUInt32LE(hdr);
const prime = readLE(buf, hdr + 4, n8);
const nWitness = buf.readUInt32LE(hdr + 4 + n8);
if (data.size !== nWitness * n8) die(inPath + ": section 2 size does not match nWitness");
let idx = Number(idxArg);
if (!Number.isInteger(idx)) die("INDEX must be an integer");
if (idx < 0) idx += nWitness;
if (idx < 0 || idx >= nWitness) die(`INDEX out of range (nWitness = ${nWitness})`);
const off = data.off + idx * n8;
const old = readLE(buf, off, n8);
const nv = valArg === undefined ? (old + 1n) % prime : ((BigInt(valArg) % prime) + prime) % prime;
writeLE(buf, off, n8, nv);
fs.writeFileSync(outPath, buf);
console.log(`${idx} ${old} -> ${nv}`);
