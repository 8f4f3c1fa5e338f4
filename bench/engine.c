/* cuzk-bench engine: the engine's overhead (issue 14: "a batch of small
 * proofs through the engine takes at most 5% longer than the same proofs by
 * `cuzk prove` in a loop").
 *
 * Each round proves --jobs proofs of one circuit twice, alternating:
 *   loop    cuzk_prove in a loop on one workspace, self-check on, the
 *           witness computed for each proof (a built-in circuit's from a
 *           seed; a .wtns parsed), as `cuzk prove` does;
 *   engine  the same jobs submitted at once to an engine (one device,
 *           --provers prover workers, --witness-workers), then waited for;
 *           with --store DIR its jobs go through an SQLite store there.
 * Both use the same key (the same seeded insecure setup, or the .zkey) and
 * are warmed up by one untimed proof (circuit opened, workspace made). The
 * engine is made once and kept, as a daemon keeps it. Prints each round;
 * each side's mean stage times; the wall time outside each side's critical
 * stages (the engine's own cost, which a loaded machine's noise in the
 * stages does not hide); from the engine's timeline the prover's idle gaps
 * and its attempts' time beyond cuzk_prove's total; then the medians and
 * the spread of the overhead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/circuits.h>
#include <cuzk/engine.h>
#include <cuzk/formats.h>
#include <cuzk/groth16.h>
#include <cuzk/prove.h>
#include <cuzk/store.h>

#include "bench.h"

static const uint64_t bench_seed = 7; /* the setup's: both sides get one key */

typedef struct {
    const char *circuit, *zkey;
    unsigned size;
    const uint8_t *wtns; /* the .wtns bytes (zkey mode) */
    size_t wtns_len;
} bench_src;

/* One proof of the loop: proof k (seed k for a built-in). */
static cuzk_status loop_one(cuzk_workspace *ws, const bench_src *b, uint64_t k,
                            cuzk_prove_timings *t, char *err)
{
    cuzk_prove_job job;
    memset(&job, 0, sizeof job);
    cuzk_wtns w;
    memset(&w, 0, sizeof w);
    cuzk_status s;
    if (b->zkey) {
        if ((s = cuzk_wtns_parse(&w, b->wtns, b->wtns_len, err)) != CUZK_OK) return s;
        job.witness = CUZK_WITNESS_DENSE;
        job.w = w.w;
        job.n_w = w.n;
    } else {
        job.witness = CUZK_WITNESS_CIRCUIT;
        job.circuit = (cuzk_circuit_job){b->circuit, b->size, NULL, 0, k, 0};
    }
    cuzk_prove_result res;
    s = cuzk_prove(ws, &job, &res, err);
    cuzk_wtns_free(&w);
    if (s == CUZK_OK && t) *t = res.t;
    return s;
}

/* The columns of the per-stage table: witness, rows, H, MSM A, B2, C,
 * assemble, self-check, and the prover without the self-check. */
enum { NCOL = 9 };

static void add_timings(double *sum, double witness_ms, const cuzk_prove_timings *t)
{
    const double v[NCOL] = {witness_ms,     t->abc_ms,      t->ntt_ms,
                            t->msm_a_ms,    t->msm_b2_ms,   t->msm_c_ms,
                            t->assemble_ms, t->verify_ms,   t->total_ms - t->verify_ms};
    for (int k = 0; k < NCOL; k++) sum[k] += v[k];
}

/* Submits jobs first..first+n-1 and waits for them all. Returns the wall
 * ms, or < 0 on a failure (printed). Adds the partitions' stage times to
 * sum[NCOL] (may be NULL). In the engine the self-check is the
 * finalizer's, off the prover's path (total_ms excludes it). */
