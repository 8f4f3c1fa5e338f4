/* cuzk — the command-line tool.
 *
 *   cuzk prove  (--zkey K.zkey | --params P.params --r1cs C.r1cs [--snarkjs-export]
 *                | --key key.cuzk)
 *               (--wtns W.wtns | --circuit ID [--size N] (--inputs in.json
 *                | --seed S [--partition P]))
 *               --proof OUT [--public public.json] [--pce C.pce]
 *               [--r1cs C.r1cs] [--format json|filecoin] [--threads N] [--quiet]
 *               [--backend cpu|gpu|auto | --gpu]
 *   cuzk verify --vk VK --proof PROOF --public public.json [--format json|filecoin]
 *
 * Exit status: 0 success (verify: valid), 1 verify: invalid proof,
 * 2 unusable input or failure, with a one-line reason on stderr. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/formats.h>
#include <cuzk/groth16.h>
#include <cuzk/pce.h>
#include <cuzk/prove.h>

#include "cli.h"

/* The overview: every command in a line or two (`cuzk --help`). */
static int usage(FILE *f, int status)
{
    fprintf(f,
            "usage: cuzk COMMAND [options]   (cuzk COMMAND --help: the command's options)\n"
            "  prove      prove with a key and a witness (a .wtns or a built-in circuit's)\n"
            "  verify     check a proof against a verifying key and public inputs\n"
            "  setup      make an INSECURE test key for a .r1cs or a built-in circuit\n"
            "  import     convert a .zkey or .params key into a .cuzk key file\n"
            "  export-vk  write a .cuzk key's verifying key as a snarkjs vk.json\n"
            "  circuits   list the built-in (Filecoin-shaped) circuits\n"
            "  compile    compile a circuit into a PCE file\n"
            "  info       describe a .pce, .cuzk, .r1cs, .zkey, .wtns or .params file\n"
            "  witness    compute a built-in circuit's witness as a .wtns\n"
            "  serve      run the proving daemon (HTTP/JSON API on a unix socket)\n"
            "  version    print the version and the commit it was built from\n"
            "Sizes (--size): full, the real size, or N = 10..27 for about 2^N constraints a\n"
            "partition. Exit status: 0 success (verify: valid), 1 verify: invalid proof,\n"
            "2 unusable input or failure, with a one-line reason on stderr. No command\n"
            "writes over one of its inputs; a regular output is replaced atomically, a\n"
            "device or FIFO (/dev/stdout) written in place, a symlink's target replaced.\n");
    return status;
}

static int usage_prove(FILE *f, int status)
{
    fprintf(f,
            "usage: cuzk prove (--zkey K.zkey | --params P.params --r1cs C.r1cs [--snarkjs-export]\n"
            "                  | --key key.cuzk)\n"
            "                  (--wtns W.wtns | --circuit ID [--size full|N] (--inputs in.json\n"
            "                   | --seed S [--partition P]))\n"
            "                  --proof OUT [--public OUT] [--pce C.pce]\n"
            "                  [--r1cs C.r1cs] [--format json|filecoin] [--threads N] [--quiet]\n"
            "                  [--backend cpu|gpu|auto | --gpu]\n"
            "  Proves with a snarkjs Groth16 key, a .cuzk key file, or a bellperson .params\n"
            "  with the circuit it belongs to (BLS12-381). --snarkjs-export marks a .params\n"
            "  written by `snarkjs zkey export bellman` (dense, snarkjs roots). The proof\n"
            "  is checked against the key before it is written. With --r1cs the witness is\n"
            "  first checked constraint by constraint. --format filecoin writes the 192-byte\n"
            "  zcash-compressed proof instead of proof.json (--public then optional).\n"
            "  --circuit computes the witness of a built-in circuit's partition on every\n"
            "  core (see `cuzk witness`); the key must be made for that circuit and size\n"
            "  (`cuzk setup --circuit ID --size N`). --pce evaluates A w, B w, C w from the\n"
            "  circuit's compiled PCE (`cuzk compile`) instead of the key's matrices; a key\n"
            "  written with `setup --no-matrices` needs it. OUT may be /dev/stdout.\n"
            "  --backend: where the proof runs: gpu (device 0; an error when the tool has\n"
            "  no CUDA, no device is present or the key does not fit its memory), cpu, or\n"
            "  auto (the default: the GPU when there is one and the key fits, else the\n"
            "  CPU). --gpu is --backend gpu.\n");
    return status;
}

