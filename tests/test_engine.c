/* The engine (engine.h) on the CPU backend with small built-in circuits
 * (winning-32g at 2^10: one partition) and the snarkjs test key: submit,
 * await, cancel (queued and running), status; priority order and CRITICAL
 * overtaking (seen through the timeline with one prover worker); batch
 * flushes by size, timeout and priority; back-pressure under a budget;
 * retries through the fault hook; request_id idempotency; restart from a
 * store (a small in-memory one here). Every proof returned is verified.
 * No sleeps: the tests wait on the engine's conditions or on the fault
 * hook's. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <cuzk/engine.h>
#include <cuzk/groth16.h>

#include "test_util.h"
/* cuzk-bench waterfall's copy of the timeline's names (checked below). */
#include "../bench/wf_names.h"

#define WIN "winning-32g"
#define LOG 10
#define WAIT_MS 120000 /* a deadline only against hangs, never reached */

static const uint64_t seed1 = 1, seed2 = 2;

static cuzk_engine *mk(cuzk_engine_config *cfg, int two_circuits)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_engine *e = NULL;
    cuzk_status s = cuzk_engine_create(&e, cfg, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    if (s != CUZK_OK) exit(1);
    cuzk_circuit_spec sp = {0};
    sp.builtin = WIN;
    sp.log_size = LOG;
    sp.setup_seed = &seed1;
    s = cuzk_engine_register(e, &sp, NULL, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    if (two_circuits) {
        sp.name = "w2";
        sp.setup_seed = &seed2;
        s = cuzk_engine_register(e, &sp, NULL, err);
        CHECK_MSG(s == CUZK_OK, "%s", err);
    }
    return e;
}

static uint64_t submit(cuzk_engine *e, const char *circ, cuzk_priority pr, uint64_t seed,
                       const char *rid)
{
    char in[64], err[CUZK_ERRMSG_LEN];
    snprintf(in, sizeof in, "{\"seed\": %llu}", (unsigned long long)seed);
    cuzk_job_request rq = {0};
    rq.circuit = circ;
    rq.priority = pr;
    rq.request_id = rid;
    rq.inputs = in;
    uint64_t id = 0;
    cuzk_status s = cuzk_engine_submit(e, &rq, &id, NULL, err);
    CHECK_MSG(s == CUZK_OK && id, "submit: %s", err);
    return id;
}

/* Waits for job id and checks its state; DONE jobs get every partition's
 * proof verified against the exported vk and their JSON checked. */
static void expect(cuzk_engine *e, uint64_t id, cuzk_job_state want)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_job_info info;
    CHECK(cuzk_engine_wait(e, id, WAIT_MS, &info, err) == CUZK_OK);
    CHECK_MSG(info.state == want, "job %llu: %s, wanted %s (%s)", (unsigned long long)id,
              cuzk_job_state_name(info.state), cuzk_job_state_name(want), info.error);
    if (info.state == CUZK_JOB_DONE) {
        CHECK(info.result_json != NULL);
        json_t *v = info.result_json ? json_loads(info.result_json, 0, NULL) : NULL;
        json_int_t np = v ? json_integer_value(json_object_get(v, "partitions")) : 0;
        json_t *pf = v ? json_object_get(v, "proof") : NULL;
        CHECK(np == info.partitions && json_is_array(json_object_get(v, "public")));
        CHECK(np == 1 ? json_is_object(pf) : json_is_array(pf) && json_array_size(pf) == (size_t)np);
        json_decref(v);
        cuzk_job_result *r = NULL;
        CHECK(cuzk_engine_result(e, id, &r, err) == CUZK_OK);
        char *vkj = NULL;
        cuzk_vk vk;
        memset(&vk, 0, sizeof vk);
        CHECK(r && cuzk_engine_circuit_vk_json(e, r->circuit, &vkj, err) == CUZK_OK &&
              cuzk_vk_from_json(&vk, vkj, strlen(vkj), err) == CUZK_OK);
        for (unsigned i = 0; r && i < r->n; i++)
            CHECK(cuzk_groth16_verify(&vk, &r->parts[i].proof, r->parts[i].pub,
                                      r->parts[i].n_public) == CUZK_OK);
        cuzk_vk_free(&vk);
        free(vkj);
        cuzk_job_result_free(r);
    }
    cuzk_job_info_free(&info);
}

/* The jobs in the order their first PROVE_START appears. */
static size_t prove_order(cuzk_engine *e, uint64_t *out, size_t max)
{
    static cuzk_event ev[4096];
    size_t n = cuzk_engine_timeline(e, 0, ev, 4096, NULL), k = 0;
    for (size_t i = 0; i < n && k < max; i++) {
        if (ev[i].kind != CUZK_EV_PROVE_START) continue;
        int seen = 0;
        for (size_t t = 0; t < k; t++) seen |= out[t] == ev[i].job;
        if (!seen) out[k++] = ev[i].job;
    }
    return k;
}

static size_t count_events(cuzk_engine *e, cuzk_event_kind kind, int stage)
{
    static cuzk_event ev[4096];
    size_t n = cuzk_engine_timeline(e, 0, ev, 4096, NULL), k = 0;
    for (size_t i = 0; i < n; i++) k += ev[i].kind == kind && (stage < 0 || ev[i].stage == stage);
    return k;
}

static void start(cuzk_engine *e)
{
    char err[CUZK_ERRMSG_LEN];
    CHECK_MSG(cuzk_engine_start(e, NULL, err) == CUZK_OK, "%s", err);
}

/* ------------------------------------------------------------ basics -- */