static double engine_batch(cuzk_engine *e, const char *name, const bench_src *b, uint64_t first,
                           unsigned n, double *sum)
{
    char err[CUZK_ERRMSG_LEN], in[64];
    uint64_t *ids = calloc(n, sizeof *ids);
    if (!ids) return -1;
    double ms = -1;
    double t0 = bench_now_ns();
    for (unsigned i = 0; i < n; i++) {
        cuzk_job_request rq;
        memset(&rq, 0, sizeof rq);
        rq.circuit = name;
        rq.priority = CUZK_PRIO_NORMAL;
        if (b->zkey) {
            rq.wtns = b->wtns;
            rq.wtns_len = b->wtns_len;
        } else {
            snprintf(in, sizeof in, "{\"seed\": %llu}", (unsigned long long)(first + i));
            rq.inputs = in;
        }
        if (cuzk_engine_submit(e, &rq, &ids[i], NULL, err) != CUZK_OK) {
            fprintf(stderr, "cuzk-bench engine: submit: %s\n", err);
            goto out;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        cuzk_job_info info;
        if (cuzk_engine_wait(e, ids[i], -1, &info, err) != CUZK_OK ||
            info.state != CUZK_JOB_DONE) {
            fprintf(stderr, "cuzk-bench engine: job %u: %s\n", i, info.error);
            cuzk_job_info_free(&info);
            goto out;
        }
        cuzk_job_info_free(&info);
    }
    ms = (bench_now_ns() - t0) / 1e6;
    for (unsigned i = 0; sum && i < n; i++) {
        cuzk_job_result *r = NULL;
        if (cuzk_engine_result(e, ids[i], &r, err) != CUZK_OK) continue;
        for (unsigned p = 0; p < r->n; p++) {
            cuzk_prove_timings t = r->parts[p].t;
            t.total_ms += t.verify_ms; /* as the loop's, which includes it */
            add_timings(sum, r->parts[p].witness_ms, &t);
        }
        cuzk_job_result_free(r);
    }
out:
    free(ids);
    return ms;
}

/* The prover's idle gaps from the engine's timeline (one prover: from each
 * PROVE_END to the next PROVE_START within a batch, i.e. not across the
 * pause between batches): prints their count, median, mean and max. */
static void prover_gaps(cuzk_engine *e)
{
    size_t cap = 1u << 16, n, ng = 0;
    cuzk_event *ev = malloc(cap * sizeof *ev);
    double *gap = malloc(cap * sizeof *gap);
    if (!ev || !gap) goto out;
    n = cuzk_engine_timeline(e, 0, ev, cap, NULL);
    int64_t end = -1, start = -1;
    double in_att = 0; /* attempts' wall beyond the prover's total_ms */
    size_t n_att = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind == CUZK_EV_PROVE_END) {
            end = ev[i].t_us;
            if (start >= 0) {
                in_att += (double)(end - start) / 1e3 - ev[i].ms;
                n_att++;
            }
        }
        if (ev[i].kind == CUZK_EV_PROVE_START) start = ev[i].t_us;
        if (ev[i].kind == CUZK_EV_PROVE_START && end >= 0) {
            double g = (double)(ev[i].t_us - end) / 1e3;
            if (g < 50) gap[ng++] = g; /* longer: the loop ran between batches */
            end = -1;
        }
    }
    if (!ng) goto out;
    double sum = 0;
    for (size_t i = 0; i < ng; i++) sum += gap[i];
    qsort(gap, ng, sizeof *gap, bench_cmp_double);
    printf("engine prover idle between proofs (timeline, %zu gaps): median %.3f ms, mean %.3f ms, "
           "max %.3f ms\n",
           ng, gap[ng / 2], sum / (double)ng, gap[ng - 1]);
    printf("engine attempt (PROVE_START to PROVE_END) beyond the prover's own time: mean %.3f ms\n",
           n_att ? in_att / (double)n_att : 0.0);
    /* Witness against prover: the share of the prover's attempts that ran
     * beside a witness, and their mean time with a witness beside them for
     * more than half of it against the others (the throttle's effect). */
    int wit = 0;
    int64_t pstart = -1, last = 0;
    double beside = 0, busy = 0, ms_w = 0, ms_n = 0, cur_beside = 0;
    size_t nw = 0, nn = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t t = ev[i].t_us;
        if (pstart >= 0 && wit > 0) cur_beside += (double)(t - last);
        last = t;
        if (ev[i].kind == CUZK_EV_WITNESS_START) wit++;
        if (ev[i].kind == CUZK_EV_WITNESS_END && wit > 0) wit--;
        if (ev[i].kind == CUZK_EV_PROVE_START) {
            pstart = t;
            cur_beside = 0;
        }
        if (ev[i].kind == CUZK_EV_PROVE_END && pstart >= 0) {
            double len = (double)(t - pstart);
            busy += len;
            beside += cur_beside;
            if (cur_beside > len / 2) {
                ms_w += ev[i].ms;
                nw++;
            } else {
                ms_n += ev[i].ms;
                nn++;
            }
            pstart = -1;
        }
    }
    printf("engine prover beside a witness: %.1f%% of its attempts' time; prover ms with a "
           "witness beside it %.3f (%zu), without %.3f (%zu)\n",
           busy > 0 ? 100.0 * beside / busy : 0.0, nw ? ms_w / (double)nw : 0.0, nw,
           nn ? ms_n / (double)nn : 0.0, nn);
