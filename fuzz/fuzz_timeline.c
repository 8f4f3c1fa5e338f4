/* libFuzzer target: `cuzk-bench waterfall` on a timeline file (the JSON of
 * GET /v1/timeline, or the daemon's log_timeline lines): the parser
 * (bench/wf_input.c), then the model, the analysis and the text, SVG and
 * JSON outputs (bench/waterfall.c). The input is the file, given through a
 * memfd (/proc/self/fd/N). Checked: the command exits 0 (drawn) or 1 (bad
 * input, with a message), never anything else, and never crashes or leaks
 * (ASan). Its outputs go to /dev/null. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../bench/bench.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* The text waterfall and analysis: not the fuzzer's business. */
    if (!freopen("/dev/null", "w", stdout)) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("timeline", MFD_CLOEXEC);
    if (fd < 0) abort();
    if (size && write(fd, data, size) != (ssize_t)size) abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    char a0[] = "waterfall", w[] = "--width", wv[] = "60", svg[] = "--svg",
         dn[] = "/dev/null", js[] = "--json";
    char *drawn[] = {a0, path, w, wv, svg, dn, NULL};
    int rc = bench_waterfall(6, drawn);
    if (rc != 0 && rc != 1) abort();
    char *as_json[] = {a0, path, js, NULL};
    int rc2 = bench_waterfall(3, as_json);
    if (rc2 != rc) abort(); /* the same file is good or bad either way */
    close(fd);
    return 0;
}
