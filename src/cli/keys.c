/* cuzk setup / cuzk import: making and converting proving keys.
 *
 *   cuzk setup (--r1cs C.r1cs | --circuit ID [--size N]) [--out key.cuzk]
 *              [--roots snarkjs|bellperson] [--zkey K.zkey]
 *              [--params P.params --vk V.vk] [--seed N] [--threads N]
 *              [--no-matrices] [--cpu] [--quiet]
 *   cuzk import (--zkey K.zkey | --params P.params --r1cs C.r1cs
 *               [--snarkjs-export]) --out key.cuzk [--pce C.pce] [--threads N] [--quiet]
 *   cuzk export-vk --key key.cuzk --out vk.json
 *
 * Setup keys are INSECURE (one party knows the toxic waste): for tests and
 * benchmarks. Setup's fixed-base multiplications run on the GPU when the
 * tool is built with CUDA and a device is present (gpu.c; --cpu keeps them
 * on the CPU). Progress goes to stderr (--quiet silences it). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/circuits.h>
#include <cuzk/formats.h>
#include <cuzk/groth16.h>
#include <cuzk/pce.h>

#include "cli.h"

/* ------------------------------------------------------ circuit source -- */

/* What setup needs from a circuit: the constraints (no input rows), the
 * number of inputs (ONE included) and of private variables. Owned. */
typedef struct {
    cuzk_matrices m;
    uint32_t n_inputs, n_aux;
    char what[256]; /* for messages: "C.r1cs (3 constraints)" */
} setup_circuit;

/* A built-in circuit (circuits.h), recorded: one partition's constraints. */
static int circuit_record(setup_circuit *c, const char *id, unsigned size, int quiet,
                          const cli_path *outs, size_t n_outs, int matrices)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_circuit *ci;
    cuzk_cs_shape sh;
    if (!cli_circuit_open(&ci, id, size, quiet)) return 0;
    if (!size && !cli_full_size_plan(cuzk_circuit_describe(ci), "setup", outs, n_outs, 1,
                                     matrices)) {
        cuzk_circuit_close(ci);
        return 0;
    }
    if (!quiet)
        fprintf(stderr, "setup: recording %s (~%llu constraints)...\n", id,
                (unsigned long long)cuzk_circuit_describe(ci)->n_constraints);
    cuzk_status s = cuzk_circuit_record(ci, &c->m, &sh, err);
    cuzk_circuit_close(ci);
    if (s != CUZK_OK) {
        cli_fail(id, err);
        return 0;
    }
    c->n_inputs = sh.n_inputs;
    c->n_aux = sh.n_aux;
    char at[16];
    snprintf(at, sizeof at, size ? "2^%u" : "full size", size);
    snprintf(c->what, sizeof c->what, "%s at %s (%llu constraints)", id, at,
             (unsigned long long)sh.n_constraints);
    return 1;
}

/* The one place a circuit comes from: a .r1cs file or a built-in circuit
 * id at a size. 0 on failure (reported). */
static int circuit_load(setup_circuit *c, const char *r1cs_path, const char *id, unsigned size,
                        int quiet, const cli_path *outs, size_t n_outs, int matrices)
{
    memset(c, 0, sizeof *c);
    if (!r1cs_path == !id) {
        cli_fail("setup", "give the circuit: --r1cs C.r1cs or --circuit ID (one of them)");
        return 0;
    }
    if (id) return circuit_record(c, id, size, quiet, outs, n_outs, matrices);
    char err[CUZK_ERRMSG_LEN];
    cuzk_blob b = {0};
    cuzk_r1cs r;
    if (!cli_read_file(&b, r1cs_path)) return 0;
    cuzk_status s = cuzk_r1cs_parse(&r, b.data, b.size, err);
    cuzk_blob_release(&b);
    if (s != CUZK_OK) {
        fprintf(stderr, "cuzk: %s: %s\n", r1cs_path, err);
        return 0;
    }
    c->m = r.m; /* moved out of r */
    memset(&r.m, 0, sizeof r.m);
    c->n_inputs = r.n_public + 1;
    c->n_aux = r.n_wires - c->n_inputs;
    snprintf(c->what, sizeof c->what, "%s (%u constraints)", r1cs_path, r.n_constraints);
    cuzk_r1cs_free(&r);
    return 1;
}

static void circuit_free(setup_circuit *c) { cuzk_matrices_free(&c->m); }

/* ------------------------------------------------------------ progress -- */

typedef struct {
    double t0, last;
    const char *stage;
} progress_state;