static void test_basic(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.backend = "auto";
    cuzk_engine *e = mk(&cfg, 0);
    cuzk_circuit_spec sp = {0};
    char path[512], wpath[512], name[CUZK_ENGINE_ID_LEN];
    snprintf(path, sizeof path, "%s/mul.zkey", test_data_dir());
    snprintf(wpath, sizeof wpath, "%s/mul.wtns", test_data_dir());
    sp.key_path = path;
    CHECK_MSG(cuzk_engine_register(e, &sp, name, err) == CUZK_OK, "%s", err);
    CHECK(!strcmp(name, "mul"));
    CHECK(cuzk_engine_register(e, &sp, NULL, err) == CUZK_ERR_INVALID_ARGUMENT); /* dup */
    cuzk_circuit_spec sn = {0}; /* 16 partitions */
    sn.builtin = "snap-32g";
    sn.log_size = LOG;
    sn.setup_seed = &seed1;
    CHECK_MSG(cuzk_engine_register(e, &sn, NULL, err) == CUZK_OK, "%s", err);
    start(e);

    uint64_t a = submit(e, WIN, CUZK_PRIO_NORMAL, 7, NULL);
    cuzk_job_request rq = {0};
    rq.circuit = "mul";
    rq.wtns_path = wpath;
    uint64_t b = 0;
    CHECK_MSG(cuzk_engine_submit(e, &rq, &b, NULL, err) == CUZK_OK, "%s", err);
    uint64_t sj = submit(e, "snap-32g", CUZK_PRIO_NORMAL, 5, NULL);
    expect(e, a, CUZK_JOB_DONE);
    expect(e, b, CUZK_JOB_DONE);
    expect(e, sj, CUZK_JOB_DONE);

    /* Bad requests are refused and accept nothing. */
    uint64_t x;
    rq.circuit = "nope";
    CHECK(cuzk_engine_submit(e, &rq, &x, NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    rq.circuit = WIN; /* a .wtns for a built-in */
    CHECK(cuzk_engine_submit(e, &rq, &x, NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    rq.wtns_path = NULL;
    rq.inputs = "{\"seed\": -1}";
    CHECK(cuzk_engine_submit(e, &rq, &x, NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    rq.inputs = "[1,";
    CHECK(cuzk_engine_submit(e, &rq, &x, NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    /* Inputs that parse but name a challenge out of range: the job fails,
     * the engine goes on. */
    rq.inputs = "{\"seed\": 1, \"partition\": 0, \"challenges\": [99999999999]}";
    CHECK(cuzk_engine_submit(e, &rq, &x, NULL, err) == CUZK_OK);
    expect(e, x, CUZK_JOB_FAILED);
    expect(e, submit(e, WIN, CUZK_PRIO_LOW, 8, NULL), CUZK_JOB_DONE);

    /* Idempotency: the same request_id is the same job. */
    uint64_t r1 = submit(e, WIN, CUZK_PRIO_NORMAL, 9, "req-1"), r2 = 0;
    int ex = 0;
    rq.circuit = WIN;
    rq.inputs = "{\"seed\": 10}";
    rq.request_id = "req-1";
    CHECK(cuzk_engine_submit(e, &rq, &r2, &ex, err) == CUZK_OK && ex == 1 && r2 == r1);
    expect(e, r1, CUZK_JOB_DONE);

    cuzk_engine_status st;
    CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK);
    CHECK(st.jobs_done == 5 && st.jobs_failed == 1 && st.n_circuits == 3);
    CHECK(st.partitions_proved == 4 + 16 && st.circuits[2].partitions == 16);
    CHECK(st.circuits[0].insecure && st.circuits[0].tier == CUZK_TIER_RESIDENT &&
          st.circuits[0].refcount == 0 && !st.circuits[1].insecure);
    CHECK(st.threads_witness == 2 && st.threads_prover == 1); /* + the critical worker */
    cuzk_engine_status_free(&st);
    char *m = NULL;
    CHECK(cuzk_engine_metrics(e, &m, NULL) == CUZK_OK && m &&
          strstr(m, "cuzk_jobs_done_total 5\n") &&
          strstr(m, "cuzk_stage_seconds_count{stage=\"msm_a\"} 20\n"));
    /* Seconds with fixed microseconds, bytes as integers. */
    const char *u = m ? strstr(m, "\ncuzk_uptime_seconds ") : NULL;
    const char *h = m ? strstr(m, "\ncuzk_memory_host_reserved_bytes ") : NULL;
    CHECK(u && h);
    if (u && h) {
        u += strlen("\ncuzk_uptime_seconds ");
        size_t ip = strspn(u, "0123456789");
        CHECK(ip > 0 && u[ip] == '.' && strspn(u + ip + 1, "0123456789") == 6 &&
              u[ip + 7] == '\n');
        h += strlen("\ncuzk_memory_host_reserved_bytes ");
        size_t nd = strspn(h, "0123456789");
        CHECK(nd > 0 && h[nd] == '\n');
    }
    free(m);
    cuzk_event ev[4];
    char line[256];
    CHECK(cuzk_engine_timeline(e, 0, ev, 4, NULL) == 4);
    CHECK(cuzk_event_format(&ev[0], line, sizeof line) > 0 && strstr(line, "seq=1 "));
    /* A memory sample after every witness and every proof: the resident
     * set (Linux), the setup keys in the pinned pool, the workspaces in the
     * device pool; and its log line. */
    static cuzk_event all[4096];
    size_t n = cuzk_engine_timeline(e, 0, all, 4096, NULL), n_mem = 0, n_end = 0, n_dev = 0;
    for (size_t i = 0; i < n; i++) {
        if (all[i].kind == CUZK_EV_WITNESS_END || all[i].kind == CUZK_EV_PROVE_END) n_end++;
        if (all[i].kind != CUZK_EV_MEM) continue;
        n_mem++;
        n_dev += all[i].device_bytes > 0;
        CHECK(all[i].value > 0 && all[i].pinned_bytes > 0 && all[i].job > 0);
        if (n_mem == 1) {
            char want[96];
            snprintf(want, sizeof want, " mem job=%" PRIu64 " ", all[i].job);
            CHECK(cuzk_event_format(&all[i], line, sizeof line) > 0 && strstr(line, want) &&
                  strstr(line, " rss=") && strstr(line, " device_bytes="));
        }
    }
    CHECK(n_mem == n_end && n_end >= 2 * 20);
    CHECK(n_dev > 0 && !strcmp(cuzk_event_kind_name(CUZK_EV_MEM), "mem"));
    cuzk_engine_destroy(e);
}

/* Writes the insecure key of WIN at log_size to path. */
static void write_key(const char *path, unsigned log_size)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_groth16_pk pk = {0};
    CHECK_MSG(cuzk_circuit_setup(&pk, WIN, log_size, &seed1, err) == CUZK_OK, "%s", err);
    CHECK_MSG(cuzk_keyfile_write(path, &pk, CUZK_SETUP_LABEL, 0, err) == CUZK_OK, "%s", err);
    cuzk_circuit *ci = NULL;
    CHECK(cuzk_circuit_open(&ci, WIN, log_size, err) == CUZK_OK);
    CHECK(cuzk_circuit_key_check(&pk, ci, err) == CUZK_OK);
    cuzk_circuit_close(ci);
    cuzk_groth16_pk_free(&pk);
}

/* A built-in registered with a key file of another size or circuit is
 * refused at register when the counts that need no witness differ (its
 * public inputs, its domain) — before, only a job found it, after its
 * witness work; when only the variables differ (2^10 and 2^11 of WIN
 * share a domain), the job fails right after the witness with a message
 * naming the counts. */
/* Knobs out of range: refused at creation, naming them. */
static void test_bad_config(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_engine_config cfg;
    cuzk_engine *e = NULL;
    cuzk_engine_config_default(&cfg);
    cfg.witness_nice = 20;
    CHECK(cuzk_engine_create(&e, &cfg, err) == CUZK_ERR_INVALID_ARGUMENT && !e &&
          strstr(err, "witness_nice"));
    cuzk_engine_config_default(&cfg);
    cfg.gpu_msm_fp64 = 5;
    CHECK(cuzk_engine_create(&e, &cfg, err) == CUZK_ERR_INVALID_ARGUMENT && !e &&
          strstr(err, "gpu_msm_fp64 5"));
    cuzk_engine_config_default(&cfg);
    CHECK(cfg.gpu_ntt_full_twiddles == 13);
    cfg.gpu_ntt_full_twiddles = 3;
    CHECK(cuzk_engine_create(&e, &cfg, err) == CUZK_ERR_INVALID_ARGUMENT && !e &&
          strstr(err, "gpu_ntt_full_twiddles 3"));
    CHECK(cuzk_engine_config_check(&cfg, err) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(err, "gpu_ntt_full_twiddles 3"));
    /* Shoup pairs (+ 8) only with the full table */
    static const unsigned no_sh[4] = {8, 10, 12, 14};
    for (int i = 0; i < 4; i++) {
        char want[40];
        snprintf(want, sizeof want, "gpu_ntt_full_twiddles %u", no_sh[i]);
        cfg.gpu_ntt_full_twiddles = no_sh[i];
        CHECK(cuzk_engine_config_check(&cfg, err) == CUZK_ERR_INVALID_ARGUMENT &&
              strstr(err, want));
    }
    cfg.gpu_ntt_full_twiddles = 9;
    CHECK(cuzk_engine_config_check(&cfg, err) == CUZK_OK);
    cfg.gpu_ntt_full_twiddles = 5;
    cfg.n_devices = 33;
    CHECK(cuzk_engine_config_check(&cfg, err) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(err, "devices 33"));
    cfg.n_devices = 32;
    CHECK(cuzk_engine_config_check(&cfg, err) == CUZK_OK);
    cuzk_engine_config_default(&cfg);
    cfg.gpu_ntt_fp64 = 4;
    cfg.gpu_msm_fp64 = 4;
    cfg.gpu_ntt_full_twiddles = 2;
    CHECK(cuzk_engine_create(&e, &cfg, err) == CUZK_OK && e);
    cuzk_engine_destroy(e);
}

static void test_key_check(void)
{
    char err[CUZK_ERRMSG_LEN], dir[] = "/tmp/cuzk-engine-XXXXXX", k11[64], k12[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(k11, sizeof k11, "%s/w11.cuzk", dir);
    snprintf(k12, sizeof k12, "%s/w12.cuzk", dir);
    write_key(k11, LOG + 1);
    write_key(k12, LOG + 2);

    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cuzk_engine *e = mk(&cfg, 0);
    cuzk_circuit_spec sp = {0};
    sp.builtin = WIN;
    sp.log_size = LOG;
    sp.name = "w-wrong";
    sp.key_path = k12; /* a 2^12 key (domain 2^12) for 2^10 (domain 2^11) */
    CHECK(cuzk_engine_register(e, &sp, NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err, "w12.cuzk") && strstr(err, "domain is 2^12") &&
                  strstr(err, "another circuit or size"), "%s", err);
    sp.builtin = "snap-32g"; /* another circuit: other public inputs */
    CHECK(cuzk_engine_register(e, &sp, NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err, "public inputs") && strstr(err, "another circuit or size"), "%s",
              err);
    sp.builtin = WIN;
    sp.key_path = k11; /* same public inputs and domain: known at the witness */
    CHECK_MSG(cuzk_engine_register(e, &sp, NULL, err) == CUZK_OK, "%s", err);
    sp.log_size = LOG + 2;
    sp.name = "w12";
    sp.key_path = k12;
    CHECK_MSG(cuzk_engine_register(e, &sp, NULL, err) == CUZK_OK, "%s", err);
    start(e);
    uint64_t bad = submit(e, "w-wrong", CUZK_PRIO_NORMAL, 3, NULL);
    expect(e, bad, CUZK_JOB_FAILED);
    cuzk_job_info info;
    CHECK(cuzk_engine_job(e, bad, &info, err) == CUZK_OK);
    CHECK_MSG(strstr(info.error, "variables") && strstr(info.error, "another circuit or size"),
              "%s", info.error);
    cuzk_job_info_free(&info);
    expect(e, submit(e, "w12", CUZK_PRIO_NORMAL, 3, NULL), CUZK_JOB_DONE);
    cuzk_engine_destroy(e);
    unlink(k11);
    unlink(k12);
    rmdir(dir);
}

/* The asynchronous registration: begin lists the circuit LOADING at once
 * and jobs for it are accepted and wait; the load (run here, on the
 * test's thread, so every state is seen without a race) makes it READY
 * and the job proves, or FAILED and the waiting job fails with the load's
 * reason; a FAILED name is registered again. */
static void test_async_register(void)
{
    char err[CUZK_ERRMSG_LEN], name[CUZK_ENGINE_ID_LEN], dir[] = "/tmp/cuzk-engine-XXXXXX",
                                                        k[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(k, sizeof k, "%s/cut.cuzk", dir);
    write_key(k, LOG);
    CHECK(truncate(k, 4096) == 0); /* the magic is there: the load finds the cut */

    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.max_batch_size = 1;
    cuzk_engine *e = mk(&cfg, 0);
    start(e);
    cuzk_circuit_spec sp = {0};
    sp.builtin = WIN;
    sp.log_size = LOG;
    sp.setup_seed = &seed2;
    sp.name = "late";
    int ex = -1;
    CHECK_MSG(cuzk_engine_register_begin(e, &sp, name, &ex, err) == CUZK_OK, "%s", err);
    CHECK(ex == 0 && !strcmp(name, "late"));
    cuzk_circuit_desc d;
    CHECK(cuzk_engine_circuit(e, "late", &d, err) == CUZK_OK);
    CHECK(d.state == CUZK_CIRCUIT_LOADING && d.partitions == 1 && d.n_vars == 0);
    CHECK(!strcmp(cuzk_circuit_state_name(d.state), "loading"));
    CHECK(cuzk_engine_circuit_wait(e, "late", 1, &d, err) == CUZK_OK &&
          d.state == CUZK_CIRCUIT_LOADING); /* the wait times out */
    uint64_t j1 = submit(e, "late", CUZK_PRIO_NORMAL, 5, NULL);
    cuzk_job_info info;
    CHECK(cuzk_engine_job(e, j1, &info, err) == CUZK_OK && info.state == CUZK_JOB_QUEUED);
    cuzk_job_info_free(&info);
    char *vk = NULL;
    CHECK(cuzk_engine_circuit_vk_json(e, "late", &vk, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_engine_preload(e, "late", err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_engine_evict(e, "late", err) == CUZK_ERR_INVALID_ARGUMENT);
    /* The same spec again: the same circuit, no second load; another key
     * under the name, or the blocking form: refused. */
    CHECK(cuzk_engine_register_begin(e, &sp, name, &ex, err) == CUZK_OK && ex == 1);
    sp.log_size = LOG + 1;
    CHECK(cuzk_engine_register_begin(e, &sp, NULL, &ex, err) == CUZK_ERR_INVALID_ARGUMENT);
    sp.log_size = LOG;
    CHECK(cuzk_engine_register(e, &sp, NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(cuzk_engine_register_load(e, "late", err) == CUZK_OK, "%s", err);
    CHECK(cuzk_engine_register_load(e, "late", err) == CUZK_ERR_INVALID_ARGUMENT); /* ready */
    CHECK(cuzk_engine_circuit_wait(e, "late", WAIT_MS, &d, err) == CUZK_OK &&
          d.state == CUZK_CIRCUIT_READY && d.n_vars > 0);
    expect(e, j1, CUZK_JOB_DONE);

    /* A key whose load fails: the waiting jobs fail with its reason. */
    cuzk_circuit_spec bad = {0};
    bad.builtin = WIN;
    bad.log_size = LOG;
    bad.key_path = k;
    bad.name = "cut";
    CHECK_MSG(cuzk_engine_register_begin(e, &bad, NULL, &ex, err) == CUZK_OK, "%s", err);
    uint64_t j2 = submit(e, "cut", CUZK_PRIO_HIGH, 6, NULL);
    uint64_t j3 = submit(e, "cut", CUZK_PRIO_LOW, 7, NULL);
    CHECK(cuzk_engine_cancel(e, j3, err) == CUZK_OK); /* a waiting job cancels */
    expect(e, j3, CUZK_JOB_CANCELED);
    CHECK(cuzk_engine_register_load(e, "cut", err) != CUZK_OK);
    CHECK_MSG(strstr(err, "cut.cuzk"), "%s", err);
    CHECK(cuzk_engine_circuit(e, "cut", &d, err) == CUZK_OK);
    CHECK_MSG(d.state == CUZK_CIRCUIT_FAILED && strstr(d.error, "cut.cuzk"), "%s", d.error);
    expect(e, j2, CUZK_JOB_FAILED);
    CHECK(cuzk_engine_job(e, j2, &info, err) == CUZK_OK);
    CHECK_MSG(strstr(info.error, "circuit cut failed to load") && strstr(info.error, d.error),
              "%s", info.error);
    cuzk_job_info_free(&info);
    char in[] = "{\"seed\": 8}";
    cuzk_job_request rq = {0};
    rq.circuit = "cut";
    rq.inputs = in;
    uint64_t id = 0;
    CHECK(cuzk_engine_submit(e, &rq, &id, NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err, "failed to load"), "%s", err);
    /* A bad request is refused by begin, at once: nothing is listed. */
    bad.name = "nofile";
    bad.key_path = "/nonexistent/k.cuzk";
    CHECK(cuzk_engine_register_begin(e, &bad, NULL, &ex, err) == CUZK_ERR_IO);
    CHECK(cuzk_engine_circuit(e, "nofile", &d, NULL) == CUZK_ERR_INVALID_ARGUMENT);
    bad.key_path = dir; /* a directory */
    CHECK(cuzk_engine_register_begin(e, &bad, NULL, &ex, err) == CUZK_ERR_INVALID_ARGUMENT);
    bad.key_path = NULL;
    bad.builtin = "no-such-circuit";
    CHECK(cuzk_engine_register_begin(e, &bad, NULL, &ex, err) != CUZK_OK);
    /* The failed name, registered again with a setup: retried, READY. */
    sp.name = "cut";
    CHECK(cuzk_engine_register_begin(e, &sp, NULL, &ex, err) == CUZK_OK && ex == 0);
    CHECK_MSG(cuzk_engine_register_load(e, "cut", err) == CUZK_OK, "%s", err);
    expect(e, submit(e, "cut", CUZK_PRIO_NORMAL, 9, NULL), CUZK_JOB_DONE);
    cuzk_engine_destroy(e);
    unlink(k);
    rmdir(dir);
}

/* ---------------------------------------------------------- priority -- */

static void test_priority(void)
{
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.ready_capacity = 1;
    cuzk_engine *e = mk(&cfg, 0);
    /* Queued before start, so the order is the scheduler's alone. */
    uint64_t lo = submit(e, WIN, CUZK_PRIO_LOW, 1, NULL);
    uint64_t n1 = submit(e, WIN, CUZK_PRIO_NORMAL, 2, NULL);
    uint64_t hi = submit(e, WIN, CUZK_PRIO_HIGH, 3, NULL);
    uint64_t n2 = submit(e, WIN, CUZK_PRIO_NORMAL, 4, NULL);
    uint64_t cr = submit(e, WIN, CUZK_PRIO_CRITICAL, 5, NULL);
    cuzk_job_info info;
    CHECK(cuzk_engine_job(e, lo, &info, NULL) == CUZK_OK && info.queue_position == 4 &&
          info.state == CUZK_JOB_QUEUED);
    start(e);
    expect(e, lo, CUZK_JOB_DONE);
    uint64_t want[5] = {cr, hi, n1, n2, lo}, got[5] = {0};
    CHECK(prove_order(e, got, 5) == 5);
    CHECK(!memcmp(want, got, sizeof want));
    cuzk_engine_destroy(e);
}

/* ------------------------------------------------------------- batch -- */

static void test_batch(void)
{
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.max_batch_size = 2;
    cfg.max_batch_wait_ms = 3600000; /* only size or priority flush */
    cuzk_engine *e = mk(&cfg, 0);
    start(e);
    uint64_t a = submit(e, WIN, CUZK_PRIO_NORMAL, 1, NULL);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(st.jobs_collecting == 1);
    cuzk_engine_status_free(&st);
    uint64_t b = submit(e, WIN, CUZK_PRIO_NORMAL, 2, NULL); /* size 2: flush */
    expect(e, a, CUZK_JOB_DONE);
    expect(e, b, CUZK_JOB_DONE);
    CHECK(count_events(e, CUZK_EV_BATCH, 0) == 1);
    /* A higher priority flushes the lower batch; CRITICAL goes through. */
    uint64_t c = submit(e, WIN, CUZK_PRIO_LOW, 3, NULL);
    uint64_t d = submit(e, WIN, CUZK_PRIO_HIGH, 4, NULL);
    uint64_t f = submit(e, WIN, CUZK_PRIO_CRITICAL, 5, NULL);
    expect(e, c, CUZK_JOB_DONE);
    expect(e, d, CUZK_JOB_DONE);
    expect(e, f, CUZK_JOB_DONE);
    CHECK(count_events(e, CUZK_EV_BATCH, 2) == 2);
    cuzk_engine_destroy(e);

    cfg.max_batch_size = 8;
    cfg.max_batch_wait_ms = 20;
    e = mk(&cfg, 0);
    start(e);
    expect(e, submit(e, WIN, CUZK_PRIO_NORMAL, 6, NULL), CUZK_JOB_DONE);
    CHECK(count_events(e, CUZK_EV_BATCH, 1) == 1);
    cuzk_engine_destroy(e);
}

/* ------------------------------------------------- the fault hook gate -- */

/* Blocks the first attempt of job `hold` until released; answers `mode`
 * for the jobs in `bad` (their attempts up to bad_until). */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t hold;
    int held, released;
    uint64_t bad;
    unsigned bad_until;
    cuzk_fault mode;
    unsigned devices[8];
} gate;

static cuzk_fault on_fault(void *ctx, uint64_t job, unsigned part, unsigned attempt,
                           unsigned device)
{
    (void)part;
    gate *g = ctx;
    pthread_mutex_lock(&g->mu);
    if (attempt <= 8 && job == g->bad) g->devices[attempt - 1] = device;
    if (job == g->hold && attempt == 1) {
        g->held = 1;
        pthread_cond_broadcast(&g->cv);
        while (!g->released) pthread_cond_wait(&g->cv, &g->mu);
    }
    cuzk_fault f = job == g->bad && attempt <= g->bad_until ? g->mode : CUZK_FAULT_NONE;
    pthread_mutex_unlock(&g->mu);
    return f;
}

static void gate_wait_held(gate *g)
{
    pthread_mutex_lock(&g->mu);
    while (!g->held) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

static void gate_release(gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->released = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static void test_cancel(void)
{
    char err[CUZK_ERRMSG_LEN];
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0, {0}};
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.fault = on_fault;
    cfg.fault_ctx = &g;
    cuzk_engine *e = mk(&cfg, 0);
    /* Queued: removed at once. */
    uint64_t q = submit(e, WIN, CUZK_PRIO_NORMAL, 1, NULL);
    CHECK(cuzk_engine_cancel(e, q, err) == CUZK_OK);
    cuzk_job_info info;
    CHECK(cuzk_engine_job(e, q, &info, err) == CUZK_OK && info.state == CUZK_JOB_CANCELED);
    CHECK(cuzk_engine_cancel(e, 999, err) == CUZK_ERR_INVALID_ARGUMENT);
    /* Running: stops at the next stage boundary. */
    start(e);
    pthread_mutex_lock(&g.mu);
    g.hold = submit(e, WIN, CUZK_PRIO_NORMAL, 2, NULL);
    pthread_mutex_unlock(&g.mu);
    uint64_t other = submit(e, WIN, CUZK_PRIO_NORMAL, 3, NULL);
    gate_wait_held(&g);
    CHECK(cuzk_engine_job(e, g.hold, &info, err) == CUZK_OK && info.state == CUZK_JOB_RUNNING);
    CHECK(cuzk_engine_cancel(e, g.hold, err) == CUZK_OK);
    gate_release(&g);
    expect(e, g.hold, CUZK_JOB_CANCELED);
    expect(e, other, CUZK_JOB_DONE);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(st.jobs_canceled == 2 && st.jobs_done == 1 && st.circuits[0].refcount == 0 &&
          st.partitions_proved == 1);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
}

/* ------------------------------------------------- lanes and queues -- */

/* What the dashboard shows of the status: the jobs of each priority and
 * each worker's partition and stage, with a partition held in its prover
 * by the gate (its stage: still SETUP, before cuzk_prove). */
static void test_lanes(void)
{
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0, {0}};
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.fault = on_fault;
    cfg.fault_ctx = &g;
    cuzk_engine *e = mk(&cfg, 0);
    cuzk_engine_status st;
    CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK && st.n_lanes == 0); /* not started */
    cuzk_engine_status_free(&st);
    uint64_t n1 = submit(e, WIN, CUZK_PRIO_NORMAL, 1, NULL);
    uint64_t n2 = submit(e, WIN, CUZK_PRIO_NORMAL, 2, NULL);
    uint64_t lo = submit(e, WIN, CUZK_PRIO_LOW, 3, NULL);
    CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK);
    const cuzk_prio_status *pn = &st.prio[CUZK_PRIO_NORMAL], *pl = &st.prio[CUZK_PRIO_LOW];
    CHECK(pn->n == 2 && pn->queued == 2 && pn->running == 0 && pn->partitions_queued == 2);
    CHECK(pn->jobs[0].id == n1 && pn->jobs[1].id == n2 && pn->jobs[0].state == CUZK_JOB_QUEUED &&
          pn->jobs[0].partitions == 1 && !pn->jobs[0].collecting);
    CHECK(pl->n == 1 && pl->jobs[0].id == lo && st.prio[CUZK_PRIO_HIGH].n == 0 &&
          st.prio[CUZK_PRIO_CRITICAL].n == 0);
    cuzk_engine_status_free(&st);

    pthread_mutex_lock(&g.mu);
    g.hold = n1;
    pthread_mutex_unlock(&g.mu);
    start(e);
    gate_wait_held(&g);
    CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK && st.n_lanes == 3);
    if (st.n_lanes == 3) {
        const cuzk_lane_status *w = &st.lanes[0], *wc = &st.lanes[1], *p = &st.lanes[2];
        CHECK(!w->prover && w->slot == 0 && !w->critical);
        CHECK(!wc->prover && wc->slot == 1 && wc->critical && wc->job == 0);
        CHECK(p->prover && p->device == 0 && p->slot == 0 && p->job == n1 &&
              p->partition == 0 && p->attempt == 1 && p->stage == CUZK_LANE_SETUP &&
              !strcmp(p->circuit, WIN) && p->busy_ms >= 0);
    }
    CHECK(pn->running >= 1 && pn->jobs[0].id == n1 && pn->jobs[0].state == CUZK_JOB_RUNNING);
    cuzk_engine_status_free(&st);
    gate_release(&g);
    expect(e, n1, CUZK_JOB_DONE);
    expect(e, n2, CUZK_JOB_DONE);
    expect(e, lo, CUZK_JOB_DONE);
    CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK && st.n_lanes == 3);
    for (size_t i = 0; i < st.n_lanes; i++) CHECK(st.lanes[i].job == 0);
    for (int p = 0; p < 4; p++) CHECK(st.prio[p].n == 0);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
}

/* critical_witness: with the prover held on n1 and the ready queue full
 * (n2's witness done, ready_capacity 1), a CRITICAL job's witness still
 * runs, on the worker kept for it, and the CRITICAL partition is the next
 * proved; without that worker it waits for the queue, behind n2. */
static void critical_case(int on)
{
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0, {0}};
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.ready_capacity = 1;
    cfg.critical_witness = on;
    cfg.fault = on_fault;
    cfg.fault_ctx = &g;
    cuzk_engine *e = mk(&cfg, 0);
    uint64_t n1 = submit(e, WIN, CUZK_PRIO_NORMAL, 1, NULL);
    uint64_t n2 = submit(e, WIN, CUZK_PRIO_NORMAL, 2, NULL);
    g.hold = n1;
    start(e);
    gate_wait_held(&g);
    /* n2's witness ends (the queue is then full), then the CRITICAL job */
    struct timespec ts = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 1000 && count_events(e, CUZK_EV_WITNESS_END, -1) < 2; i++)
        nanosleep(&ts, NULL);
    CHECK(count_events(e, CUZK_EV_WITNESS_END, -1) == 2);
    uint64_t cr = submit(e, WIN, CUZK_PRIO_CRITICAL, 3, NULL);
    /* on: its witness ends while n1 is held; off: 300 ms without it */
    for (int i = 0; i < (on ? 1000 : 30) && count_events(e, CUZK_EV_WITNESS_END, -1) < 3; i++)
        nanosleep(&ts, NULL);
    CHECK_MSG(count_events(e, CUZK_EV_WITNESS_END, -1) == (on ? 3u : 2u),
              "critical_witness %d: %zu witnesses ended while the prover was held", on,
              count_events(e, CUZK_EV_WITNESS_END, -1));
    gate_release(&g);
    expect(e, cr, CUZK_JOB_DONE);
    expect(e, n2, CUZK_JOB_DONE);
    uint64_t got[3] = {0}, want_on[3] = {n1, cr, n2}, want_off[3] = {n1, n2, cr};
    CHECK(prove_order(e, got, 3) == 3);
    CHECK(!memcmp(got, on ? want_on : want_off, sizeof got));
    cuzk_engine_destroy(e);
}

static void test_critical_witness(void)
{
    critical_case(1);
    critical_case(0);
}

/* The operator's lines (cuzk_engine_config.log), kept in order. */
typedef struct {
    pthread_mutex_t mu;
    char text[16384];
    size_t len;
} logbuf;

static void on_log(void *ctx, const char *line)
{
    logbuf *l = ctx;
    pthread_mutex_lock(&l->mu);
    int n = snprintf(l->text + l->len, sizeof l->text - l->len, "%s\n", line);
    if (n > 0 && l->len + (size_t)n < sizeof l->text) l->len += (size_t)n;
    pthread_mutex_unlock(&l->mu);
}

/* Whether a line of l starts with `start` and contains `part`. */
static int logged(logbuf *l, const char *start, const char *part)
{
    pthread_mutex_lock(&l->mu);
    int found = 0;
    for (const char *p = l->text; *p && !found;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        found = !strncmp(line, start, strlen(start)) && strstr(line, part);
        p += n + (nl != NULL);
    }
    pthread_mutex_unlock(&l->mu);
    return found;
}

static void test_retry(void)
{
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0, {0}};
    g.released = 1;
    static logbuf lb = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.n_devices = 2;
    cfg.fault = on_fault;
    cfg.fault_ctx = &g;
    cfg.log = on_log;
    cfg.log_ctx = &lb;
    cuzk_engine *e = mk(&cfg, 0);
    /* A bad proof once: retried on the other device, then right. */
    pthread_mutex_lock(&g.mu);
    g.bad = submit(e, WIN, CUZK_PRIO_NORMAL, 1, NULL);
    g.bad_until = 1;
    g.mode = CUZK_FAULT_BAD_PROOF;
    pthread_mutex_unlock(&g.mu);
    start(e);
    expect(e, g.bad, CUZK_JOB_DONE);
    CHECK(g.devices[0] != g.devices[1]);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(st.retries == 1 && st.verify_failures == 1);
    cuzk_engine_status_free(&st);
    /* Always bad: fails after max_attempts, the bad proof never returned. */
    pthread_mutex_lock(&g.mu);
    g.bad = submit(e, WIN, CUZK_PRIO_NORMAL, 2, NULL);
    g.bad_until = 99;
    pthread_mutex_unlock(&g.mu);
    cuzk_job_info info;
    expect(e, g.bad, CUZK_JOB_FAILED);
    CHECK(cuzk_engine_job(e, g.bad, &info, NULL) == CUZK_OK &&
          info.status == CUZK_ERR_PROOF_INVALID && info.attempts == 3 && !info.result_json);
    cuzk_job_result *r = NULL;
    CHECK(cuzk_engine_result(e, g.bad, &r, NULL) == CUZK_ERR_INVALID_ARGUMENT && !r);
    /* Backend errors likewise; the engine goes on. */
    pthread_mutex_lock(&g.mu);
    g.bad = submit(e, WIN, CUZK_PRIO_NORMAL, 3, NULL);
    g.mode = CUZK_FAULT_ERROR;
    pthread_mutex_unlock(&g.mu);
    expect(e, g.bad, CUZK_JOB_FAILED);
    CHECK(cuzk_engine_job(e, g.bad, &info, NULL) == CUZK_OK && info.status == CUZK_ERR_CUDA);
    expect(e, submit(e, WIN, CUZK_PRIO_NORMAL, 4, NULL), CUZK_JOB_DONE);
    cuzk_engine_destroy(e);
    /* What the operator read: both devices' workspaces, each failed attempt
     * with its reason, every job's end. */
    CHECK(logged(&lb, "circuit ", "a workspace on cpu (device 0)"));
    CHECK(logged(&lb, "circuit ", "a workspace on cpu (device 1)"));
    CHECK(logged(&lb, "job 1 partition 0: attempt 1 on device ", "self-verification on device"));
    CHECK(logged(&lb, "job 1 partition 0: attempt 1 on device ", "; retrying"));
    CHECK(logged(&lb, "job 1 (", "): done, 1 of 1 partitions in "));
    CHECK(logged(&lb, "job 2 partition 0: attempt 2 ", "retrying"));
    CHECK(logged(&lb, "job 2 (", "): failed, 0 of 1 partitions in "));
    CHECK(logged(&lb, "job 2 (", "self-verification"));
    CHECK(!logged(&lb, "job 2 partition 0: attempt 3", ""));
    CHECK(logged(&lb, "job 3 partition 0: attempt 1 ", "injected backend error"));
    CHECK(logged(&lb, "job 3 (", "): failed, 0 of 1 partitions in "));
    CHECK(logged(&lb, "job 4 (", "): done, 1 of 1 partitions in "));
}

/* ------------------------------------------------------ back-pressure -- */

static void test_budget(void)
{
    char err[CUZK_ERRMSG_LEN];
    /* Learn the sizes first. */
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cuzk_engine *e = mk(&cfg, 0);
    CHECK(cuzk_engine_preload(e, WIN, err) == CUZK_OK);
    cuzk_circuit_desc d;
    CHECK(cuzk_engine_circuit(e, WIN, &d, err) == CUZK_OK && d.tier == CUZK_TIER_RESIDENT);
    uint64_t ws = d.ws_bytes, wit = (uint64_t)d.n_vars * sizeof(cuzk_fr);
    CHECK(ws > 0 && cuzk_engine_evict(e, WIN, err) == CUZK_OK);
    CHECK(cuzk_engine_circuit(e, WIN, &d, err) == CUZK_OK && d.tier == CUZK_TIER_PINNED);
    cuzk_engine_destroy(e);

    /* Room for two witnesses and one workspace; two circuits take turns. */
    cuzk_engine_config_default(&cfg);
    cfg.witness_workers = 2;
    cfg.ready_capacity = 4;
    cfg.budget_host = 2 * wit;
    cfg.budget_device = ws + ws / 2;
    e = mk(&cfg, 1);
    start(e);
    uint64_t ids[8];
    for (int i = 0; i < 8; i++)
        ids[i] = submit(e, i & 1 ? "w2" : WIN, CUZK_PRIO_NORMAL, (uint64_t)i, NULL);
    for (int i = 0; i < 8; i++) expect(e, ids[i], CUZK_JOB_DONE);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK_MSG(st.host_peak <= cfg.budget_host, "host peak %llu > %llu",
              (unsigned long long)st.host_peak, (unsigned long long)cfg.budget_host);
    CHECK(st.device_reserved_peak <= cfg.budget_device);
    CHECK(st.evictions > 0);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);

    /* A workspace bigger than the device: the job fails, nothing hangs. */
    cuzk_engine_config_default(&cfg);
    cfg.budget_device = ws / 4;
    e = mk(&cfg, 0);
    start(e);
    uint64_t id = submit(e, WIN, CUZK_PRIO_NORMAL, 1, NULL);
    expect(e, id, CUZK_JOB_FAILED);
    cuzk_job_info info;
    CHECK(cuzk_engine_job(e, id, &info, NULL) == CUZK_OK && info.status == CUZK_ERR_NO_MEMORY);
    cuzk_engine_destroy(e);
}

/* ------------------------------------------------- an in-memory store -- */

typedef struct {
    cuzk_store base;
    pthread_mutex_t mu;
    cuzk_store_rec r[64];
    size_t n;
    unsigned leases;
} mstore;

static cuzk_status ms_enqueue(cuzk_store *s, const cuzk_store_rec *rec, int64_t now, uint64_t *id,
                              int *existing, char *err)
{
    (void)err;
    mstore *m = (mstore *)s;
    pthread_mutex_lock(&m->mu);
    *existing = 0;
    for (size_t i = 0; rec->request_id[0] && i < m->n; i++)
        if (!strcmp(m->r[i].request_id, rec->request_id)) {
            *id = m->r[i].id;
            *existing = 1;
            pthread_mutex_unlock(&m->mu);
            return CUZK_OK;
        }
    cuzk_store_rec *r = &m->r[m->n];
    memset(r, 0, sizeof *r);
    r->id = ++m->n;
    memcpy(r->request_id, rec->request_id, sizeof r->request_id);
    memcpy(r->circuit, rec->circuit, sizeof r->circuit);
    r->priority = rec->priority;
    r->request = malloc(rec->request_len + 1);
    memcpy(r->request, rec->request, rec->request_len);
    r->request_len = rec->request_len;
    r->created_ms = now;
    *id = r->id;
    pthread_mutex_unlock(&m->mu);
    return CUZK_OK;
}

static cuzk_store_rec *ms_rec(mstore *m, uint64_t id)
{
    return id >= 1 && id <= m->n ? &m->r[id - 1] : NULL;
}

static cuzk_status ms_lease(cuzk_store *s, uint64_t id, int64_t until, char *err)
{
    (void)err;
    mstore *m = (mstore *)s;
    pthread_mutex_lock(&m->mu);
    cuzk_store_rec *r = ms_rec(m, id);
    cuzk_status st = r && r->state == CUZK_STORE_QUEUED ? CUZK_OK : CUZK_ERR_INVALID_ARGUMENT;
    if (!st) {
        r->state = CUZK_STORE_LEASED;
        r->lease_until_ms = until;
        r->attempts++;
        m->leases++;
    }
    pthread_mutex_unlock(&m->mu);
    return st;
}

static cuzk_status ms_complete(cuzk_store *s, uint64_t id, const char *res, size_t len, int64_t now,
                               char *err)
{
    (void)err;
    mstore *m = (mstore *)s;
    pthread_mutex_lock(&m->mu);
    cuzk_store_rec *r = ms_rec(m, id);
    cuzk_status st = r && r->state == CUZK_STORE_LEASED ? CUZK_OK : CUZK_ERR_INVALID_ARGUMENT;
    if (!st) {
        r->state = CUZK_STORE_DONE;
        r->result = malloc(len + 1);
        memcpy(r->result, res, len);
        r->result[len] = 0;
        r->result_len = len;
        r->finished_ms = now;
    }
    pthread_mutex_unlock(&m->mu);
    return st;
}

static cuzk_status ms_fail(cuzk_store *s, uint64_t id, cuzk_store_state state, const char *why,
                           int64_t now, char *err)
{
    (void)err;
    mstore *m = (mstore *)s;
    pthread_mutex_lock(&m->mu);
    cuzk_store_rec *r = ms_rec(m, id);
    cuzk_status st = r && r->state <= CUZK_STORE_LEASED ? CUZK_OK : CUZK_ERR_INVALID_ARGUMENT;
    if (!st) {
        r->state = state;
        snprintf(r->error, sizeof r->error, "%s", why);
        r->finished_ms = now;
    }
    pthread_mutex_unlock(&m->mu);
    return st;
}

static cuzk_status ms_requeue(cuzk_store *s, int64_t now, size_t *n, char *err)
{
    (void)err;
    mstore *m = (mstore *)s;
    pthread_mutex_lock(&m->mu);
    *n = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].state == CUZK_STORE_LEASED && m->r[i].lease_until_ms < now) {
            m->r[i].state = CUZK_STORE_QUEUED;
            (*n)++;
        }
    pthread_mutex_unlock(&m->mu);
    return CUZK_OK;
}

static cuzk_status ms_get(cuzk_store *s, uint64_t id, const char *rid, cuzk_store_rec *out,
                          char *err)
{
    (void)rid;
    (void)err;
    mstore *m = (mstore *)s;
    pthread_mutex_lock(&m->mu);
    cuzk_store_rec *r = ms_rec(m, id);
    if (r) {
        *out = *r;
        out->request = NULL;
        out->result = NULL;
        if (r->result) {
            out->result = malloc(r->result_len + 1);
            memcpy(out->result, r->result, r->result_len + 1);
        }
    }
    pthread_mutex_unlock(&m->mu);
    return r ? CUZK_OK : CUZK_ERR_INVALID_ARGUMENT;
}

static cuzk_status ms_scan(cuzk_store *s, cuzk_store_state state, cuzk_store_scan_fn fn,
                           void *ctx, char *err)
{
    (void)err;
    mstore *m = (mstore *)s;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].state == state && fn(ctx, &m->r[i])) break;
    pthread_mutex_unlock(&m->mu);
    return CUZK_OK;
}