out:
    free(ev);
    free(gap);
}

int bench_engine(int argc, char **argv)
{
    bench_src b = {"winning-32g", NULL, 12, NULL, 0};
    const char *wtns_path = NULL, *store_dir = NULL;
    unsigned jobs = 20, threads = 0, provers = 1, wworkers = 1, rounds = 3, wthreads = 0;
    int wnice = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: cuzk-bench engine [--circuit ID --size N | --zkey K.zkey --wtns W.wtns]\n"
                   "                         [--jobs N] [--rounds R] [--threads T] [--provers P]\n"
                   "                         [--witness-workers W] [--store DIR]\n"
                   "                         [--witness-threads T] [--witness-nice N]\n"
                   "The engine's overhead: N proofs (default 20) of one circuit (default\n"
                   "winning-32g at 2^12) by cuzk_prove in a loop, then through an engine\n"
                   "(one device, P prover workers, W witness workers; with --store an\n"
                   "SQLite store in DIR), alternating R rounds (default 3). --witness-threads\n"
                   "and --witness-nice: the engine's witness throttle (engine.h).\n");
            return 0;
        }
        if (!v) {
            fprintf(stderr, "cuzk-bench engine: unknown option or missing value '%s'\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--circuit")) b.circuit = v;
        else if (!strcmp(a, "--size")) b.size = strcmp(v, "full") ? (unsigned)atoi(v) : 0;
        else if (!strcmp(a, "--zkey")) b.zkey = v;
        else if (!strcmp(a, "--wtns")) wtns_path = v;
        else if (!strcmp(a, "--jobs")) jobs = (unsigned)atoi(v);
        else if (!strcmp(a, "--rounds")) rounds = (unsigned)atoi(v);
        else if (!strcmp(a, "--threads")) threads = (unsigned)atoi(v);
        else if (!strcmp(a, "--provers")) provers = (unsigned)atoi(v);
        else if (!strcmp(a, "--witness-workers")) wworkers = (unsigned)atoi(v);
        else if (!strcmp(a, "--store")) store_dir = v;
        else if (!strcmp(a, "--witness-threads")) wthreads = (unsigned)atoi(v);
        else if (!strcmp(a, "--witness-nice")) wnice = atoi(v);
        else {
            fprintf(stderr, "cuzk-bench engine: unknown option '%s' (see --help)\n", a);
            return 2;
        }
    }
    if (!b.zkey != !wtns_path || jobs < 1 || jobs > 100000 || rounds < 1 || rounds > 100 ||
        provers < 1 || wworkers < 1) {
        fprintf(stderr, "cuzk-bench engine: --zkey and --wtns go together; --jobs 1..100000, "
                        "--rounds 1..100, --provers and --witness-workers >= 1\n");
        return 2;
    }
    char err[CUZK_ERRMSG_LEN], name[CUZK_ENGINE_ID_LEN];
    int rc = 1;
    cuzk_blob zb = {0}, wb = {0};
    cuzk_zkey z;
    memset(&z, 0, sizeof z);
    cuzk_groth16_pk pk;
    memset(&pk, 0, sizeof pk);
    cuzk_workspace *ws = NULL;
    cuzk_engine *e = NULL;
    cuzk_store *st = NULL;
    double *loop_ms = calloc(rounds, sizeof *loop_ms), *eng_ms = calloc(rounds, sizeof *eng_ms);
    double *ovh = calloc(rounds, sizeof *ovh);
    if (!loop_ms || !eng_ms || !ovh) goto out;

    /* The loop's key and workspace. */
    if (b.zkey) {
        if (cuzk_blob_map(&zb, b.zkey, err) != CUZK_OK ||
            cuzk_blob_read(&wb, wtns_path, err) != CUZK_OK ||
            cuzk_zkey_parse(&z, zb.data, zb.size, 0, err) != CUZK_OK ||
            cuzk_groth16_pk_from_zkey(&pk, &z, threads, err) != CUZK_OK)
            goto fail;
        b.wtns = wb.data;
        b.wtns_len = wb.size;
    } else if (cuzk_circuit_setup(&pk, b.circuit, b.size, &bench_seed, err) != CUZK_OK) {
        goto fail;
    }
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    cfg.backend = "cpu";
    cfg.nthreads = threads;
    cfg.self_check = 1;
    if (cuzk_workspace_create(&ws, &pk, &cfg, err) != CUZK_OK) goto fail;

    /* The engine: the same key, kept resident. */
    cuzk_engine_config ec;
    cuzk_engine_config_default(&ec);
    ec.backend = "cpu";
    ec.provers_per_device = provers;
    ec.witness_workers = wworkers;
    ec.witness_threads = wthreads;
    ec.witness_nice = wnice;
    ec.prove_threads = threads;
    ec.max_batch_size = 0; /* jobs go straight to the run queue */
    if (store_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/bench-engine.db", store_dir);
        remove(path); /* a fresh store each run: */
        snprintf(path + strlen(path), sizeof path - strlen(path), "-wal");
        remove(path);
        snprintf(path + strlen(path) - 4, 5, "-shm");
        remove(path);
        snprintf(path, sizeof path, "%s/bench-engine.db", store_dir);
        if (cuzk_store_open_sqlite(&st, path, err) != CUZK_OK) goto fail;
        ec.store = st;
    }
    if (cuzk_engine_create(&e, &ec, err) != CUZK_OK) goto fail;
    cuzk_circuit_spec sp;
    memset(&sp, 0, sizeof sp);
    if (b.zkey) {
        sp.key_path = b.zkey;
    } else {
        sp.builtin = b.circuit;
        sp.log_size = b.size;
        sp.setup_seed = &bench_seed;
    }
    sp.preload = 1;
    if (cuzk_engine_register(e, &sp, name, err) != CUZK_OK ||
        cuzk_engine_start(e, NULL, err) != CUZK_OK)
        goto fail;

    /* Warm-up: one proof each (circuit opened, workspaces made). */
    if (loop_one(ws, &b, 1, NULL, err) != CUZK_OK) goto fail;
    if (engine_batch(e, name, &b, 1, 1, NULL) < 0) goto out;

    printf("%s, domain 2^%u: %u jobs x %u rounds, threads %u, provers %u, witness workers %u "
           "(threads %u, nice %d), store %s\n",
           b.zkey ? b.zkey : b.circuit, pk.log_domain, jobs, rounds, threads, provers, wworkers,
           wthreads, wnice, store_dir ? "sqlite" : "none");
    printf("%-6s %10s %10s %9s\n", "round", "loop s", "engine s", "overhead");
    double lsum[NCOL] = {0}, esum[NCOL] = {0};
    for (unsigned r = 0; r < rounds; r++) {
        uint64_t first = 1000 + (uint64_t)r * jobs;
        /* Alternate which side goes first, so a drift in the machine's load
         * does not favour one. */
        for (int side = 0; side < 2; side++) {
            int eng = (int)((r + (unsigned)side) & 1);
            if (eng) {
                if ((eng_ms[r] = engine_batch(e, name, &b, first, jobs, esum)) < 0) goto out;
            } else {
                double t0 = bench_now_ns();
                for (unsigned i = 0; i < jobs; i++) {
                    cuzk_prove_timings t;
                    if (loop_one(ws, &b, first + i, &t, err) != CUZK_OK) goto fail;
                    add_timings(lsum, t.witness_ms, &t);
                }
                loop_ms[r] = (bench_now_ns() - t0) / 1e6;
            }
        }
        ovh[r] = 100.0 * (eng_ms[r] - loop_ms[r]) / loop_ms[r];
        printf("%-6u %10.3f %10.3f %8.1f%%\n", r + 1, loop_ms[r] / 1e3, eng_ms[r] / 1e3, ovh[r]);
    }
    double n = (double)jobs * rounds, lwall = 0, ewall = 0;
    for (unsigned r = 0; r < rounds; r++) {
        lwall += loop_ms[r];
        ewall += eng_ms[r];
    }
    printf("mean ms  witness   rows      H  msm A msm B2  msm C  assem verify prover\n");
    for (int side = 0; side < 2; side++) {
        const double *x = side ? esum : lsum;
        printf("%-7s", side ? "engine" : "loop");
        for (int k = 0; k < NCOL; k++) printf(" %6.2f", x[k] / n);
        printf("\n");
    }
    /* What the wall time holds beyond the stages on each side's critical
     * path (the loop: witness, prover, self-check; the engine with one
     * prover: the prover, its witnesses and checks running beside it): the
     * cost of the engine itself, and far less noisy than the wall times on
     * a loaded machine, since both sides' stages slow down alike. */
    double lgap = (lwall - lsum[0] - lsum[7] - lsum[8]) / n, egap = (ewall - esum[8]) / n;
    printf("outside the critical stages, ms/proof: loop %.2f, engine %.2f (%.1f%% of the loop's "
           "proof); engine prover busy %.1f%% of its wall\n",
           lgap, egap, 100.0 * (egap - lgap) / (lwall / n), 100.0 * esum[8] / ewall);
    prover_gaps(e);
    cuzk_engine_status es;
    if (st && cuzk_engine_status_get(e, &es) == CUZK_OK) {
        printf("store thread: %llu rows, leases and ends in %llu commits (mean group %.2f)\n",
               (unsigned long long)es.store_ops, (unsigned long long)es.store_commits,
               es.store_commits ? (double)es.store_ops / (double)es.store_commits : 0.0);
        cuzk_engine_status_free(&es);
    }
    qsort(loop_ms, rounds, sizeof *loop_ms, bench_cmp_double);
    qsort(eng_ms, rounds, sizeof *eng_ms, bench_cmp_double);
    qsort(ovh, rounds, sizeof *ovh, bench_cmp_double);
    printf("median: loop %.3f s (%.2f ms/proof), engine %.3f s (%.2f ms/proof), "
           "overhead %.1f%% (rounds %.1f%% .. %.1f%%)\n",
           loop_ms[rounds / 2] / 1e3, loop_ms[rounds / 2] / jobs, eng_ms[rounds / 2] / 1e3,
           eng_ms[rounds / 2] / jobs, ovh[rounds / 2], ovh[0], ovh[rounds - 1]);
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "cuzk-bench engine: %s\n", err);
out:
    cuzk_engine_destroy(e);
    cuzk_store_close(st);
    cuzk_workspace_destroy(ws);
    cuzk_groth16_pk_free(&pk);
    cuzk_zkey_free(&z);
    cuzk_blob_release(&zb);
    cuzk_blob_release(&wb);
    free(loop_ms);
    free(eng_ms);
    free(ovh);
    return rc;
}
