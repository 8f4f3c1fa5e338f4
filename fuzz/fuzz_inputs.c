/* libFuzzer target: a built-in circuit's inputs JSON (cuzk_circuit_witness,
 * include/cuzk/circuits.h), the file a job hands the daemon.
 *
 * The first byte picks the circuit (every id, at its smallest size); the
 * rest is the JSON. Either the call fails with a message, or the witness it
 * built satisfies the circuit's recorded R1CS (recorded once per circuit):
 * whatever the JSON says, it must not yield an unsatisfying witness.
 * Build: fuzz/run.sh (target "inputs"; seeds are written there). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/circuits.h>
#include <cuzk/r1cs.h>

#define MAX_IDS 8

static struct {
    cuzk_circuit *c;
    cuzk_r1cs r; /* the recorded system, as cuzk_r1cs_check takes it */
    cuzk_cs cs;
} g[MAX_IDS];
static unsigned n_ids;

static void init_once(void)
{
    char err[CUZK_ERRMSG_LEN];
    n_ids = cuzk_circuit_count() < MAX_IDS ? cuzk_circuit_count() : MAX_IDS;
    for (unsigned i = 0; i < n_ids; i++) {
        cuzk_cs_shape sh;
        /* size 10: the smallest each id allows (porep-32g rounds it up). */
        if (cuzk_circuit_open(&g[i].c, cuzk_circuit_id(i), 10, err) != CUZK_OK ||
            cuzk_circuit_record(g[i].c, &g[i].r.m, &sh, err) != CUZK_OK) {
            fprintf(stderr, "fuzz_inputs: %s: %s\n", cuzk_circuit_id(i), err);
            abort();
        }
        g[i].r.n_wires = sh.n_inputs + sh.n_aux;
        g[i].r.n_pub_in = g[i].r.n_public = sh.n_inputs - 1;
        g[i].r.n_constraints = (uint32_t)g[i].r.m.n_rows;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!n_ids) init_once();
    if (size < 1) return 0;
    unsigned id = data[0] % n_ids;
    char err[CUZK_ERRMSG_LEN];
    err[0] = 0;
    cuzk_status s = cuzk_circuit_witness(g[id].c, (const char *)data + 1, size - 1, &g[id].cs, 1,
                                         err);
    if (s != CUZK_OK) {
        if (!err[0]) abort(); /* every failure names its reason */
        /* the cs must still be usable (or freeable) for the next input */
        return 0;
    }
    size_t n = g[id].r.n_wires;
    cuzk_fr *w = malloc(n * sizeof *w);
    if (!w) return 0;
    uint64_t bad = 0;
    if (cuzk_cs_witness(&g[id].cs, w, n) != CUZK_OK ||
        cuzk_r1cs_check(&g[id].r, w, n, &bad, err) != CUZK_OK) {
        fprintf(stderr, "fuzz_inputs: %s: accepted inputs give a bad witness (constraint "
                "%llu): %s\n", cuzk_circuit_id(id), (unsigned long long)bad, err);
        abort();
    }
    free(w);
    return 0;
}
