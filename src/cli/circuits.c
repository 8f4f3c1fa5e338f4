/* cuzk circuits | compile | info | witness: the built-in circuits
 * (circuits.h), compiling circuits into PCE files, and looking into files.
 *
 *   cuzk circuits [--size N]
 *   cuzk compile (--circuit ID [--size N] | --r1cs C.r1cs) --out C.pce [--threads N] [--quiet]
 *   cuzk info FILE                  (.pce, .r1cs, .zkey, .wtns, .params)
 *   cuzk witness --circuit ID [--size N] (--inputs in.json | --seed S [--partition P])
 *                --out W.wtns [--threads N] [--quiet]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cuzk/circuits.h>
#include <cuzk/pce.h>
#include <cuzk/prove.h>

#include "cli.h"

/* --size: "full" or 10..27 (log2 of the constraints of a partition). 0 is
 * refused: it would read as "tiny" but meant the full, 130 M-constraint
 * circuit. */
int cli_parse_size(const char *arg, unsigned *out)
{
    if (!strcmp(arg, "full")) {
        *out = 0;
        return 1;
    }
    char *end;
    unsigned long v = strtoul(arg, &end, 10);
    if (!*arg || *end || arg[0] == '-' || v < 10 || v > 27) {
        cli_fail("--size", "expects full (the real size) or 10..27 (log2 of the constraints "
                           "of a partition)");
        return 0;
    }
    *out = (unsigned)v;
    return 1;
}

int cli_circuit_open(cuzk_circuit **ci, const char *id, unsigned size, int quiet)
{
    char err[CUZK_ERRMSG_LEN];
    if (cuzk_circuit_open(ci, id, size, err) != CUZK_OK) {
        cli_fail("--circuit", err);
        return 0;
    }
    const cuzk_circuit_info *in = cuzk_circuit_describe(*ci);
    /* A circuit cannot shrink below its smallest structure (circuits.h):
     * say what the size became rather than let 2^10 silently be 2^16. */
    if (!quiet && size && in->n_constraints > ((uint64_t)3 << size) / 2)
        fprintf(stderr, "note: %s cannot be as small as 2^%u constraints: --size %u gives its "
                "smallest form, ~%llu constraints\n", id, size, size,
                (unsigned long long)in->n_constraints);
    return 1;
}

int cli_parse_u64(const char *what, const char *arg, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(arg, &end, 10);
    if (!*arg || *end || arg[0] == '-' || v > max) {
        fprintf(stderr, "cuzk: %s: expects an integer 0..%llu\n", what, (unsigned long long)max);
        return 0;
    }
    *out = v;
    return 1;
}

/* ------------------------------------------------- witness of a circuit -- */

int cli_circuit_witness(const cli_circuit_job *job, unsigned threads, int quiet,
                        cli_circuit_witness_out *out)
{
    memset(out, 0, sizeof *out);
    int ok = 0;
    char err[CUZK_ERRMSG_LEN];
    cuzk_circuit *ci = NULL;
    cuzk_blob b = {0};
    cuzk_cs cs = {0};
    if (!cli_circuit_open(&ci, job->id, job->size, quiet)) goto out;
    const cuzk_circuit_info *in = cuzk_circuit_describe(ci);
    cuzk_circuit_job cj = {job->id, job->size, NULL, 0, job->seed, (unsigned)job->partition};
    if (job->inputs) {
        if (!cli_read_file(&b, job->inputs)) goto out;
        cj.inputs = (const char *)b.data;
        cj.inputs_len = b.size;
    }
    if (!quiet)
        fprintf(stderr, "computing the witness of %s (~%llu constraints)...\n", job->id,
                (unsigned long long)in->n_constraints);
    double t0 = cli_now_ms();
    if (cuzk_circuit_job_witness(ci, &cj, &cs, threads, err) != CUZK_OK) {
        cli_fail(job->inputs ? job->inputs : job->id, err);
        goto out;
    }
    out->witness_ms = cli_now_ms() - t0;
    cuzk_cs_get_shape(&cs, &out->shape);
    out->n = (size_t)out->shape.n_inputs + out->shape.n_aux;
    out->est_constraints = in->n_constraints;
    out->w = malloc(out->n * sizeof *out->w);
    if (!out->w || cuzk_cs_witness(&cs, out->w, out->n) != CUZK_OK) {
        cli_fail("witness", "out of memory for the dense witness");
        free(out->w);
        out->w = NULL;
        goto out;
    }
    ok = 1;
out:
    cuzk_cs_free(&cs);
    cuzk_blob_release(&b);
    cuzk_circuit_close(ci);
    return ok;
}

