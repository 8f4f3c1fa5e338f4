/* Start of every GPU test: only when no CUDA device is present (a device
 * count of 0: no device, or no driver) say "skipped: no GPU" and return 77
 * (ctest's SKIP_RETURN_CODE), never a silent pass; any other CUDA failure on
 * a machine with a GPU fails the test (returns 1). Otherwise name the
 * device and seed the generator. */
#ifndef CUZK_GPU_TEST_H
#define CUZK_GPU_TEST_H

#include <stdio.h>

#include <cuzk/gpu.h>

#include "gpu/gpu_testing.h"
#include "test_util.h"

/* Returns 0 when a device is present, 77 when none is, 1 on a CUDA error. */
static inline int gpu_test_start(const char *name)
{
    /* Line by line, so that a run cut by a device call's time limit keeps
     * what it printed (session 12 lost a whole test_gpu_prove log so). */
    setvbuf(stdout, NULL, _IOLBF, 0);
    char err[CUZK_ERRMSG_LEN];
    int count = 0;
    cuzk_status st = cuzk_gpu_device_count(&count, err);
    if (st != CUZK_OK) {
        printf("%s: FAIL: CUDA error on device query: %s\n", name, err);
        return 1;
    }
    if (count == 0) {
        printf("%s: skipped: no GPU\n", name);
        return 77;
    }
    cuzk_gpu_device_info info;
    if (cuzk_gpu_get_device_info(&info, 0, err) != CUZK_OK) {
        printf("%s: FAIL: %s\n", name, err);
        return 1;
    }
    printf("%s: device 0: %s, cc %d.%d, %d SMs\n", name, info.name, info.cc_major, info.cc_minor,
           info.sm_count);
    test_seed(name);
    return 0;
}

#endif /* CUZK_GPU_TEST_H */