static void ms_free(mstore *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->r[i].request);
        free(m->r[i].result);
    }
}

/* An empty in-memory store with every function but batch. */
static void mstore_init(mstore *m)
{
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->mu, NULL);
    m->base.enqueue = ms_enqueue;
    m->base.lease = ms_lease;
    m->base.complete = ms_complete;
    m->base.fail = ms_fail;
    m->base.requeue_expired = ms_requeue;
    m->base.get = ms_get;
    m->base.scan = ms_scan;
}

static void test_restart(void)
{
    char err[CUZK_ERRMSG_LEN];
    static mstore m;
    mstore_init(&m);

    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.store = &m.base;
    /* First life: one job done, three accepted and never finished (one of
     * them leased by the "dead" process). */
    cuzk_engine *e = mk(&cfg, 0);
    start(e);
    uint64_t done = submit(e, WIN, CUZK_PRIO_NORMAL, 1, "done-1");
    expect(e, done, CUZK_JOB_DONE);
    cuzk_engine_stop(e, 0);
    cuzk_job_request rq = {0};
    rq.circuit = WIN;
    rq.inputs = "{\"seed\": 1}";
    uint64_t q1 = 0;
    CHECK(cuzk_engine_submit(e, &rq, &q1, NULL, err) == CUZK_ERR_CANCELED && !q1);
    cuzk_engine_destroy(e);
    e = mk(&cfg, 0); /* not started: jobs accepted, nothing runs */
    q1 = submit(e, WIN, CUZK_PRIO_NORMAL, 2, "q-1");
    uint64_t q2 = submit(e, WIN, CUZK_PRIO_HIGH, 3, "q-2");
    uint64_t q3 = submit(e, WIN, CUZK_PRIO_NORMAL, 4, NULL);
    CHECK(ms_lease(&m.base, q3, 1, NULL) == CUZK_OK);
    cuzk_engine_destroy(e);
    CHECK(m.r[q1 - 1].state == CUZK_STORE_QUEUED && m.r[q3 - 1].state == CUZK_STORE_LEASED);

    /* Second life: the three come back and finish once; the done one is
     * not proved again and its request_id still names it. */
    unsigned leases = m.leases;
    e = mk(&cfg, 0);
    size_t n = 0;
    CHECK_MSG(cuzk_engine_start(e, &n, err) == CUZK_OK, "%s", err);
    CHECK(n == 3);
    expect(e, q1, CUZK_JOB_DONE);
    expect(e, q2, CUZK_JOB_DONE);
    expect(e, q3, CUZK_JOB_DONE);
    CHECK(m.leases == leases + 3);
    int ex = 0;
    uint64_t again = 0;
    rq.request_id = "done-1";
    CHECK(cuzk_engine_submit(e, &rq, &again, &ex, err) == CUZK_OK && ex && again == done);
    cuzk_job_info info;
    CHECK(cuzk_engine_job(e, done, &info, err) == CUZK_OK && info.state == CUZK_JOB_DONE &&
          info.result_json && strstr(info.result_json, "\"proof\""));
    cuzk_job_info_free(&info);
    for (uint64_t id = 1; id <= m.n; id++)
        CHECK(m.r[id - 1].state == CUZK_STORE_DONE && m.r[id - 1].result);
    cuzk_engine_destroy(e);
    ms_free(&m);
}