/* What a circuit is at a scaled size: its structure's numbers (the `what`
 * line describes the full-size circuit). buf holds 256 bytes. */
static void scaled_what(char *buf, const cuzk_circuit_info *in)
{
    const struct {
        const char *name;
        unsigned v;
    } f[] = {{"sectors", in->sectors},         {"challenges", in->challenges},
             {"layers", in->layers},           {"label bytes", in->label_bytes},
             {"parents", in->parents},         {"SHA-256 tree depth", in->sha_depth},
             {"Poseidon tree depth", in->poseidon_depth}};
    size_t k = (size_t)snprintf(buf, 256, "at 2^%u:", in->log_size);
    for (size_t i = 0; i < sizeof f / sizeof f[0] && k < 200; i++)
        if (f[i].v) k += (size_t)snprintf(buf + k, 256 - k, " %u %s,", f[i].v, f[i].name);
    buf[k - 1] = 0; /* the last comma, or the colon when nothing was named */
}

int cmd_circuits(int argc, char **argv)
{
    unsigned size = 0;
    static const struct option opts[] = {{"size", required_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 's') {
            if (!cli_parse_size(optarg, &size)) return EXIT_UNUSABLE;
        } else if (c == 'h') {
            printf("usage: cuzk circuits [--size full|N]\n"
                   "  Lists the built-in circuits (synthetic Filecoin-shaped workloads) at\n"
                   "  their real size (full, the default) or scaled to about 2^N constraints\n"
                   "  a partition (N = 10..27), with the structure they have at that size.\n"
                   "  A circuit smaller than its smallest form keeps that form.\n");
            return 0;
        } else {
            return EXIT_UNUSABLE;
        }
    }
    if (optind < argc) return cli_fail("circuits", "unexpected argument (see --help)");
    printf("%-12s %10s %15s %9s %11s  %s\n", "id", "partitions", "constraints/part", "inputs",
           "challenges", "what");
    for (unsigned i = 0; i < cuzk_circuit_count(); i++) {
        cuzk_circuit *ci;
        char err[CUZK_ERRMSG_LEN];
        if (cuzk_circuit_open(&ci, cuzk_circuit_id(i), size, err) != CUZK_OK)
            return cli_fail("circuits", err);
        const cuzk_circuit_info *in = cuzk_circuit_describe(ci);
        char what[256];
        if (size) scaled_what(what, in);
        printf("%-12s %10u %15llu %9u %11u  %s\n", in->id, in->partitions,
               (unsigned long long)in->n_constraints, in->n_inputs, in->challenges,
               size ? what : in->what);
        cuzk_circuit_close(ci);
    }
    printf("(constraint counts are estimates; `cuzk compile` records the exact ones)\n");
    return 0;
}

