/* cuzk — the G1 MSM: msm_impl.cuh's kernels and launch sequences for G1
 * only (G1 and G2 compile as separate units; see msm.cu). */
#include "gpu/msm_impl.cuh"

const msm_group_ops msm_g1_ops = MSM_GROUP_OPS(HostG1);