/* The store thread: leases and ends are committed in groups through
 * cuzk_store.batch, in order (a lease before its job's end), and no job is
 * seen ended before its end is committed. The in-memory store gets a
 * batch whose first call is held at a gate (a slow disk) while the
 * prover is held too. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int hold, held;
    size_t calls, max_group, ops;
} sgate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0};

static cuzk_status ms_batch(cuzk_store *s, cuzk_store_op *ops, size_t n, char *err)
{
    pthread_mutex_lock(&sgate.mu);
    sgate.calls++;
    sgate.ops += n;
    if (n > sgate.max_group) sgate.max_group = n;
    if (sgate.hold) {
        sgate.held = 1;
        pthread_cond_broadcast(&sgate.cv);
        while (sgate.hold) pthread_cond_wait(&sgate.cv, &sgate.mu);
    }
    pthread_mutex_unlock(&sgate.mu);
    for (size_t i = 0; i < n; i++) {
        cuzk_store_op *o = &ops[i];
        o->err[0] = 0;
        if (o->kind == CUZK_STORE_OP_ENQUEUE)
            o->st = ms_enqueue(s, o->rec, o->ms, &o->id, &o->existing, o->err);
        else if (o->kind == CUZK_STORE_OP_LEASE) o->st = ms_lease(s, o->id, o->ms, o->err);
        else if (o->kind == CUZK_STORE_OP_COMPLETE)
            o->st = ms_complete(s, o->id, o->data, o->len, o->ms, o->err);
        else
            o->st = ms_fail(s, o->id,
                            o->kind == CUZK_STORE_OP_CANCEL ? CUZK_STORE_CANCELED
                                                            : CUZK_STORE_FAILED,
                            o->data ? o->data : "", o->ms, o->err);
        if (o->st != CUZK_OK) snprintf(o->err, sizeof o->err, "refused");
    }
    (void)err;
    return CUZK_OK;
}

typedef struct {
    cuzk_engine *e;
    uint64_t id;
    cuzk_status st;
} canceler;

static void *cancel_main(void *arg)
{
    canceler *c = arg;
    c->st = cuzk_engine_cancel(c->e, c->id, NULL);
    return NULL;
}

static void test_store_thread(void)
{
    char err[CUZK_ERRMSG_LEN];
    static mstore m;
    mstore_init(&m);
    m.base.batch = ms_batch;
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0, {0}};
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.store = &m.base;
    cfg.fault = on_fault;
    cfg.fault_ctx = &g;
    cfg.max_batch_size = 0;
    cuzk_engine *e = mk(&cfg, 0);
    uint64_t id[6];
    for (int i = 0; i < 6; i++) id[i] = submit(e, WIN, CUZK_PRIO_NORMAL, 10 + (uint64_t)i, NULL);
    g.hold = id[0];
    sgate.hold = 1;
    start(e);
    gate_wait_held(&g); /* job 1 in the prover, its lease at the store */
    pthread_mutex_lock(&sgate.mu);
    while (!sgate.held) pthread_cond_wait(&sgate.cv, &sgate.mu);
    pthread_mutex_unlock(&sgate.mu);
    /* cuzk_engine_cancel of a queued job returns once its end is
     * committed: from threads, since the store is held. */
    pthread_t th[5];
    canceler cx[5];
    for (int i = 1; i < 6; i++) {
        cx[i - 1] = (canceler){e, id[i], CUZK_ERR_IO};
        CHECK(pthread_create(&th[i - 1], NULL, cancel_main, &cx[i - 1]) == 0);
    }
    /* Jobs 4-6 (queued: no partition taken) are marked when none of their
     * partitions counts as queued any more. */
    for (int k = 0;; k++) {
        cuzk_engine_status st;
        CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK);
        size_t left = st.partitions_queued;
        cuzk_engine_status_free(&st);
        if (!left) break;
        CHECK_MSG(k < 120000, "cancels not applied");
        if (k >= 120000) break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    gate_release(&g); /* job 1 proves; the others' ends wait for the store */
    cuzk_job_info info;
    /* 1 s for job 1's proof and the cancels' ends to reach the held store
     * (300 ms gave a largest group of 3 once under ASan on 2 busy cores). */
    CHECK(cuzk_engine_wait(e, id[0], 1000, &info, err) == CUZK_OK);
    CHECK_MSG(info.state == CUZK_JOB_RUNNING, "job 1 is %s before its end is committed",
              cuzk_job_state_name(info.state));
    cuzk_job_info_free(&info);
    for (int i = 1; i < 6; i++) {
        CHECK(cuzk_engine_job(e, id[i], &info, err) == CUZK_OK);
        CHECK_MSG(info.state < CUZK_JOB_DONE, "job %d is %s before its end is committed", i + 1,
                  cuzk_job_state_name(info.state));
        cuzk_job_info_free(&info);
        CHECK(m.r[id[i] - 1].state <= CUZK_STORE_LEASED);
    }
    pthread_mutex_lock(&sgate.mu);
    sgate.hold = 0;
    pthread_cond_broadcast(&sgate.cv);
    pthread_mutex_unlock(&sgate.mu);
    for (int i = 0; i < 5; i++) {
        pthread_join(th[i], NULL);
        CHECK(cx[i].st == CUZK_OK);
    }
    expect(e, id[0], CUZK_JOB_DONE);
    for (int i = 1; i < 6; i++) expect(e, id[i], CUZK_JOB_CANCELED);
    /* Committed as answered: job 1 leased then completed with its result. */
    CHECK(m.r[id[0] - 1].state == CUZK_STORE_DONE && m.r[id[0] - 1].result &&
          m.r[id[0] - 1].attempts == 1);
    for (int i = 1; i < 6; i++)
        CHECK(m.r[id[i] - 1].state == CUZK_STORE_CANCELED &&
              !strcmp(m.r[id[i] - 1].error, "canceled"));
    /* A submit while the store thread runs: its row goes through batch
     * (committed before submit returns), and a second submit of its
     * request_id is that job. */
    size_t ops_before = sgate.ops;
    uint64_t late = submit(e, WIN, CUZK_PRIO_NORMAL, 20, "late");
    CHECK(late == 7 && m.n == 7 && sgate.ops > ops_before &&
          m.r[late - 1].state <= CUZK_STORE_LEASED && !strcmp(m.r[late - 1].request_id, "late"));
    cuzk_job_request rq = {0};
    rq.circuit = WIN;
    rq.inputs = "{\"seed\": 21}";
    rq.request_id = "late";
    uint64_t again = 0;
    int ex = 0;
    CHECK(cuzk_engine_submit(e, &rq, &again, &ex, err) == CUZK_OK && ex && again == late);
    expect(e, late, CUZK_JOB_DONE);
    /* The store thread wakes a job's waiters before it counts the group
     * it committed: wait (up to 10 s) for its counters to reach the
     * batches seen here. */
    cuzk_engine_status st;
    for (int k = 0;; k++) {
        CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK);
        pthread_mutex_lock(&sgate.mu);
        size_t ops = sgate.ops;
        pthread_mutex_unlock(&sgate.mu);
        if (st.store_ops >= ops || k >= 10000) break;
        cuzk_engine_status_free(&st);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    /* 6 ends and the leases of the jobs a witness worker took (job 1, and
     * up to the ready capacity more), grouped: the held first call made
     * the rest gather. */
    CHECK_MSG(st.store_ops == sgate.ops && st.store_commits == sgate.calls &&
                  st.store_ops >= 10 && st.store_commits < st.store_ops && sgate.max_group >= 4,
              "store: %llu ops in %llu commits, largest %zu", (unsigned long long)st.store_ops,
              (unsigned long long)st.store_commits, sgate.max_group);
    CHECK(st.threads_other == 3);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
    ms_free(&m);
}

