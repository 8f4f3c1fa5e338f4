/* cuzk — what the CUDA sources of the backend share: the context, and the
 * checked-call macro. Internal; host code outside src/gpu uses cuzk/gpu.h. */
#ifndef CUZK_GPU_INTERNAL_CUH
#define CUZK_GPU_INTERNAL_CUH

#include <cuda_runtime.h>

#include <cuzk/gpu.h>

struct cuzk_gpu_ctx {
    int device;
    cudaStream_t stream;
    cudaEvent_t ev_start, ev_stop; /* timing, on `stream` */
    void *pool;                    /* device memory, pool_bytes, 256-aligned */
    size_t pool_bytes;
};

/* Records the failure (text for cuzk_gpu_last_error) and maps it to a
 * status: no device / no driver -> CUZK_ERR_NO_DEVICE, out of device memory
 * -> CUZK_ERR_NO_MEMORY, anything else -> CUZK_ERR_CUDA. Also clears CUDA's
 * non-sticky last error. */
cuzk_status cuzk_gpu_fail(cudaError_t e, const char *what, const char *file, int line);

/* Evaluates a CUDA runtime call; on failure returns from the enclosing
 * function with the mapped status. */
#define CUZK_CUDA_TRY(call)                                                    \
    do {                                                                       \
        cudaError_t cuzk_e_ = (call);                                          \
        if (cuzk_e_ != cudaSuccess)                                            \
            return cuzk_gpu_fail(cuzk_e_, #call, __FILE__, __LINE__);          \
    } while (0)

/* After a kernel launch: the launch error, if any. */
#define CUZK_CUDA_TRY_LAUNCH() CUZK_CUDA_TRY(cudaGetLastError())

#endif /* CUZK_GPU_INTERNAL_CUH */
