/* cuzk — a, b, c = A w, B w, C w on the GPU from a compiled PCE
 * (include/cuzk/gpu.h, "PCE evaluation"; the format is pce.h's).
 *
 * The PCE's arrays are copied to the device once, as they are in the image
 * (terms stay bit-packed: 4.4 bytes a non-zero for a PoRep shape). One
 * warp decodes one 256-row block of one matrix, the unit the block
 * records make independent (its rows' lengths, terms, escapes and long-row
 * lengths start where the record says), 8 rows a lane (spmv_kernel). A
 * lane keeps its row sum in registers (8 limbs) and writes each row once.
 *
 * Per term: +1 / -1 add or subtract w[col] (no multiplication); any other
 * coefficient is skipped for w = 0, added for w = 1, and multiplied
 * otherwise (Fr Montgomery multiplication of ff.cuh). With the bit bitmaps
 * a bit column's value comes from bit_val and w[col] is not read.
 *
 * Memory traffic per non-zero: the term (~4.4 B), and w[col] (32 B, mostly
 * from L2: PoRep terms reference columns near their row). */
extern "C" {
#include <cuzk/pce.h>
}

#include <stdlib.h>
#include <string.h>

#include "gpu/ff.cuh"
#include "gpu/gpu_internal.cuh"

#define SPMV_BLOCK 128 /* threads per CUDA block */

/* One matrix as the device reads it (pointers into the device copy). */
struct spmv_mat {
    const uint32_t *terms;   /* the packed terms, as 32-bit words (+ slack) */
    const uint8_t *lens;
    const uint32_t *longs;
    const uint32_t *esc;
    const uint32_t *codes;   /* code -> dictionary index */
    const uint64_t *blocks;  /* 3 words per record: term, esc, lng */
    uint32_t col_bits, code_bits, len_bits, esc_code;
};

struct spmv_args {
    spmv_mat m[3];
    const uint4 *coeffs;     /* dictionary, Fr Montgomery */
    uint64_t n_rows, n_blocks;
    const uint4 *w;          /* n_cols Fr */
    const uint64_t *is_bit, *bit_val; /* NULL: no bit columns */
    uint4 *out[3];
};

/* Bits [bit, bit + 48) of a packed array of 32-bit words (three aligned
 * loads; the array has two words of slack). */
__device__ __forceinline__ uint64_t spmv_bits(const uint32_t *t, uint64_t bit)
{
    uint64_t wi = bit >> 5;
    unsigned sh = (unsigned)(bit & 31);
    uint64_t lo = (uint64_t)t[wi + 1] << 32 | t[wi];
    uint64_t v = lo >> sh;
    if (sh) v |= (uint64_t)t[wi + 2] << (64 - sh);
    return v;
}

/* The value of wire col. */
__device__ __forceinline__ void spmv_load_w(uint32_t x[8], const spmv_args &a, uint32_t col)
{
    if (a.is_bit && ((a.is_bit[col >> 6] >> (col & 63)) & 1)) {
        unsigned one = (unsigned)(a.bit_val[col >> 6] >> (col & 63)) & 1;
        /* Montgomery 1 = 2^256 mod r, or 0. */
        const uint32_t R1[8] = {0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau,
                                0xecbc4ff5u, 0x998c4fefu, 0xacc5056fu, 0x1824b159u};
#pragma unroll
        for (int k = 0; k < 8; k++) x[k] = one ? R1[k] : 0;
        return;
    }
    ff_load<FfFr>(x, a.w + (size_t)col * 2);
}

__device__ __forceinline__ bool spmv_is(const uint32_t x[8], const uint4 *c)
{
    uint4 u = c[0], v = c[1];
    return x[0] == u.x && x[1] == u.y && x[2] == u.z && x[3] == u.w && x[4] == v.x &&
           x[5] == v.y && x[6] == v.z && x[7] == v.w;
}

/* acc += coeffs[idx] * x. Dictionary slots 0 and 1 are +1 and -1 (pce.h). */
__device__ __forceinline__ void spmv_term(uint32_t acc[8], const spmv_args &a, uint32_t idx,
                                          const uint32_t x[8])
{
    if (idx == 0) {
        ff_add<FfFr>(acc, acc, x);
        return;
    }
    if (idx == 1) {
        ff_sub<FfFr>(acc, acc, x);
        return;
    }
    uint32_t z = 0;
#pragma unroll
    for (int k = 0; k < 8; k++) z |= x[k];
    if (z == 0) return;
    uint32_t c[8], t[8];
    ff_load<FfFr>(c, a.coeffs + (size_t)idx * 2);
    if (spmv_is(x, a.coeffs)) { /* w = 1 (coeffs[0] is 1) */
        ff_add<FfFr>(acc, acc, c);
        return;
    }
    ff_mul<FfFr>(t, x, c);
    ff_add<FfFr>(acc, acc, t);
}