/* --------------------------------------------------- prover affinity -- */

/* Holds the first attempts of two jobs until released, and records the
 * device of every job's first attempt. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t hold[2];
    int held[2], released;
    unsigned dev[16]; /* by job id: device + 1 of attempt 1 (0: none yet) */
} affin;

static cuzk_fault on_affin(void *ctx, uint64_t job, unsigned part, unsigned attempt,
                           unsigned device)
{
    (void)part;
    affin *a = ctx;
    pthread_mutex_lock(&a->mu);
    if (job < 16 && attempt == 1) a->dev[job] = device + 1;
    for (int k = 0; k < 2; k++)
        if (job == a->hold[k]) {
            a->held[k] = 1;
            pthread_cond_broadcast(&a->cv);
            while (!a->released) pthread_cond_wait(&a->cv, &a->mu);
        }
    pthread_mutex_unlock(&a->mu);
    return CUZK_FAULT_NONE;
}

static uint64_t affin_hold(affin *a, int k, cuzk_engine *e, const char *circ, uint64_t seed)
{
    pthread_mutex_lock(&a->mu);
    a->hold[k] = submit(e, circ, CUZK_PRIO_NORMAL, seed, NULL);
    while (!a->held[k]) pthread_cond_wait(&a->cv, &a->mu);
    pthread_mutex_unlock(&a->mu);
    return a->hold[k];
}

