/* cuzk — the G1 MSM: msm_impl.cuh's kernels and launch sequences for G1
 * only (G1 and G2 compile as separate units; see msm.cu). */
/* Every Fp product and squaring of this unit's kernels is a real call
 * (ec.cuh, EC_FP_CALL): one copy each instead of tens inlined. On the H200
 * (docs/perf.md, "Calls in the other G1 kernels") the XYZZ accumulation
 * -6%, the reduction -10 to -17%, the batch-affine accumulation (calls
 * already) +0.3-0.8%: every MSM's device total lower. */
#define EC_FP_CALL 1
#include "gpu/msm_impl.cuh"

const msm_group_ops msm_g1_ops = MSM_GROUP_OPS(HostG1);