/* Row r's length field (mark = 2^len_bits - 1: a long row, its length in
 * `longs`). */
__device__ __forceinline__ uint32_t spmv_row_len(const spmv_mat &m, uint64_t r, uint32_t mark)
{
    uint64_t lbit = r * m.len_bits;
    return (uint32_t)(m.lens[lbit >> 3] >> (lbit & 7)) & mark;
}

/* Exclusive prefix sum over the warp's 32 lanes (all active). */
__device__ __forceinline__ uint64_t spmv_warp_excl(uint64_t v)
{
    const unsigned lane = threadIdx.x & 31;
    uint64_t x = v;
#pragma unroll
    for (unsigned d = 1; d < 32; d *= 2) {
        uint64_t y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x += y;
    }
    return x - v;
}

/* Warp (blk, k): rows [256 blk, 256 blk + 256) of matrix k, SPMV_LANE_ROWS
 * consecutive rows a lane. A block's record says where its terms, escapes
 * and long-row lengths start; where each lane's start is follows from three
 * warp prefix sums: of its long rows (from the length fields), of its terms
 * (lengths, the long ones read at the long-row index found), and of its
 * escaped terms (the codes of its terms, read once more; none without
 * escapes). One thread a block, as this kernel was, ran 256 rows in series:
 * a porep-32g block of up to 6,835 terms took 16 ms alone (2^20: the whole
 * a, b, c stage; ncu on the H200, docs/perf.md). */
#define SPMV_LANE_ROWS (CUZK_PCE_BLOCK_ROWS / 32)
static_assert(CUZK_PCE_BLOCK_ROWS % 32 == 0, "a block's rows split over a warp's lanes");

__global__ void __launch_bounds__(SPMV_BLOCK) spmv_kernel(spmv_args a)
{
    uint64_t blk = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const unsigned lane = threadIdx.x & 31;
    int k = blockIdx.y;
    if (blk >= a.n_blocks || !a.out[k]) return; /* whole warps: n_blocks is per warp */
    const spmv_mat &m = a.m[k];
    const uint32_t W = m.col_bits + m.code_bits, mark = (1u << m.len_bits) - 1;
    const uint64_t cmask = ((uint64_t)1 << m.col_bits) - 1;
    const uint32_t codemask = (1u << m.code_bits) - 1;
    uint64_t r0 = blk * CUZK_PCE_BLOCK_ROWS + (uint64_t)lane * SPMV_LANE_ROWS,
             r1 = r0 + SPMV_LANE_ROWS;
    if (r1 > a.n_rows) r1 = a.n_rows;
    if (r0 > r1) r0 = r1;
    /* The lane's long rows, then its terms. */
    uint32_t nlong = 0;
    uint64_t nterms = 0;
    for (uint64_t r = r0; r < r1; r++) {
        uint32_t len = spmv_row_len(m, r, mark);
        if (len == mark) nlong++;
        else nterms += len;
    }
    uint64_t li = m.blocks[3 * blk + 2] + spmv_warp_excl(nlong);
    for (uint32_t q = 0; q < nlong; q++) nterms += m.longs[li + q];
    uint64_t t0 = m.blocks[3 * blk] + spmv_warp_excl(nterms);
    uint64_t nesc = 0;
    if (m.esc_code != CUZK_PCE_NO_ESCAPE)
        for (uint64_t t = t0; t < t0 + nterms; t++)
            nesc += ((uint32_t)(spmv_bits(m.terms, t * W) >> m.col_bits) & codemask) ==
                    m.esc_code;
    uint64_t ei = m.blocks[3 * blk + 1] + spmv_warp_excl(nesc);
    uint64_t bit = t0 * W;
    for (uint64_t r = r0; r < r1; r++) {
        uint32_t len = spmv_row_len(m, r, mark);
        if (len == mark) len = m.longs[li++];
        uint32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (uint32_t i = 0; i < len; i++, bit += W) {
            uint64_t v = spmv_bits(m.terms, bit);
            uint32_t col = (uint32_t)(v & cmask), code = (uint32_t)(v >> m.col_bits) & codemask;
            uint32_t idx = code == m.esc_code ? m.esc[ei++] : m.codes[code];
            uint32_t x[8];
            spmv_load_w(x, a, col);
            spmv_term(acc, a, idx, x);
        }
        ff_store<FfFr>(a.out[k] + r * 2, acc);
    }
}

/* ---------------------------------------------------------------- handle -- */