/* Two devices, two keys, each resident on one device: with both ready, a
 * device takes the one whose key it holds even when the other is older. */
static void test_affinity(void)
{
    char err[CUZK_ERRMSG_LEN];
    affin a = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, {0}, 0, {0}};
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.n_devices = 2;
    cfg.max_batch_size = 0;
    cfg.fault = on_affin;
    cfg.fault_ctx = &a;
    cuzk_engine *e = mk(&cfg, 1);
    start(e);
    /* WIN's job held on one device, then w2's on the other (the only idle
     * prover): each device has one key's workspace. */
    uint64_t a0 = affin_hold(&a, 0, e, WIN, 1);
    uint64_t b0 = affin_hold(&a, 1, e, "w2", 2);
    CHECK(a.dev[a0] && a.dev[b0] && a.dev[a0] != a.dev[b0]);
    /* w2's job first, then WIN's: both wait in the ready queue. */
    uint64_t b1 = submit(e, "w2", CUZK_PRIO_NORMAL, 3, NULL);
    uint64_t a1 = submit(e, WIN, CUZK_PRIO_NORMAL, 4, NULL);
    for (;;) {
        cuzk_engine_status st;
        CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK);
        size_t ready = st.partitions_ready;
        cuzk_engine_status_free(&st);
        if (ready == 2) break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&a.mu);
    a.released = 1;
    pthread_cond_broadcast(&a.cv);
    pthread_mutex_unlock(&a.mu);
    expect(e, a1, CUZK_JOB_DONE);
    expect(e, b1, CUZK_JOB_DONE);
    CHECK_MSG(a.dev[a1] == a.dev[a0] && a.dev[b1] == a.dev[b0],
              "WIN on devices %u, %u; w2 on %u, %u", a.dev[a0] - 1, a.dev[a1] - 1,
              a.dev[b0] - 1, a.dev[b1] - 1);
    cuzk_circuit_desc d1, d2;
    CHECK(cuzk_engine_circuit(e, WIN, &d1, err) == CUZK_OK &&
          cuzk_engine_circuit(e, "w2", &d2, err) == CUZK_OK);
    CHECK(d1.resident_devices == 1u << (a.dev[a0] - 1) &&
          d2.resident_devices == 1u << (a.dev[b0] - 1));
    cuzk_engine_destroy(e);
}