int cmd_compile(int argc, char **argv)
{
    const char *id = NULL, *r1cs_path = NULL, *out = NULL;
    unsigned size = 0, threads = 0;
    int quiet = 0;
    static const struct option opts[] = {
        {"circuit", required_argument, 0, 'c'}, {"size", required_argument, 0, 's'},
        {"r1cs", required_argument, 0, 'r'},    {"out", required_argument, 0, 'o'},
        {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': id = optarg; break;
        case 's':
            if (!cli_parse_size(optarg, &size)) return EXIT_UNUSABLE;
            break;
        case 'r': r1cs_path = optarg; break;
        case 'o': out = optarg; break;
        case 't':
            if (!cli_parse_threads(optarg, &threads)) return EXIT_UNUSABLE;
            break;
        case 'q': quiet = 1; break;
        case 'h':
            printf("usage: cuzk compile (--circuit ID [--size N] | --r1cs C.r1cs) --out C.pce\n"
                   "                    [--threads N] [--quiet]\n"
                   "  Records a built-in circuit's partition (or reads a circom .r1cs) and\n"
                   "  compiles it into a PCE file (docs/pce.md). Full-size porep-32g needs\n"
                   "  ~11 GB of memory while recording.\n");
            return 0;
        default: return EXIT_UNUSABLE;
        }
    }
    if (optind < argc) return cli_fail("compile", "unexpected argument (see --help)");
    if (!id == !r1cs_path) return cli_fail("compile", "give exactly one of --circuit and --r1cs");
    if (!out) return cli_fail("compile", "--out is required");
    const cli_path ins[] = {{"--r1cs", r1cs_path}}, outs[] = {{"--out", out}};
    if (!cli_check_paths("compile", ins, 1, outs, 1)) return EXIT_UNUSABLE;
    int rc = EXIT_UNUSABLE;
    char err[CUZK_ERRMSG_LEN];
    cuzk_circuit *ci = NULL;
    cuzk_matrices m = {0};
    cuzk_r1cs r = {0};
    cuzk_blob b = {0};
    cuzk_pce p = {0};
    double t0 = cli_now_ms();
    if (id) {
        if (!cli_circuit_open(&ci, id, size, quiet)) goto out;
        const cuzk_circuit_info *in = cuzk_circuit_describe(ci);
        if (!size && !cli_full_size_plan(in, "compile", outs, 1, 0, 0)) goto out;
        if (!quiet)
            fprintf(stderr, "recording %s (~%llu constraints a partition)...\n", id,
                    (unsigned long long)in->n_constraints);
        cuzk_cs_shape sh;
        if (cuzk_circuit_record(ci, &m, &sh, err) != CUZK_OK) {
            cli_fail(id, err);
            goto out;
        }
        if (!quiet)
            fprintf(stderr, "recorded %llu constraints in %.1f s; compiling...\n",
                    (unsigned long long)sh.n_constraints, (cli_now_ms() - t0) / 1e3);
        if (cuzk_pce_compile(&p, &m, sh.n_inputs, sh.n_aux, 0, threads, err) != CUZK_OK) {
            cli_fail(id, err);
            goto out;
        }
        cuzk_matrices_free(&m);
    } else {
        if (!cli_read_file(&b, r1cs_path)) goto out;
        if (cuzk_r1cs_parse(&r, b.data, b.size, err) != CUZK_OK ||
            cuzk_pce_from_r1cs(&p, &r, 0, threads, err) != CUZK_OK) {
            cli_fail(r1cs_path, err);
            goto out;
        }
    }
    if (cuzk_pce_save(&p, out, err) != CUZK_OK) {
        cli_fail(out, err);
        goto out;
    }
    if (!quiet)
        printf("wrote %s: %llu rows, %llu columns, %llu non-zeros, %.2f bytes/nnz, %.1f MB, "
               "%.1f s\n", out, (unsigned long long)p.n_rows, (unsigned long long)p.n_cols,
               (unsigned long long)cuzk_pce_nnz(&p), cuzk_pce_bytes_per_nnz(&p),
               p.image_size / 1e6, (cli_now_ms() - t0) / 1e3);
    rc = 0;
out:
    cuzk_pce_free(&p);
    cuzk_matrices_free(&m);
    cuzk_r1cs_free(&r);
    cuzk_blob_release(&b);
    cuzk_circuit_close(ci);
    return rc;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static void print_matrices(const cuzk_matrices *m)
{
    printf("  non-zeros      A %llu, B %llu, C %llu\n", (unsigned long long)m->a.n_terms,
           (unsigned long long)m->b.n_terms, (unsigned long long)m->c.n_terms);
    printf("  coefficients   %u distinct\n", m->n_coeffs);
}

static int info_pce(const char *path)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_pce p = {0};
    if (cuzk_pce_load(&p, path, 0, 0, err) != CUZK_OK) { /* err names the file */
        fprintf(stderr, "cuzk: %s\n", err);
        return EXIT_UNUSABLE;
    }
    const char *mn[3] = {"A", "B", "C"};
    printf("%s: PCE v%u, %.1f MB\n", path, CUZK_PCE_VERSION, p.image_size / 1e6);
    printf("  constraints    %llu%s\n", (unsigned long long)p.n_rows,
           p.flags & CUZK_PCE_HAS_INPUT_ROWS ? " (input rows included)" : "");
    printf("  variables      %llu (%llu inputs with ONE, %llu aux)\n",
           (unsigned long long)p.n_cols, (unsigned long long)p.n_inputs,
           (unsigned long long)p.n_aux);
    printf("  non-zeros      %llu, %.2f bytes/nnz\n", (unsigned long long)cuzk_pce_nnz(&p),
           cuzk_pce_bytes_per_nnz(&p));
    for (int k = 0; k < 3; k++)
        printf("    %s            %llu (%.2f a row), %u+%u bits a term, %llu escaped, %llu long "
               "rows\n", mn[k], (unsigned long long)p.m[k].nnz,
               p.n_rows ? (double)p.m[k].nnz / p.n_rows : 0.0, p.m[k].col_bits,
               p.m[k].code_bits, (unsigned long long)p.m[k].n_esc,
               (unsigned long long)p.m[k].n_long);
    printf("  coefficients   %llu distinct\n", (unsigned long long)p.n_coeffs);
    for (int k = 0; k < 2; k++)
        printf("  density %s     inputs %llu/%llu, aux %llu/%llu (%.2f%%)\n", mn[k],
               (unsigned long long)p.dens_count[k][0], (unsigned long long)p.n_inputs,
               (unsigned long long)p.dens_count[k][1], (unsigned long long)p.n_aux,
               p.n_aux ? 100.0 * p.dens_count[k][1] / p.n_aux : 0.0);
    cuzk_pce_free(&p);
    return 0;
}

