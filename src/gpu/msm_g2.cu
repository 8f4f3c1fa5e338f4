/* cuzk — the G2 MSM: msm_impl.cuh's kernels and launch sequences for G2
 * only (G1 and G2 compile as separate units; see msm.cu). */
#include "gpu/msm_impl.cuh"

const msm_group_ops msm_g2_ops = MSM_GROUP_OPS(HostG2);