/* ----------------------------------------------------- CPU fallback -- */

/* A "gpu" backend registered at run time, as the real one is: it proves by
 * delegating to the CPU backend, except that its first stage fails as a
 * CUDA error while gpu_broken is set. */
static atomic_int gpu_broken;

static cuzk_status gpu_create(void **bws, const cuzk_groth16_pk *pk, const cuzk_config *cfg,
                              char *err)
{
    return cuzk_backend_cpu()->ws_create(bws, pk, cfg, err);
}
static void gpu_destroy(void *b) { cuzk_backend_cpu()->ws_destroy(b); }
static uint64_t gpu_bytes(const void *b) { return cuzk_backend_cpu()->ws_bytes(b); }
static cuzk_status gpu_rows(void *b, const cuzk_stage_in *in, char *err)
{
    if (atomic_load(&gpu_broken)) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "gpu: injected failure");
        return CUZK_ERR_CUDA;
    }
    return cuzk_backend_cpu()->eval_rows(b, in, err);
}
static cuzk_status gpu_h(void *b, const cuzk_stage_in *in, char *err)
{
    return cuzk_backend_cpu()->h_poly(b, in, err);
}
static cuzk_status gpu_a(void *b, const cuzk_stage_in *in, cuzk_g1_jac *o, char *err)
{
    return cuzk_backend_cpu()->msm_a(b, in, o, err);
}
static cuzk_status gpu_b2(void *b, const cuzk_stage_in *in, cuzk_g2_jac *o, char *err)
{
    return cuzk_backend_cpu()->msm_b2(b, in, o, err);
}
static cuzk_status gpu_c(void *b, const cuzk_stage_in *in, cuzk_g1_jac *o, char *err)
{
    return cuzk_backend_cpu()->msm_c(b, in, o, err);
}
static const cuzk_prover_backend FAKE_GPU = {"gpu",   gpu_create, gpu_destroy, gpu_bytes, gpu_rows,
                                             gpu_h,   gpu_a,      gpu_b2,      gpu_c,
                                             0};