/* A .cuzk key file, checked in full: checksums, every point on its curve. */
static int info_key(const char *path)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_keyfile kf = {0};
    double t0 = cli_now_ms();
    if (cuzk_keyfile_map(&kf, path, 0, 0, err) != CUZK_OK) { /* err names the file */
        fprintf(stderr, "cuzk: %s\n", err);
        return EXIT_UNUSABLE;
    }
    const cuzk_groth16_pk *pk = &kf.pk;
    uint64_t n_h = pk->h_form == CUZK_H_LAGRANGE ? (uint64_t)1 << pk->log_domain
                                                  : ((uint64_t)1 << pk->log_domain) - 1;
    printf("%s: cuzk key file, version %u%s%s\n", path, kf.version, kf.label[0] ? " -- " : "",
           kf.label);
    printf("  variables      %u (%u public), %u in B (%.2f%%)\n", pk->n_vars, pk->n_public,
           pk->n_b, pk->n_vars ? 100.0 * pk->n_b / pk->n_vars : 0.0);
    printf("  domain         2^%u, %s roots, %s H query\n", pk->log_domain,
           pk->roots == CUZK_ROOTS_SNARKJS ? "snarkjs" : "bellperson",
           pk->h_form == CUZK_H_LAGRANGE ? "Lagrange" : "monomial");
    printf("  points         A %u, B1 %u, B2 %u, L %u, H %llu\n", pk->n_vars, pk->n_b, pk->n_b,
           pk->n_vars - pk->n_public - 1, (unsigned long long)n_h);
    if (kf.has_matrices) print_matrices(&pk->m);
    else printf("  matrices       none (prove with the circuit's PCE: cuzk prove --pce)\n");
    printf("  size           %.1f MB; checksums and points checked in %.1f s\n",
           kf.image_size / 1e6, (cli_now_ms() - t0) / 1e3);
    cuzk_keyfile_close(&kf);
    return 0;
}

