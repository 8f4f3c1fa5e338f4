/* The names the engine's timeline uses on the wire: engine.h's
 * cuzk_event_kind_name and cuzk_key_tier_name, prove.h's
 * cuzk_prove_stage_name. cuzk-bench waterfall keeps its own copy because
 * the client-only build links nothing of the prover; tests/test_engine.c
 * checks that the copy equals the engine's names. */
#ifndef CUZK_BENCH_WF_NAMES_H
#define CUZK_BENCH_WF_NAMES_H

#include <cuzk/engine.h>
#include <cuzk/prove.h>

/* Indexed by cuzk_event_kind. */
static const char *const wf_kind_names[] = {
    "queued",   "batch", "witness_start", "witness_end", "prove_start",
    "stage",    "prove_end", "verified",  "retry",       "done",
    "failed",   "canceled",  "key",       "mem"};
_Static_assert(sizeof wf_kind_names / sizeof wf_kind_names[0] == CUZK_EV_MEM + 1,
               "a name for every timeline event kind");

/* Indexed by cuzk_prove_stage, CUZK_STAGE_WITNESS..CUZK_STAGE_DONE. */
static const char *const wf_stage_names[] = {"witness",    "a, b, c",    "H (NTTs)",
                                             "MSM A (G1)", "MSM B (G2)", "MSM C (G1)",
                                             "blinding",   "self-check", "done"};
_Static_assert(sizeof wf_stage_names / sizeof wf_stage_names[0] == CUZK_STAGE_DONE + 1,
               "a name for every prove stage");

/* Indexed by cuzk_key_tier. */
static const char *const wf_tier_names[] = {"cold", "mapped", "pinned", "resident"};
_Static_assert(sizeof wf_tier_names / sizeof wf_tier_names[0] == CUZK_TIER_RESIDENT + 1,
               "a name for every key tier");

#endif /* CUZK_BENCH_WF_NAMES_H */