struct cuzk_gpu_pce {
    cuzk_gpu_ctx *ctx;
    void *mem;               /* one device allocation holding everything */
    size_t mem_bytes;
    spmv_args base;          /* the matrices and the dictionary; w and out unset */
    uint64_t n_cols;
    int has_c;
};

static size_t al256(size_t x) { return (x + 255) & ~(size_t)255; }

extern "C" void cuzk_gpu_pce_destroy(cuzk_gpu_pce *d)
{
    if (!d) return;
    gpu_ctx_quiesce(d->ctx);
    gpu_pool_free(d->ctx, d->mem);
    free(d);
}

extern "C" size_t cuzk_gpu_pce_device_bytes(const cuzk_gpu_pce *d) { return d ? d->mem_bytes : 0; }

extern "C" cuzk_status cuzk_gpu_pce_create(cuzk_gpu_pce **out, cuzk_gpu_ctx *ctx,
                                           const cuzk_pce *p, char *err)
{
    gpu_err_clear(err);
    if (!ctx || !out || !p || !p->image || p->n_rows == 0)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "pce_create: bad argument");
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));
    cuzk_gpu_pce *d = (cuzk_gpu_pce *)calloc(1, sizeof *d);
    if (!d) return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "pce_create: host memory");
    d->ctx = ctx;
    d->n_cols = p->n_cols;
    d->has_c = (p->flags & CUZK_PCE_HAS_C) != 0;

    /* Layout: per matrix terms (+8 bytes of slack), lens, longs, esc, codes,
     * blocks; then the dictionary. */
    struct piece {
        const void *src;
        size_t bytes;
        size_t off;
    } pc[3 * 6 + 1];
    int np = 0;
    size_t total = 0;
    for (int k = 0; k < 3; k++) {
        const cuzk_pce_matrix *m = &p->m[k];
        uint64_t W = m->col_bits + m->code_bits;
        size_t tb = (size_t)((m->nnz * W + 7) / 8);
        pc[np++] = {m->terms, tb, 0};
        pc[np++] = {m->lens, (size_t)((p->n_rows * m->len_bits + 7) / 8), 0};
        pc[np++] = {m->longs, (size_t)m->n_long * 4, 0};
        pc[np++] = {m->esc, (size_t)m->n_esc * 4, 0};
        pc[np++] = {m->codes, (size_t)m->n_codes * 4, 0};
        pc[np++] = {m->blocks, (size_t)(p->n_blocks + 1) * sizeof(cuzk_pce_block), 0};
    }
    pc[np++] = {p->coeffs, (size_t)p->n_coeffs * sizeof(cuzk_fr), 0};
    for (int i = 0; i < np; i++) {
        pc[i].off = total;
        total += al256(pc[i].bytes + 16); /* 16: the term reader's slack */
    }
    cuzk_status st = gpu_pool_alloc(ctx, &d->mem, total, "pce_create", err);
    if (st != CUZK_OK) {
        free(d);
        return st;
    }
    cudaStream_t s = gpu_setup_stream(ctx);
    cudaError_t e = cudaMemsetAsync(d->mem, 0, total, s);
    for (int i = 0; i < np && e == cudaSuccess; i++)
        if (pc[i].bytes)
            e = cudaMemcpyAsync((char *)d->mem + pc[i].off, pc[i].src, pc[i].bytes,
                                cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
        st = cuzk_gpu_fail(err, e, "pce_create: upload");
        cuzk_gpu_pce_destroy(d);
        return st;
    }
    d->mem_bytes = total;
    char *b = (char *)d->mem;
    static_assert(sizeof(cuzk_pce_block) == 24, "block record = 3 words");
    for (int k = 0; k < 3; k++) {
        const cuzk_pce_matrix *m = &p->m[k];
        spmv_mat &dm = d->base.m[k];
        dm.terms = (const uint32_t *)(b + pc[6 * k].off);
        dm.lens = (const uint8_t *)(b + pc[6 * k + 1].off);
        dm.longs = (const uint32_t *)(b + pc[6 * k + 2].off);
        dm.esc = (const uint32_t *)(b + pc[6 * k + 3].off);
        dm.codes = (const uint32_t *)(b + pc[6 * k + 4].off);
        dm.blocks = (const uint64_t *)(b + pc[6 * k + 5].off);
        dm.col_bits = m->col_bits;
        dm.code_bits = m->code_bits;
        dm.len_bits = m->len_bits;
        dm.esc_code = m->esc_code;
    }
    d->base.coeffs = (const uint4 *)(b + pc[18].off);
    d->base.n_rows = p->n_rows;
    d->base.n_blocks = p->n_blocks;
    *out = d;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_pce_eval(const cuzk_gpu_pce *d, unsigned stream,
                                         const cuzk_fr *w, const uint64_t *is_bit,
                                         const uint64_t *bit_val, cuzk_fr *a, cuzk_fr *b,
                                         cuzk_fr *c, char *err)
{
    gpu_err_clear(err);
    if (!d || (!w && d->n_cols) || (!is_bit != !bit_val) || (c && !d->has_c))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "pce_eval: bad argument");
    cudaStream_t s = gpu_stream(d->ctx, stream, err);
    if (!s) return CUZK_ERR_INVALID_ARGUMENT;
    spmv_args args = d->base;
    args.w = (const uint4 *)w;
    args.is_bit = is_bit;
    args.bit_val = bit_val;
    args.out[0] = (uint4 *)a;
    args.out[1] = (uint4 *)b;
    args.out[2] = (uint4 *)c;
    if (!a && !b && !c) return CUZK_OK;
    CUZK_CUDA_TRY(err, cudaSetDevice(d->ctx->device));
    const uint64_t warps = SPMV_BLOCK / 32; /* a warp per block record */
    dim3 grid((unsigned)((d->base.n_blocks + warps - 1) / warps), 3);
    spmv_kernel<<<grid, SPMV_BLOCK, 0, s>>>(args);
    CUZK_CUDA_TRY_LAUNCH(err);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_pce_eval_host(const cuzk_gpu_pce *d, const cuzk_pce_witness *wit,
                                              cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,
                                              unsigned reps, float *ms, char *err)
{
    gpu_err_clear(err);
    if (!d || !wit || wit->n_w != d->n_cols || (wit->bit_val && !wit->is_bit) ||
        (c && !d->has_c) || (reps && !ms))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "pce_eval_host: bad argument");
    cuzk_gpu_ctx *ctx = d->ctx;
    cudaStream_t s = ctx->streams[0];
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));
    size_t nw = (size_t)d->n_cols * 32, nr = (size_t)d->base.n_rows * 32;
    size_t nbm = ((size_t)d->n_cols + 63) / 64 * 8;
    int bits = wit->bit_val != NULL;
    size_t off_bits = al256(nw), off_out = off_bits + (bits ? 2 * al256(nbm) : 0);
    size_t total = off_out + 3 * al256(nr);
    char *mem = NULL;
    cuzk_status st = gpu_pool_alloc(ctx, &mem, total, "pce_eval_host", err);
    if (st != CUZK_OK) return st;
    cudaError_t e = cudaMemcpyAsync(mem, wit->w, nw, cudaMemcpyHostToDevice, s);
    const uint64_t *dib = NULL, *dbv = NULL;
    if (bits && e == cudaSuccess) {
        dib = (const uint64_t *)(mem + off_bits);
        dbv = (const uint64_t *)(mem + off_bits + al256(nbm));
        e = cudaMemcpyAsync((void *)dib, wit->is_bit, nbm, cudaMemcpyHostToDevice, s);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync((void *)dbv, wit->bit_val, nbm, cudaMemcpyHostToDevice, s);
    }
    cuzk_fr *out[3] = {NULL, NULL, NULL}, *host[3] = {a, b, c};
    for (int k = 0; k < 3; k++)
        if (host[k]) out[k] = (cuzk_fr *)(mem + off_out + k * al256(nr));
    for (unsigned r = 0; e == cudaSuccess && st == CUZK_OK && r <= reps; r++) {
        /* Run 0 is the checked one (and the warm-up); runs 1..reps are timed. */
        if (r > 0 && (e = cudaEventRecord(ctx->ev_start, s)) != cudaSuccess) break;
        st = cuzk_gpu_pce_eval(d, 0, (const cuzk_fr *)mem, dib, dbv, out[0], out[1], out[2], err);
        if (st == CUZK_OK && r > 0) {
            if ((e = cudaEventRecord(ctx->ev_stop, s)) == cudaSuccess &&
                (e = cudaEventSynchronize(ctx->ev_stop)) == cudaSuccess)
                e = cudaEventElapsedTime(&ms[r - 1], ctx->ev_start, ctx->ev_stop);
        }
    }
    for (int k = 0; k < 3 && st == CUZK_OK && e == cudaSuccess; k++)
        if (host[k]) e = cudaMemcpyAsync(host[k], out[k], nr, cudaMemcpyDeviceToHost, s);
    cudaError_t e2 = cudaStreamSynchronize(s);
    if (e == cudaSuccess) e = e2;
    if (st == CUZK_OK && e != cudaSuccess) st = cuzk_gpu_fail(err, e, "pce_eval_host");
    gpu_pool_free(ctx, mem);
    return st;
}