int cmd_info(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        int help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
        FILE *f = help ? stdout : stderr;
        fprintf(f, "usage: cuzk info FILE\n  Describes a .pce, .cuzk, .r1cs, .zkey, .wtns or "
                   ".params file\n  (a .cuzk key is checked in full: checksums and points).\n");
        return f == stdout ? 0 : EXIT_UNUSABLE;
    }
    const char *path = argv[1];
    if (ends_with(path, ".pce")) return info_pce(path);
    if (ends_with(path, ".cuzk")) return info_key(path);
    char err[CUZK_ERRMSG_LEN];
    cuzk_blob b = {0};
    int rc = EXIT_UNUSABLE;
    if (cuzk_blob_map(&b, path, err) != CUZK_OK) return cli_fail(path, err);
    if (ends_with(path, ".r1cs")) {
        cuzk_r1cs r = {0};
        if (cuzk_r1cs_parse(&r, b.data, b.size, err) != CUZK_OK) {
            cli_fail(path, err);
        } else {
            printf("%s: circom R1CS\n  constraints    %u\n  wires          %u (%u public "
                   "outputs, %u public inputs, %u private inputs)\n", path, r.n_constraints,
                   r.n_wires, r.n_pub_out, r.n_pub_in, r.n_prv_in);
            print_matrices(&r.m);
            rc = 0;
        }
        cuzk_r1cs_free(&r);
    } else if (ends_with(path, ".zkey")) {
        cuzk_zkey z = {0};
        if (cuzk_zkey_parse(&z, b.data, b.size, CUZK_FMT_TRUST_POINTS, err) != CUZK_OK) {
            cli_fail(path, err);
        } else {
            printf("%s: snarkjs Groth16 key\n  constraints    %u\n  variables      %u (%u "
                   "public)\n  domain         2^%u\n  points         A %llu, B1 %llu, B2 %llu, "
                   "C %llu, H %llu\n", path, z.n_constraints, z.n_vars, z.n_public,
                   z.log_domain, (unsigned long long)z.a.n, (unsigned long long)z.b1.n,
                   (unsigned long long)z.b2.n, (unsigned long long)z.c.n,
                   (unsigned long long)z.h.n);
            print_matrices(&z.m);
            rc = 0;
        }
        cuzk_zkey_free(&z);
    } else if (ends_with(path, ".wtns")) {
        cuzk_wtns w = {0};
        if (cuzk_wtns_parse(&w, b.data, b.size, err) != CUZK_OK) {
            cli_fail(path, err);
        } else {
            uint64_t bits = 0;
            for (uint32_t i = 0; i < w.n; i++)
                bits += cuzk_fr_is_zero(&w.w[i]) || cuzk_fr_eq(&w.w[i], &CUZK_FR_ONE);
            printf("%s: iden3 witness\n  values         %u (%.1f%% are 0 or 1)\n", path, w.n,
                   w.n ? 100.0 * bits / w.n : 0.0);
            rc = 0;
        }
        cuzk_wtns_free(&w);
    } else if (ends_with(path, ".params")) {
        cuzk_bp_params p = {0};
        if (cuzk_bp_params_parse(&p, b.data, b.size, CUZK_FMT_TRUST_POINTS, err) != CUZK_OK) {
            cli_fail(path, err);
        } else {
            printf("%s: bellperson Groth16 parameters\n  public inputs  %u (IC points, ONE "
                   "included)\n  domain         %u\n  points         H %llu, L %llu, A %llu, "
                   "B_G1 %llu, B_G2 %llu\n", path, p.vk.n_ic, p.domain_size,
                   (unsigned long long)p.h.n, (unsigned long long)p.l.n,
                   (unsigned long long)p.a.n, (unsigned long long)p.b_g1.n,
                   (unsigned long long)p.b_g2.n);
            rc = 0;
        }
        cuzk_bp_params_free(&p);
    } else {
        cli_fail(path, "unknown kind of file (expected .pce, .cuzk, .r1cs, .zkey, .wtns or .params)");
    }
    cuzk_blob_release(&b);
    return rc;
}

int cmd_witness(int argc, char **argv)
{
    const char *id = NULL, *inputs = NULL, *out = NULL;
    unsigned size = 0, threads = 0;
    uint64_t seed = 0, partition = 0;
    int quiet = 0, have_seed = 0;
    static const struct option opts[] = {
        {"circuit", required_argument, 0, 'c'}, {"size", required_argument, 0, 's'},
        {"inputs", required_argument, 0, 'i'},  {"seed", required_argument, 0, 'S'},
        {"partition", required_argument, 0, 'p'}, {"out", required_argument, 0, 'o'},
        {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': id = optarg; break;
        case 's':
            if (!cli_parse_size(optarg, &size)) return EXIT_UNUSABLE;
            break;
        case 'i': inputs = optarg; break;
        case 'S':
            if (!cli_parse_u64("--seed", optarg, INT64_MAX, &seed)) return EXIT_UNUSABLE;
            have_seed = 1;
            break;
        case 'p':
            if (!cli_parse_u64("--partition", optarg, 1u << 20, &partition)) return EXIT_UNUSABLE;
            break;
        case 'o': out = optarg; break;
        case 't':
            if (!cli_parse_threads(optarg, &threads)) return EXIT_UNUSABLE;
            break;
        case 'q': quiet = 1; break;
        case 'h':
            printf("usage: cuzk witness --circuit ID [--size N] (--inputs in.json | --seed S\n"
                   "                    [--partition P]) --out W.wtns [--threads N] [--quiet]\n"
                   "  Computes one partition's witness of a built-in circuit from its inputs\n"
                   "  ({\"seed\", \"partition\", \"challenges\"}, circuits.h) and writes it as\n"
                   "  an iden3 .wtns.\n");
            return 0;
        default: return EXIT_UNUSABLE;
        }
    }
    if (optind < argc) return cli_fail("witness", "unexpected argument (see --help)");
    if (!id || !out) return cli_fail("witness", "--circuit and --out are required");
    if (!inputs == !have_seed) return cli_fail("witness", "give exactly one of --inputs and --seed");
    const cli_path ins[] = {{"--inputs", inputs}}, outs[] = {{"--out", out}};
    if (!cli_check_paths("witness", ins, 1, outs, 1)) return EXIT_UNUSABLE;
    int rc = EXIT_UNUSABLE;
    char err[CUZK_ERRMSG_LEN];
    uint8_t *img = NULL;
    size_t img_len = 0;
    double t0 = cli_now_ms();
    cli_circuit_job job = {id, size, inputs, seed, partition};
    cli_circuit_witness_out wit;
    if (!cli_circuit_witness(&job, threads, quiet, &wit)) goto out;
    if (cuzk_wtns_encode(&img, &img_len, wit.w, wit.n) != CUZK_OK) {
        cli_fail("witness", "out of memory for the .wtns");
        goto out;
    }
    if (cuzk_file_write(out, img, img_len, err) != CUZK_OK) {
        cli_fail(out, err);
        goto out;
    }
    if (!quiet)
        printf("wrote %s: %zu values (%u inputs, %u bits, %u fields); witness %.1f ms, total "
               "%.1f ms\n", out, wit.n, wit.shape.n_inputs, wit.shape.n_aux_bits,
               wit.shape.n_aux_fields, wit.witness_ms, cli_now_ms() - t0);
    rc = 0;
out:
    free(img);
    free(wit.w);
    return rc;
}