/* One line per finished stage, and one every 2 s within a long stage. */
static void on_progress(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    progress_state *p = ctx;
    double now = cli_now_ms();
    if (done < total && now - p->last < 2000 && p->stage == stage) return;
    p->last = now;
    p->stage = stage;
    fprintf(stderr, "setup: %8.1f s  %-24s %llu / %llu\n", (now - p->t0) / 1e3, stage,
            (unsigned long long)done, (unsigned long long)total);
}

static void describe(const cuzk_groth16_pk *pk, const char *label)
{
    printf("key: %u variables (%u in B), %u public, domain 2^%u, %s roots (%d), %s H "
           "query%s%s\n",
           pk->n_vars, pk->n_b, pk->n_public, pk->log_domain,
           pk->roots == CUZK_ROOTS_SNARKJS ? "snarkjs" : "bellperson", (int)pk->roots,
           pk->h_form == CUZK_H_LAGRANGE ? "Lagrange" : "monomial", label && *label ? " -- " : "",
           label ? label : "");
}

static int usage_setup(FILE *f, int status)
{
    fprintf(f,
            "usage: cuzk setup (--r1cs C.r1cs | --circuit ID [--size full|N]) [--out key.cuzk]\n"
            "                  [--roots snarkjs|bellperson] [--zkey K.zkey]\n"
            "                  [--params P.params --vk V.vk] [--seed N] [--threads N]\n"
            "                  [--no-matrices] [--cpu] [--quiet]\n"
            "  Groth16 setup with fresh toxic waste (OS CSPRNG; --seed N: reproducible)\n"
            "  for a circom .r1cs or a built-in circuit's partition (`cuzk circuits`;\n"
            "  --size full, the default, or N = 10..27 for ~2^N constraints).\n"
            "  INSECURE: for tests and benchmarks. Writes the key as a .cuzk key file,\n"
            "  a snarkjs .zkey (snarkjs roots) and/or a bellperson .params + .vk\n"
            "  (bellperson roots). --roots defaults to the convention of the outputs.\n"
            "  --no-matrices leaves the constraint matrices out of the .cuzk file\n"
            "  (a full-size circuit's PCE, `cuzk compile`, carries them in 4-5 B per\n"
            "  non-zero). The multiplications run on GPU 0 if there is one (--cpu: not).\n"
            "  At full size it first says the memory and disk it needs (a porep-32g key:\n"
            "  ~47.5 GB) and refuses when an output's disk cannot hold it.\n");
    return status;
}

static int usage_import(FILE *f, int status)
{
    fprintf(f,
            "usage: cuzk import (--zkey K.zkey | --params P.params --r1cs C.r1cs\n"
            "                   [--snarkjs-export]) --out key.cuzk [--pce C.pce] [--threads N]\n"
            "                   [--quiet]\n"
            "  Converts a key into a .cuzk key file (checked: every point decoded);\n"
            "  --pce also compiles its constraints into a PCE (cuzk prove --pce).\n"
            "  --snarkjs-export marks a .params written by `snarkjs zkey export bellman`.\n");
    return status;
}

static int usage_export_vk(FILE *f, int status)
{
    fprintf(f,
            "usage: cuzk export-vk --key key.cuzk --out vk.json\n"
            "  Writes the key's verifying key as a snarkjs vk.json (cuzk verify --vk).\n");
    return status;
}

/* ---------------------------------------------------------------- setup -- */

