/* Start of every GPU test: without a usable CUDA device, say "skipped: no
 * GPU" and return 77 (ctest's SKIP_RETURN_CODE), never a silent pass;
 * otherwise name the device and seed the generator. */
#ifndef CUZK_GPU_TEST_H
#define CUZK_GPU_TEST_H

#include <stdio.h>

#include <cuzk/gpu.h>

#include "test_util.h"

/* Returns 0 when a device is present, else 77 after printing the reason. */
static inline int gpu_test_start(const char *name)
{
    int count = 0;
    cuzk_status st = cuzk_gpu_device_count(&count);
    if (st != CUZK_OK || count == 0) {
        printf("%s: skipped: no GPU (%s)\n", name,
               st != CUZK_OK ? cuzk_gpu_last_error() : "no CUDA device");
        return 77;
    }
    cuzk_gpu_device_info info;
    if (cuzk_gpu_get_device_info(0, &info) == CUZK_OK)
        printf("%s: device 0: %s, cc %d.%d, %d SMs\n", name, info.name, info.cc_major,
               info.cc_minor, info.sm_count);
    test_seed(name);
    return 0;
}

#endif /* CUZK_GPU_TEST_H */
