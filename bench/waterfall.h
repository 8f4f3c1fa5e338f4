/* cuzk-bench waterfall: the engine's timeline (engine.h, "timeline") as
 * read back from a file or a daemon. bench/wf_input.c reads and writes it;
 * bench/waterfall.c models, analyses and draws it. */
#ifndef CUZK_BENCH_WATERFALL_H
#define CUZK_BENCH_WATERFALL_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/engine.h>
#include <cuzk/status.h>

/* One event as read. Times are whole microseconds: t_us as the engine
 * gives it, durations (the event's ms) rounded to the microsecond, so a
 * timeline read from its JSON and from its log lines (ms with 3 decimals)
 * lays out the same. */
typedef struct {
    uint64_t seq;
    int64_t t_us;
    cuzk_event_kind kind;
    uint64_t job;
    unsigned partition; /* CUZK_EV_ALL_PARTITIONS: the job (JSON null) */
    unsigned device, attempt;
    int stage;          /* CUZK_EV_STAGE: a cuzk_prove_stage; else -1 */
    int64_t dur_us;     /* ms, in microseconds */
    uint64_t value, pinned_bytes, device_bytes;
    char status[64];    /* "" for CUZK_OK, else cuzk_strerror's text */
    char circuit[CUZK_ENGINE_ID_LEN]; /* "" for none */
} wf_event;

typedef struct {
    wf_event *ev; /* malloc'd, n of them, in seq order */
    size_t n, cap;
    uint64_t next; /* the cursor after the last event (0 unknown) */
} wf_timeline;

void wf_timeline_free(wf_timeline *tl);

/* Appends *ev (copied). CUZK_ERR_NO_MEMORY. */
cuzk_status wf_timeline_push(wf_timeline *tl, const wf_event *ev);

/* Reads a timeline file: the JSON GET /v1/timeline returns ({"events":
 * [...], "next": N}, or a bare array of events), or the daemon's log with
 * log_timeline on (the lines of cuzk_event_format, after any prefix; other
 * lines are skipped). Appends to tl (then sorts by seq). Errors name the
 * file and the line or event: unreadable (CUZK_ERR_IO), empty, malformed,
 * truncated or an unknown event kind (CUZK_ERR_BAD_ENCODING), no event in
 * it (CUZK_ERR_INVALID_ARGUMENT). msg: CUZK_ERRMSG_LEN bytes. */
cuzk_status wf_read_file(wf_timeline *tl, const char *path, char *msg);

/* Parses the JSON of GET /v1/timeline (text, len bytes) and appends its
 * events; *next = its "next" (0 when absent). what names the text in
 * messages. Errors as wf_read_file. */
cuzk_status wf_parse_json(wf_timeline *tl, const char *text, size_t len, const char *what,
                          uint64_t *next, char *msg);

/* Writes tl as the JSON of GET /v1/timeline ({"events": [...], "next": N},
 * one event a line) to path ("-": stdout). CUZK_ERR_IO. */
cuzk_status wf_write_json(const wf_timeline *tl, const char *path, char *msg);

/* The "stage" name of a JSON event or log line to a cuzk_prove_stage: -1
 * when it is none of cuzk_prove_stage_name's. */
int wf_stage_parse(const char *name);

#endif /* CUZK_BENCH_WATERFALL_H */