/* Job id's one partition was proved on backend be at attempt `attempts`. */
static void expect_proved_on(cuzk_engine *e, uint64_t id, const char *be, unsigned attempts)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_job_result *r = NULL;
    CHECK_MSG(cuzk_engine_result(e, id, &r, err) == CUZK_OK && !strcmp(r->parts[0].backend, be) &&
                  r->parts[0].attempts == attempts,
              "job %llu: wanted %s at attempt %u", (unsigned long long)id, be, attempts);
    cuzk_job_result_free(r);
}

/* Registers "gpu" for the rest of the process: runs last. */
static void test_cpu_fallback(void)
{
    char err[CUZK_ERRMSG_LEN];
    CHECK(cuzk_backend_register(&FAKE_GPU) == CUZK_OK);
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.backend = "auto"; /* picks the registered "gpu" */
    cfg.n_devices = 2;
    cuzk_engine *e = mk(&cfg, 0);
    start(e);
    /* A working GPU proves. */
    uint64_t id = submit(e, WIN, CUZK_PRIO_NORMAL, 1, NULL);
    expect(e, id, CUZK_JOB_DONE);
    expect_proved_on(e, id, "gpu", 1);
    {   /* status names the backend in use, not "auto" */
        cuzk_engine_status st0;
        unsigned dv = 0;
        CHECK(cuzk_engine_status_get(e, &st0) == CUZK_OK);
        for (unsigned d = 0; d < st0.n_devices; d++) dv += !strcmp(st0.devices[d].backend, "gpu");
        CHECK(dv >= 1);
        cuzk_engine_status_free(&st0);
    }
    /* A broken one: both devices fail, the third and last attempt runs on
     * the CPU backend and the job is DONE. */
    atomic_store(&gpu_broken, 1);
    id = submit(e, WIN, CUZK_PRIO_NORMAL, 2, NULL);
    expect(e, id, CUZK_JOB_DONE);
    expect_proved_on(e, id, "cpu", 3);
    static cuzk_event ev[4096];
    size_t n = cuzk_engine_timeline(e, 0, ev, 4096, NULL), retries = 0, to_cpu = 0;
    for (size_t i = 0; i < n; i++)
        if (ev[i].kind == CUZK_EV_RETRY && ev[i].job == id) {
            retries++;
            to_cpu += ev[i].value == 1 && ev[i].attempt == 2;
        }
    CHECK(retries == 2 && to_cpu == 1);
    /* The timeline marks the attempt on the CPU lane (and only it), in
     * the event and in its log line, so the waterfall keeps it off the
     * device's lane. */
    size_t starts = 0, on_lane = 0;
    for (size_t i = 0; i < n; i++)
        if (ev[i].kind == CUZK_EV_PROVE_START && ev[i].job == id) {
            char line[256];
            starts++;
            on_lane += ev[i].value == 1 && ev[i].attempt == 3;
            CHECK(cuzk_event_format(&ev[i], line, sizeof line) > 0 &&
                  (strstr(line, " lane=cpu ") != NULL) == (ev[i].value == 1));
        }
    CHECK_MSG(starts == 3 && on_lane == 1, "prove_start events: %zu, on the CPU lane: %zu", starts,
              on_lane);
    /* The CPU workspace is kept for the next fallback, and given back to
     * the host pool with the key's other buffers on evict. */
    id = submit(e, WIN, CUZK_PRIO_NORMAL, 3, NULL);
    expect(e, id, CUZK_JOB_DONE);
    cuzk_engine_status st;
    CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK && st.host_reserved > 0 &&
          st.retries == 4 && st.partitions_proved == 3);
    cuzk_engine_status_free(&st);
    CHECK(cuzk_engine_evict(e, WIN, err) == CUZK_OK);
    CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK && st.host_reserved == 0);
    cuzk_engine_status_free(&st);
    cuzk_engine_destroy(e);
    /* One attempt in all: no fallback, the job fails with the GPU's
     * error. */
    cuzk_engine_config_default(&cfg);
    cfg.max_attempts = 1;
    e = mk(&cfg, 0);
    start(e);
    id = submit(e, WIN, CUZK_PRIO_NORMAL, 4, NULL);
    expect(e, id, CUZK_JOB_FAILED);
    cuzk_job_info info;
    CHECK(cuzk_engine_job(e, id, &info, NULL) == CUZK_OK && info.status == CUZK_ERR_CUDA);
    cuzk_engine_destroy(e);
    atomic_store(&gpu_broken, 0);
}

/* cuzk-bench waterfall parses the timeline with its own copy of the names
 * (the client-only build has no engine): the same as the engine's. */
static void test_wire_names(void)
{
    for (int k = 0; k <= CUZK_EV_MEM; k++)
        CHECK_MSG(!strcmp(wf_kind_names[k], cuzk_event_kind_name((cuzk_event_kind)k)), "kind %d", k);
    CHECK(!strcmp(cuzk_event_kind_name((cuzk_event_kind)(CUZK_EV_MEM + 1)), "?"));
    for (int s = CUZK_STAGE_WITNESS; s <= CUZK_STAGE_DONE; s++)
        CHECK_MSG(!strcmp(wf_stage_names[s], cuzk_prove_stage_name((cuzk_prove_stage)s)),
                  "stage %d", s);
    for (int t = CUZK_TIER_COLD; t <= CUZK_TIER_RESIDENT; t++)
        CHECK_MSG(!strcmp(wf_tier_names[t], cuzk_key_tier_name((cuzk_key_tier)t)), "tier %d", t);
}

/* The CPU fallback lane (after test_cpu_fallback: "gpu" is registered).
 * Job x fails twice on the one device; its third attempt goes to the CPU
 * lane and is held there while job y proves on the device's lane, then
 * released. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t x;
    int held, released;
} lane_gate;

static cuzk_fault lane_fault(void *ctx, uint64_t job, unsigned part, unsigned attempt,
                             unsigned device)
{
    (void)part;
    (void)device;
    lane_gate *g = ctx;
    if (job != g->x) return CUZK_FAULT_NONE;
    if (attempt < 3) return CUZK_FAULT_ERROR;
    pthread_mutex_lock(&g->mu);
    g->held = 1;
    pthread_cond_broadcast(&g->cv);
    while (!g->released) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    return CUZK_FAULT_NONE;
}

static void test_cpu_lane(void)
{
    CHECK(cuzk_backend_find("gpu") == &FAKE_GPU);
    lane_gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.backend = "gpu";
    cfg.fault = lane_fault;
    cfg.fault_ctx = &g;
    cuzk_engine *e = mk(&cfg, 0);
    cuzk_engine_status st;
    CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK);
    for (size_t i = 0; i < st.n_lanes; i++) CHECK(!st.lanes[i].cpu_fallback); /* not yet */
    cuzk_engine_status_free(&st);
    g.x = submit(e, WIN, CUZK_PRIO_NORMAL, 1, NULL);
    start(e);
    pthread_mutex_lock(&g.mu);
    while (!g.held) pthread_cond_wait(&g.cv, &g.mu);
    pthread_mutex_unlock(&g.mu);
    int seen = 0;
    CHECK(cuzk_engine_status_get(e, &st) == CUZK_OK);
    for (size_t i = 0; i < st.n_lanes; i++)
        seen += st.lanes[i].cpu_fallback && st.lanes[i].job == g.x &&
                st.lanes[i].attempt == 3 && st.lanes[i].device == 0;
    cuzk_engine_status_free(&st);
    CHECK_MSG(seen == 1, "the CPU lane holds job %llu's last attempt", (unsigned long long)g.x);
    /* The device's lane is free meanwhile. */
    uint64_t y = submit(e, WIN, CUZK_PRIO_NORMAL, 2, NULL);
    expect(e, y, CUZK_JOB_DONE);
    expect_proved_on(e, y, "gpu", 1);
    pthread_mutex_lock(&g.mu);
    g.released = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    expect(e, g.x, CUZK_JOB_DONE);
    expect_proved_on(e, g.x, "cpu", 3);
    cuzk_engine_destroy(e);
}

int main(void)
{
    test_seed("test_engine");
    test_wire_names();
    test_basic();
    test_bad_config();
    test_key_check();
    test_async_register();
    test_priority();
    test_critical_witness();
    test_batch();
    test_cancel();
    test_lanes();
    test_retry();
    test_budget();
    test_restart();
    test_store_thread();
    test_affinity();
    test_cpu_fallback();
    test_cpu_lane();
    return test_done("test_engine");
}
