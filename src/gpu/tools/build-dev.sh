#!/bin/bash
# Builds the GPU tests (field, FP64 field, NTT, MSM) and cuzk-bench into
# build-dev/ (ignored by git, carried to the GPU machine by the device tool)
# against an existing libcuzk.a ($1), with the same flags as
# src/gpu/CMakeLists.txt.
set -e
cd "$(dirname "$0")/../../.."
LIB=${1:-build-gpu/libcuzk.a}
O=build-dev/obj; mkdir -p $O
for f in src/gpu/*.cu; do
  nvcc -O3 -DNDEBUG -arch=sm_90 -std=c++17 -Werror all-warnings -Xcompiler=-Wall,-Wextra,-Werror -Iinclude -Isrc -c $f -o $O/$(basename $f .cu).o &
done
wait
rm -f build-dev/libcuzk_gpu.a; ar rcs build-dev/libcuzk_gpu.a $O/*.o
CF="-O3 -Wall -Wextra -Werror -std=gnu11 -Iinclude -Isrc -Itests -Ibench"
L="build-dev/libcuzk_gpu.a $LIB -L/usr/local/cuda/lib64 -lcudart_static -lstdc++ -lm -lpthread -ldl -lrt"
gcc $CF tests/gpu/test_gpu_ff.c $L -o build-dev/test_gpu_ff
gcc $CF tests/gpu/test_gpu_ff64.c $L -o build-dev/test_gpu_ff64
gcc $CF tests/gpu/test_gpu_ntt.c $L -o build-dev/test_gpu_ntt
gcc $CF tests/gpu/test_gpu_msm.c $L -o build-dev/test_gpu_msm
gcc $CF -DCUZK_HAVE_GPU=1 bench/*.c $L -o build-dev/cuzk-bench