int cmd_setup(int argc, char **argv)
{
    const char *r1cs = NULL, *out = NULL, *roots_s = NULL, *zkey = NULL, *params = NULL,
               *vk = NULL, *id = NULL;
    unsigned threads = 0, size = 0;
    int have_size = 0;
    int quiet = 0, have_seed = 0, no_matrices = 0, cpu = 0;
    uint64_t seed = 0;
    static const struct option opts[] = {
        {"no-matrices", no_argument, 0, 'M'}, {"cpu", no_argument, 0, 'C'},
        {"r1cs", required_argument, 0, 'r'},  {"out", required_argument, 0, 'o'},
        {"roots", required_argument, 0, 'R'}, {"zkey", required_argument, 0, 'z'},
        {"params", required_argument, 0, 'P'}, {"vk", required_argument, 0, 'v'},
        {"seed", required_argument, 0, 's'},  {"threads", required_argument, 0, 't'},
        {"quiet", no_argument, 0, 'q'},       {"circuit", required_argument, 0, 'c'},
        {"size", required_argument, 0, 'Z'},  {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'r': r1cs = optarg; break;
        case 'c': id = optarg; break;
        case 'Z':
            if (!cli_parse_size(optarg, &size)) return EXIT_UNUSABLE;
            have_size = 1;
            break;
        case 'o': out = optarg; break;
        case 'R': roots_s = optarg; break;
        case 'z': zkey = optarg; break;
        case 'P': params = optarg; break;
        case 'v': vk = optarg; break;
        case 's':
            seed = strtoull(optarg, &end, 0);
            if (!*optarg || *end) return cli_fail("--seed", "expects an unsigned integer");
            have_seed = 1;
            break;
        case 't':
            if (!cli_parse_threads(optarg, &threads)) return EXIT_UNUSABLE;
            break;
        case 'q': quiet = 1; break;
        case 'M': no_matrices = 1; break;
        case 'C': cpu = 1; break;
        case 'h': return usage_setup(stdout, 0);
        default: return usage_setup(stderr, EXIT_UNUSABLE);
        }
    }
    if (optind < argc) return cli_fail("setup", "unexpected argument (see --help)");
    if (no_matrices && !out) return cli_fail("setup", "--no-matrices goes with --out key.cuzk");
    if (have_size && !id) return cli_fail("setup", "--size goes with --circuit");
    if (!out && !zkey && !params)
        return cli_fail("setup", "no output: give --out, --zkey or --params (see --help)");
    if (!params != !vk) return cli_fail("setup", "--params and --vk go together");
    if (zkey && params)
        return cli_fail("setup", "--zkey needs snarkjs roots and --params bellperson roots: "
                                 "run setup once for each");
    cuzk_roots roots = params ? CUZK_ROOTS_BELLPERSON : CUZK_ROOTS_SNARKJS;
    if (roots_s) {
        if (!strcmp(roots_s, "snarkjs")) roots = CUZK_ROOTS_SNARKJS;
        else if (!strcmp(roots_s, "bellperson")) roots = CUZK_ROOTS_BELLPERSON;
        else return cli_fail("--roots", "expects snarkjs or bellperson");
    }
    if (zkey && roots != CUZK_ROOTS_SNARKJS)
        return cli_fail("setup", "a .zkey needs --roots snarkjs");
    if (params && roots != CUZK_ROOTS_BELLPERSON)
        return cli_fail("setup", "a .params needs --roots bellperson");
    const cli_path ins[] = {{"--r1cs", r1cs}};
    const cli_path outs[] = {{"--out", out}, {"--zkey", zkey}, {"--params", params}, {"--vk", vk}};
    if (!cli_check_paths("setup", ins, 1, outs, 4)) return EXIT_UNUSABLE;

    setup_circuit circ;
    if (!circuit_load(&circ, r1cs, id, size, quiet, outs, 4, !no_matrices))
        return EXIT_UNUSABLE;
    int rc = EXIT_UNUSABLE;
    char err[CUZK_ERRMSG_LEN];
    cuzk_groth16_pk pk = {0};
    progress_state ps = {cli_now_ms(), 0, NULL};
    cuzk_setup_opts o = {roots, threads, have_seed ? &seed : NULL, quiet ? NULL : on_progress,
                         &ps, NULL, NULL, NULL};
    cli_gpu *gpu = cpu ? NULL : cli_gpu_open(quiet);
    cli_gpu_setup_hook(gpu, &o);
    if (!quiet)
        fprintf(stderr, "setup: %s, %s roots -- %s\n", circ.what,
                roots == CUZK_ROOTS_SNARKJS ? "snarkjs" : "bellperson", CUZK_SETUP_LABEL);
    double t0 = cli_now_ms();
    if (cuzk_groth16_setup(&pk, &circ.m, circ.n_inputs, circ.n_aux, &o, err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s\n", err);
        goto done;
    }
    double t_setup = cli_now_ms() - t0;
    cli_gpu_close(gpu); /* before the writes: they can take a while */
    gpu = NULL;
    unsigned wflags = no_matrices ? CUZK_KEYFILE_NO_MATRICES : 0;
    if (out && cuzk_keyfile_write(out, &pk, CUZK_SETUP_LABEL, wflags, err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s\n", err);
        goto done;
    }
    if (out && !quiet)
        fprintf(stderr, "setup: %8.1f s  wrote %s\n", (cli_now_ms() - ps.t0) / 1e3, out);
    if (zkey && cuzk_zkey_write_pk(zkey, &pk, NULL, 0, err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s\n", err);
        goto done;
    }
    if (zkey && !quiet)
        fprintf(stderr, "setup: %8.1f s  wrote %s\n", (cli_now_ms() - ps.t0) / 1e3, zkey);
    if (params && cuzk_groth16_pk_write_params(params, vk, &pk, err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s\n", err);
        goto done;
    }
    if (params && !quiet)
        fprintf(stderr, "setup: %8.1f s  wrote %s and %s\n", (cli_now_ms() - ps.t0) / 1e3,
                params, vk);
    if (!quiet) {
        uint64_t n = (uint64_t)pk.n_vars, pts = 2 * n + 2 * (uint64_t)pk.n_b +
                                                 ((uint64_t)1 << pk.log_domain);
        describe(&pk, CUZK_SETUP_LABEL);
        printf("  setup %.2f s (%.0f points/s, G2 counted as one), total %.2f s\n",
               t_setup / 1e3, (double)pts / (t_setup / 1e3), (cli_now_ms() - t0) / 1e3);
    }
    rc = 0;
done:
    cli_gpu_close(gpu);
    cuzk_groth16_pk_free(&pk);
    circuit_free(&circ);
    return rc;
}

/* --------------------------------------------------------------- import -- */

/* Compiles pk's rows into a PCE at path. The key's rows end with one input
 * row A = 1 x_i per input (the layout every key reader makes); the PCE is
 * compiled from the rows before them with CUZK_PCE_INPUT_ROWS, which appends
 * the same rows, so it is marked as having them. */
static int import_pce(const cuzk_groth16_pk *pk, const char *path, unsigned threads)
{
    char err[CUZK_ERRMSG_LEN];
    const cuzk_matrices *m = &pk->m;
    uint64_t n_in = (uint64_t)pk->n_public + 1;
    if (m->n_rows < n_in) return cli_fail(path, "the key has fewer rows than inputs");
    uint64_t n = m->n_rows - n_in;
    for (uint64_t i = 0; i < n_in; i++) {
        const cuzk_sparse *sp[3] = {&m->a, &m->b, &m->c};
        uint64_t r = n + i, k = m->a.row_start[r];
        int ok = m->a.row_start[r + 1] == k + 1 && m->a.wire[k] == i &&
                 m->a.coeff[k] == CUZK_COEFF_ONE;
        for (int j = 1; j < 3; j++)
            ok &= !sp[j]->row_start || sp[j]->row_start[r + 1] == sp[j]->row_start[r];
        if (!ok) return cli_fail(path, "the key's last rows are not its input rows");
    }
    cuzk_matrices v = *m; /* the first n rows: CSR row prefixes */
    v.n_rows = n;
    v.a.n_terms = m->a.row_start[n];
    v.b.n_terms = m->b.row_start[n];
    if (m->c.row_start) v.c.n_terms = m->c.row_start[n];
    cuzk_pce p = {0};
    int rc = 0;
    if (cuzk_pce_compile(&p, &v, n_in, pk->n_vars - n_in, CUZK_PCE_INPUT_ROWS, threads, err) !=
            CUZK_OK ||
        cuzk_pce_save(&p, path, err) != CUZK_OK)
        rc = cli_fail(path, err);
    cuzk_pce_free(&p);
    return rc;
}

int cmd_import(int argc, char **argv)
{
    const char *zkey = NULL, *params = NULL, *r1cs = NULL, *out = NULL, *pce = NULL;
    unsigned threads = 0;
    int quiet = 0, snarkjs_export = 0;
    static const struct option opts[] = {
        {"pce", required_argument, 0, 'C'},
        {"zkey", required_argument, 0, 'z'},    {"params", required_argument, 0, 'P'},
        {"r1cs", required_argument, 0, 'r'},    {"out", required_argument, 0, 'o'},
        {"snarkjs-export", no_argument, 0, 'S'}, {"threads", required_argument, 0, 't'},
        {"quiet", no_argument, 0, 'q'},         {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'z': zkey = optarg; break;
        case 'P': params = optarg; break;
        case 'r': r1cs = optarg; break;
        case 'o': out = optarg; break;
        case 'C': pce = optarg; break;
        case 'S': snarkjs_export = 1; break;
        case 't':
            if (!cli_parse_threads(optarg, &threads)) return EXIT_UNUSABLE;
            break;
        case 'q': quiet = 1; break;
        case 'h': return usage_import(stdout, 0);
        default: return usage_import(stderr, EXIT_UNUSABLE);
        }
    }
    if (optind < argc) return cli_fail("import", "unexpected argument (see --help)");
    if (!zkey == !params) return cli_fail("import", "give exactly one key: --zkey or --params");
    if (params && !r1cs) return cli_fail("import", "--params needs the circuit: --r1cs C.r1cs");
    if (!out) return cli_fail("import", "--out key.cuzk is required");
    const cli_path ins[] = {{"--zkey", zkey}, {"--params", params}, {"--r1cs", r1cs}};
    const cli_path outs[] = {{"--out", out}, {"--pce", pce}};
    if (!cli_check_paths("import", ins, 3, outs, 2)) return EXIT_UNUSABLE;

    int rc = EXIT_UNUSABLE;
    char err[CUZK_ERRMSG_LEN], label[64];
    cuzk_blob kb = {0}, rb = {0};
    cuzk_zkey z = {0};
    cuzk_bp_params bp = {0};
    cuzk_r1cs r = {0};
    cuzk_groth16_pk pk = {0};
    const char *key = zkey ? zkey : params;
    cuzk_status s;
    if (r1cs) {
        if (!cli_read_file(&rb, r1cs)) goto done;
        if ((s = cuzk_r1cs_parse(&r, rb.data, rb.size, err)) != CUZK_OK) {
            fprintf(stderr, "cuzk: %s: %s\n", r1cs, err);
            goto done;
        }
    }
    if (cuzk_blob_map(&kb, key, err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s\n", err);
        goto done;
    }
    /* Bulk points are checked once, by the decoding in pk_from_*. */
    unsigned fl = CUZK_FMT_TRUST_POINTS | (snarkjs_export ? CUZK_FMT_SNARKJS_BELLMAN : 0);
    s = zkey ? cuzk_zkey_parse(&z, kb.data, kb.size, CUZK_FMT_TRUST_POINTS, err)
             : cuzk_bp_params_parse(&bp, kb.data, kb.size, fl, err);
    if (s == CUZK_OK && zkey && r1cs) s = cuzk_zkey_check_r1cs(&z, &r, err);
    if (s == CUZK_OK)
        s = zkey ? cuzk_groth16_pk_from_zkey(&pk, &z, threads, err)
                 : cuzk_groth16_pk_from_params(&pk, &bp, &r, threads, err);
    if (s != CUZK_OK) {
        fprintf(stderr, "cuzk: %s: %s\n", key, err);
        goto done;
    }
    const char *base = strrchr(key, '/');
    snprintf(label, sizeof label, "imported from %.48s", base ? base + 1 : key);
    if (pce && import_pce(&pk, pce, threads) != 0) goto done; /* first: it checks more */
    if (cuzk_keyfile_write(out, &pk, label, 0, err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s\n", err);
        goto done;
    }
    if (!quiet) {
        printf("wrote %s%s%s\n", out, pce ? " and " : "", pce ? pce : "");
        describe(&pk, label);
    }
    rc = 0;
done:
    cuzk_groth16_pk_free(&pk);
    cuzk_zkey_free(&z);
    cuzk_bp_params_free(&bp);
    cuzk_r1cs_free(&r);
    cuzk_blob_release(&kb);
    cuzk_blob_release(&rb);
    return rc;
}

/* ------------------------------------------------------------ export-vk -- */

int cmd_export_vk(int argc, char **argv)
{
    const char *key = NULL, *out = NULL;
    static const struct option opts[] = {{"key", required_argument, 0, 'k'},
                                         {"out", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'k': key = optarg; break;
        case 'o': out = optarg; break;
        case 'h': return usage_export_vk(stdout, 0);
        default: return usage_export_vk(stderr, EXIT_UNUSABLE);
        }
    }
    if (optind < argc) return cli_fail("export-vk", "unexpected argument (see --help)");
    if (!key || !out) return cli_fail("export-vk", "--key key.cuzk and --out vk.json are required");
    const cli_path ins[] = {{"--key", key}}, outs[] = {{"--out", out}};
    if (!cli_check_paths("export-vk", ins, 1, outs, 1)) return EXIT_UNUSABLE;
    char err[CUZK_ERRMSG_LEN], *json = NULL;
    cuzk_keyfile kf = {0};
    int rc = EXIT_UNUSABLE;
    /* The vk and IC are always checked (curve and subgroup); the bulk
     * vectors, which a vk.json does not need, are trusted. */
    if (cuzk_keyfile_map(&kf, key, CUZK_KEYFILE_TRUST_POINTS, 0, err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s\n", err); /* err names the file */
        goto done;
    }
    if (cuzk_vk_to_json(&json, &kf.pk.vk, err) != CUZK_OK ||
        cuzk_file_write(out, json, strlen(json), err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s\n", err); /* err names the file */
        goto done;
    }
    printf("wrote %s: the verifying key of %s (%u public inputs)\n", out, key,
           kf.pk.vk.n_ic - 1);
    rc = 0;
done:
    free(json);
    cuzk_keyfile_close(&kf);
    return rc;
}