/* ------------------------------------------------- full-size resources -- */

/* Free bytes where output path will be written; UINT64_MAX when that is a
 * device or FIFO (no file is made) or cannot be told. */
static uint64_t free_bytes(const char *path)
{
    char *t = cuzk_out_target(path);
    struct stat st;
    struct statvfs fs;
    uint64_t n = UINT64_MAX;
    if (!t) return n;
    if (stat(t, &st) == 0 && !S_ISREG(st.st_mode)) {
        free(t);
        return n;
    }
    char *slash = strrchr(t, '/');
    if (slash) slash[1] = 0;
    if (statvfs(slash ? t : ".", &fs) == 0) n = (uint64_t)fs.f_bavail * fs.f_frsize;
    free(t);
    return n;
}

int cli_full_size_plan(const cuzk_circuit_info *in, const char *cmd, const cli_path *outs,
                       size_t n_outs, int key, int matrices)
{
    /* Measured (circuits.h): porep-32g records ~85 bytes and ~5.5 terms a
     * constraint (11 GB, 722 M terms for 130 M); the Poseidon circuits
     * ~287 bytes and ~29 terms (wpost-32g, 2^20..2^22). Compiling peaks at
     * ~1.3 times the recording; a PCE takes ~4.5 bytes a term. */
    int porep = !strcmp(in->id, "porep-32g");
    double n = (double)in->n_constraints, per = porep ? 85 : 287, terms = (porep ? 5.5 : 29) * n;
    double rec = per * n, domain = 2;
    while (domain < n + in->n_inputs) domain *= 2;
    /* A key holds A, L, H (G1, 96 bytes a point) at least, plus B over its
     * density (unknown before setup: not counted) and 8 bytes a term of
     * matrices. */
    double out = key ? 96 * (2 * n + domain) + (matrices ? 8 * terms : 0) : 4.5 * terms;
    double mem = key ? rec + out : 1.3 * rec;
    fprintf(stderr, "%s: %s at full size (~%.0f M constraints a partition) needs ~%.1f GB of "
            "memory and %s%.1f GB of disk for each output\n", cmd, in->id, n / 1e6, mem / 1e9,
            key ? "at least " : "~", out / 1e9);
    for (size_t i = 0; i < n_outs; i++) {
        if (!outs[i].path) continue;
        uint64_t f = free_bytes(outs[i].path);
        if (f != UINT64_MAX && (double)f < out) {
            fprintf(stderr, "cuzk: %s: %s %s: its file system has %.1f GB free, the output "
                    "needs %s%.1f GB\n", cmd, outs[i].flag, outs[i].path, f / 1e9,
                    key ? "at least " : "~", out / 1e9);
            return 0;
        }
    }
    return 1;
}