static int usage_verify(FILE *f, int status)
{
    fprintf(f,
            "usage: cuzk verify --vk VK --proof PROOF --public public.json [--format json|filecoin]\n"
            "  Checks a Groth16 proof. VK: a snarkjs vk.json or a bellperson .vk; PROOF: a\n"
            "  snarkjs proof.json or the 192-byte Filecoin proof of `prove --format\n"
            "  filecoin` (told apart by content unless --format says).\n"
            "  Exit 0: valid; 1: invalid; 2: unusable input.\n");
    return status;
}

/* The progress hook of a circuit job: says what is coming before the
 * witness (the only long stage the prover does not time on its own line). */
static int say_witness(void *ctx, cuzk_prove_stage next)
{
    const cli_circuit_job *job = ctx;
    cuzk_circuit *ci;
    if (next == CUZK_STAGE_WITNESS && cuzk_circuit_open(&ci, job->id, job->size, NULL) == CUZK_OK) {
        fprintf(stderr, "computing the witness of %s (~%llu constraints)...\n", job->id,
                (unsigned long long)cuzk_circuit_describe(ci)->n_constraints);
        cuzk_circuit_close(ci);
    }
    return 0;
}

int cmd_prove(int argc, char **argv)
{
    const char *zkey = NULL, *params = NULL, *keyfile = NULL, *wtns = NULL, *r1cs = NULL;
    const char *proof_out = NULL;
    const char *public_out = NULL, *format = "json", *pce_path = NULL, *backend = "auto";
    unsigned threads = 0;
    int quiet = 0, snarkjs_export = 0, have_seed = 0, have_part = 0, have_size = 0;
    cli_circuit_job job = {0};
    static const struct option opts[] = {
        {"zkey", required_argument, 0, 'z'},   {"params", required_argument, 0, 'P'},
        {"snarkjs-export", no_argument, 0, 'S'}, {"wtns", required_argument, 0, 'w'},
        {"r1cs", required_argument, 0, 'r'},   {"proof", required_argument, 0, 'p'},
        {"public", required_argument, 0, 'u'}, {"format", required_argument, 0, 'f'},
        {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'},
        {"key", required_argument, 0, 'k'},    {"circuit", required_argument, 0, 'c'},
        {"size", required_argument, 0, 'Z'},   {"inputs", required_argument, 0, 'i'},
        {"seed", required_argument, 0, 'E'},   {"partition", required_argument, 0, 'A'},
        {"pce", required_argument, 0, 'C'},    {"help", no_argument, 0, 'h'},
        {"backend", required_argument, 0, 'B'}, {"gpu", no_argument, 0, 'G'},
        {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'z': zkey = optarg; break;
        case 'P': params = optarg; break;
        case 'k': keyfile = optarg; break;
        case 'S': snarkjs_export = 1; break;
        case 'w': wtns = optarg; break;
        case 'r': r1cs = optarg; break;
        case 'p': proof_out = optarg; break;
        case 'u': public_out = optarg; break;
        case 'f': format = optarg; break;
        case 't':
            if (!cli_parse_threads(optarg, &threads)) return EXIT_UNUSABLE;
            break;
        case 'q': quiet = 1; break;
        case 'C': pce_path = optarg; break;
        case 'B': backend = optarg; break;
        case 'G': backend = "gpu"; break;
        case 'c': job.id = optarg; break;
        case 'Z':
            if (!cli_parse_size(optarg, &job.size)) return EXIT_UNUSABLE;
            have_size = 1;
            break;
        case 'i': job.inputs = optarg; break;
        case 'E':
            if (!cli_parse_u64("--seed", optarg, INT64_MAX, &job.seed)) return EXIT_UNUSABLE;
            have_seed = 1;
            break;
        case 'A':
            if (!cli_parse_u64("--partition", optarg, 1u << 20, &job.partition))
                return EXIT_UNUSABLE;
            have_part = 1;
            break;
        case 'h': return usage_prove(stdout, 0);
        default: return usage_prove(stderr, EXIT_UNUSABLE);
        }
    }
    if (optind < argc) return cli_fail("prove", "unexpected argument (see --help)");
    if (strcmp(backend, "cpu") && strcmp(backend, "gpu") && strcmp(backend, "auto"))
        return cli_fail("--backend", "expects cpu, gpu or auto");
    if (!strcmp(backend, "gpu") && !cli_gpu_register())
        return cli_fail("--backend gpu", "this cuzk is built without CUDA");
    if (!strcmp(backend, "auto")) (void)cli_gpu_register();
    if (!!zkey + !!params + !!keyfile != 1)
        return cli_fail("prove", "give exactly one key: --zkey, --params or --key (see --help)");
    if (params && !r1cs) return cli_fail("prove", "--params needs the circuit: --r1cs C.r1cs");
    if (!wtns == !job.id)
        return cli_fail("prove", "give the witness: --wtns W.wtns or --circuit ID (see --help)");
    if (!job.id && (job.inputs || have_seed || have_part || have_size))
        return cli_fail("prove", "--inputs, --seed, --partition and --size go with --circuit");
    if (job.id && !job.inputs == !have_seed)
        return cli_fail("prove", "--circuit needs exactly one of --inputs and --seed");
    if (job.inputs && have_part)
        return cli_fail("prove", "--partition goes with --seed (inputs JSON carry their own)");
    if (!proof_out) return cli_fail("prove", "--proof is required (see --help)");
    int filecoin = !strcmp(format, "filecoin");
    if (!filecoin && strcmp(format, "json")) return cli_fail("--format", "expects json or filecoin");
    if (!filecoin && !public_out) return cli_fail("prove", "--public is required with --format json");
    const cli_path ins[] = {{"--zkey", zkey}, {"--params", params}, {"--key", keyfile},
                            {"--wtns", wtns}, {"--r1cs", r1cs}, {"--pce", pce_path},
                            {"--inputs", job.inputs}};
    const cli_path outs[] = {{"--proof", proof_out}, {"--public", public_out}};
    if (!cli_check_paths("prove", ins, 7, outs, 2)) return EXIT_UNUSABLE;

    int rc = EXIT_UNUSABLE;
    char err[CUZK_ERRMSG_LEN];
    cuzk_blob zb = {0}, wb = {0}, rb = {0}, ib = {0};
    cuzk_zkey z = {0};
    cuzk_bp_params bp = {0};
    cuzk_wtns w = {0};
    cuzk_r1cs rc1 = {0};
    cuzk_groth16_pk pk = {0};
    cuzk_pce pce = {0};
    cuzk_workspace *ws = NULL;
    char *json = NULL;
    double t0 = cli_now_ms();

    /* The witness: a .wtns, or a built-in circuit's job, whose witness the
     * proof job computes (its inputs JSON is read here). */
    if (job.id) {
        if (job.inputs && !cli_read_file(&ib, job.inputs)) goto out;
    } else {
        if (!cli_read_file(&wb, wtns)) goto out;
        if (cuzk_wtns_parse(&w, wb.data, wb.size, err) != CUZK_OK) {
            fprintf(stderr, "cuzk: %s: %s\n", wtns, err);
            goto out;
        }
    }
    const char *wsrc = job.id ? job.id : wtns;
    if (r1cs) { /* the key's circuit (--params), and the witness's check */
        if (!cli_read_file(&rb, r1cs)) goto out;
        if (cuzk_r1cs_parse(&rc1, rb.data, rb.size, err) != CUZK_OK) {
            fprintf(stderr, "cuzk: %s: %s\n", r1cs, err);
            goto out;
        }
    }
    const char *key = zkey ? zkey : params ? params : keyfile;
    if (keyfile) { /* a .cuzk key file: checked and proven from the mapping */
        char label[64];
        if (cuzk_keyfile_map_pk(&pk, keyfile, 0, threads, label, err) != CUZK_OK) {
            fprintf(stderr, "cuzk: %s\n", err);
            goto out;
        }
        if (pk.m.n_rows == 0 && !pce_path) {
            fprintf(stderr, "cuzk: %s: the key file has no matrices (written without them): "
                            "give the circuit's PCE with --pce\n", keyfile);
            goto out;
        }
        if (!quiet && label[0]) printf("key %s: %s\n", keyfile, label);
    } else if (cuzk_blob_map(&zb, key, err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s\n", err);
        goto out;
    }
    /* The bulk point checks are left to the key builder below, which
     * decodes (and so checks) every point once. */
    unsigned fl = CUZK_FMT_TRUST_POINTS | (snarkjs_export ? CUZK_FMT_SNARKJS_BELLMAN : 0);
    cuzk_status s = keyfile ? CUZK_OK
                    : zkey ? cuzk_zkey_parse(&z, zb.data, zb.size, CUZK_FMT_TRUST_POINTS, err)
                           : cuzk_bp_params_parse(&bp, zb.data, zb.size, fl, err);
    if (s != CUZK_OK) {
        fprintf(stderr, "cuzk: %s: %s\n", key, err);
        goto out;
    }
    double t_load = cli_now_ms() - t0;
    s = keyfile ? CUZK_OK
        : zkey  ? cuzk_groth16_pk_from_zkey(&pk, &z, threads, err)
                : cuzk_groth16_pk_from_params(&pk, &bp, &rc1, threads, err);
    if (s != CUZK_OK) {
        fprintf(stderr, "cuzk: %s: %s\n", key, err);
        goto out;
    }
    double t_key = cli_now_ms() - t0 - t_load;

    /* The PCE, when given: the job evaluates the rows from it. */
    double t_pce = 0;
    if (pce_path) {
        double tp = cli_now_ms();
        if (cuzk_pce_load(&pce, pce_path, 0, threads, err) != CUZK_OK) {
            fprintf(stderr, "cuzk: %s\n", err);
            goto out;
        }
        t_pce = cli_now_ms() - tp;
    }

    /* The proof: one job on a workspace for this key. */
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    cfg.backend = backend;
    cfg.nthreads = threads;
    if (job.id) cfg.ws_flags = CUZK_WS_COMPACT_WITNESS; /* a circuit's witness is compact */
    double t_ws = cli_now_ms();
    if ((s = cuzk_workspace_create(&ws, &pk, &cfg, err)) != CUZK_OK) {
        if (s == CUZK_ERR_NO_DEVICE || s == CUZK_ERR_NO_MEMORY)
            fprintf(stderr, "cuzk: --backend %s: %s\n", backend, err);
        else fprintf(stderr, "cuzk: %s: %s\n", key, err);
        goto out;
    }
    t_ws = cli_now_ms() - t_ws;
    /* A device holds the points now: the mapped key's pages need not stay. */
    if (strcmp(cuzk_workspace_backend(ws), "cpu")) (void)cuzk_groth16_pk_release_pages(&pk);
    cuzk_prove_job pj = {0};
    if (job.id) {
        pj.witness = CUZK_WITNESS_CIRCUIT;
        pj.circuit = (cuzk_circuit_job){job.id, job.size, (const char *)ib.data, ib.size,
                                        job.seed, (unsigned)job.partition};
        if (!job.inputs) pj.circuit.inputs = NULL;
        if (!quiet) {
            pj.progress = say_witness;
            pj.progress_ctx = &job;
        }
    } else {
        pj.witness = CUZK_WITNESS_DENSE;
        pj.w = w.w;
        pj.n_w = w.n;
    }
    pj.r1cs = r1cs ? &rc1 : NULL;
    pj.pce = pce_path ? &pce : NULL;
    cuzk_prove_result res;
    s = cuzk_prove(ws, &pj, &res, err);
    if (s == CUZK_ERR_PROOF_INVALID && strcmp(cuzk_workspace_backend(ws), "cpu")) {
        /* Never a bad proof: the CPU backend proves it again and, for a
         * wrong witness, says so. */
        fprintf(stderr, "cuzk: %s\ncuzk: proving again on the cpu backend\n", err);
        cuzk_workspace_destroy(ws);
        ws = NULL;
        cfg.backend = "cpu";
        t_ws = cli_now_ms();
        if ((s = cuzk_workspace_create(&ws, &pk, &cfg, err)) != CUZK_OK) {
            fprintf(stderr, "cuzk: --backend cpu: %s\n", err);
            goto out;
        }
        t_ws = cli_now_ms() - t_ws;
        s = cuzk_prove(ws, &pj, &res, err);
    }
    if (s != CUZK_OK) {
        switch (res.bad_input) {
        case CUZK_INPUT_KEY: fprintf(stderr, "cuzk: %s: %s\n", key, err); break;
        case CUZK_INPUT_PCE: fprintf(stderr, "cuzk: %s: %s\n", pce_path, err); break;
        case CUZK_INPUT_R1CS: fprintf(stderr, "cuzk: witness %s: %s\n", wsrc, err); break;
        default:
            if (res.stage == CUZK_STAGE_WITNESS) {
                fprintf(stderr, "cuzk: %s: %s\n", job.inputs ? job.inputs : job.id, err);
                break;
            }
            fprintf(stderr, "cuzk: %s%s\n", err,
                    job.id && s == CUZK_ERR_UNSATISFIED
                        ? " (the key has the circuit's counts but not its constraints: is it "
                          "for another circuit?)"
                        : "");
        }
        goto out;
    }
    const cuzk_prove_timings *t = &res.t;
    if (filecoin) {
        uint8_t bytes[CUZK_PROOF_BYTES];
        if (cuzk_proofs_to_bytes(bytes, &res.proof, 1, err) != CUZK_OK ||
            cuzk_file_write(proof_out, bytes, sizeof bytes, err) != CUZK_OK) {
            fprintf(stderr, "cuzk: %s\n", err);
            goto out;
        }
    } else if (cuzk_proof_to_json(&json, &res.proof, err) != CUZK_OK ||
               cuzk_file_write(proof_out, json, strlen(json), err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s\n", err);
        goto out;
    }
    if (public_out) {
        free(json);
        json = NULL;
        if (cuzk_public_to_json(&json, res.pub, res.n_public, err) != CUZK_OK ||
            cuzk_file_write(public_out, json, strlen(json), err) != CUZK_OK) {
            fprintf(stderr, "cuzk: %s\n", err);
            goto out;
        }
    }
    if (!quiet) {
        /* The witness of a circuit job is now computed after the key is
         * read: "witness + key files" adds the two, as before. With a PCE
         * the rows are evaluated straight into the workspace ("a, b, c"). */
        printf("proved %s: %u variables, %u public, domain 2^%u\n", key, pk.n_vars,
               pk.n_public, pk.log_domain);
        if (job.id) printf("  %-22s %10.2f ms\n", "witness (all cores)", t->witness_ms);
        printf("  %-22s %10.2f ms\n", job.id ? "witness + key files" : "read + parse files",
               t_load + t->witness_ms);
        printf("  %-22s %10.2f ms\n", "decode key points", t_key);
        if (pce_path) printf("  %-22s %10.2f ms\n", "PCE load", t_pce);
        /* A GPU workspace uploads the key's points (A, B1, L, H in G1, B2 in
         * G2) into its MSM plans: that copy's rate from the mapped key. */
        double pts = ((double)pk.n_vars + 3.0 * pk.n_b + (pk.n_vars - pk.n_public - 1) +
                      ((size_t)1 << pk.log_domain)) * sizeof(cuzk_g1_affine);
        printf("  %-22s %10.2f ms  (%s backend", "workspace", t_ws, cuzk_workspace_backend(ws));
        if (strcmp(cuzk_workspace_backend(ws), "cpu"))
            printf(": %.2f GB of key points to the device, %.2f GB/s", pts / 1e9,
                   pts / 1e6 / (t_ws > 0 ? t_ws : 1));
        printf(")\n");
        for (cuzk_prove_stage st = CUZK_STAGE_ROWS; st < CUZK_STAGE_DONE; st++)
            printf("  %-22s %10.2f ms\n", cuzk_prove_stage_name(st), cuzk_prove_stage_ms(t, st));
        printf("  %-22s %10.2f ms\n", "prover total", t->total_ms);
        printf("  %-22s %10.2f ms\n", "command total", cli_now_ms() - t0);
    }
    rc = 0;
out:
    free(json);
    cuzk_workspace_destroy(ws);
    cuzk_pce_free(&pce);
    cuzk_groth16_pk_free(&pk);
    cuzk_zkey_free(&z);
    cuzk_bp_params_free(&bp);
    cuzk_r1cs_free(&rc1);
    cuzk_wtns_free(&w);
    cuzk_blob_release(&zb);
    cuzk_blob_release(&wb);
    cuzk_blob_release(&rb);
    cuzk_blob_release(&ib);
    return rc;
}

/* 1 if a file's first non-blank byte is '{': JSON, not a binary format. */
static int looks_json(const cuzk_blob *b)
{
    for (size_t i = 0; i < b->size; i++)
        if (b->data[i] != ' ' && b->data[i] != '\n' && b->data[i] != '\r' && b->data[i] != '\t')
            return b->data[i] == '{';
    return 0;
}

int cmd_verify(int argc, char **argv)
{
    const char *vk_path = NULL, *proof_path = NULL, *public_path = NULL, *format = NULL;
    static const struct option opts[] = {{"vk", required_argument, 0, 'v'},
                                         {"proof", required_argument, 0, 'p'},
                                         {"public", required_argument, 0, 'u'},
                                         {"format", required_argument, 0, 'f'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'v': vk_path = optarg; break;
        case 'p': proof_path = optarg; break;
        case 'u': public_path = optarg; break;
        case 'f': format = optarg; break;
        case 'h': return usage_verify(stdout, 0);
        default: return usage_verify(stderr, EXIT_UNUSABLE);
        }
    }
    if (optind < argc) return cli_fail("verify", "unexpected argument (see --help)");
    if (!vk_path || !proof_path || !public_path)
        return cli_fail("verify", "--vk, --proof and --public are required (see --help)");
    if (format && strcmp(format, "json") && strcmp(format, "filecoin"))
        return cli_fail("--format", "expects json or filecoin");

    int rc = EXIT_UNUSABLE;
    char err[CUZK_ERRMSG_LEN];
    cuzk_blob vb = {0}, pb = {0}, ub = {0};
    cuzk_vk vk = {0};
    cuzk_proof proof;
    cuzk_fr *pub = NULL;
    size_t n_pub = 0;
    if (!cli_read_file(&vb, vk_path) || !cli_read_file(&pb, proof_path) || !cli_read_file(&ub, public_path))
        goto out;
    /* The vk: a snarkjs vk.json or a bellperson .vk, told apart by content;
     * the proof likewise unless --format says (a 192-byte Filecoin proof is
     * what `prove --format filecoin` writes). */
    cuzk_status s = looks_json(&vb)
                        ? cuzk_vk_from_json(&vk, (const char *)vb.data, vb.size, err)
                        : cuzk_bp_vk_parse(&vk, vb.data, vb.size, NULL, err);
    if (s != CUZK_OK) {
        fprintf(stderr, "cuzk: %s: %s\n", vk_path, err);
        goto out;
    }
    int filecoin = format ? !strcmp(format, "filecoin")
                          : pb.size == CUZK_PROOF_BYTES && !looks_json(&pb);
    s = filecoin ? cuzk_proofs_from_bytes(&proof, 1, pb.data, pb.size, err)
                 : cuzk_proof_from_json(&proof, (const char *)pb.data, pb.size, err);
    if (s != CUZK_OK) {
        fprintf(stderr, "cuzk: %s: %s\n", proof_path, err);
        goto out;
    }
    if (cuzk_public_from_json(&pub, &n_pub, (const char *)ub.data, ub.size, err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s: %s\n", public_path, err);
        goto out;
    }
    if (n_pub + 1 != vk.n_ic) {
        fprintf(stderr, "cuzk: %s has %zu public inputs but the key %s expects %u\n",
                public_path, n_pub, vk_path, vk.n_ic - 1);
        goto out;
    }
    s = cuzk_groth16_verify(&vk, &proof, pub, n_pub);
    if (s == CUZK_OK) {
        printf("valid\n");
        rc = 0;
    } else if (s == CUZK_ERR_PROOF_INVALID) {
        printf("invalid: the pairing check fails\n");
        rc = EXIT_INVALID;
    } else {
        fprintf(stderr, "cuzk: %s: %s\n", proof_path, cuzk_strerror(s));
    }
out:
    free(pub);
    cuzk_vk_free(&vk);
    cuzk_blob_release(&vb);
    cuzk_blob_release(&pb);
    cuzk_blob_release(&ub);
    return rc;
}

/* The commands, in the order --help lists them. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"prove", cmd_prove},
    {"verify", cmd_verify},
    {"setup", cmd_setup},
    {"import", cmd_import},
    {"export-vk", cmd_export_vk},
    {"circuits", cmd_circuits},
    {"compile", cmd_compile},
    {"info", cmd_info},
    {"witness", cmd_witness},
    {"serve", cmd_serve},
};

int main(int argc, char **argv)
{
    if (argc < 2) return usage(stderr, EXIT_UNUSABLE);
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) return usage(stdout, 0);
    if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
        printf("cuzk %s\n", cuzk_version());
        return 0;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "cuzk: unknown command '%s'\n", argv[1]);
    return usage(stderr, EXIT_UNUSABLE);
}
