#!/bin/bash
# Session 11: integrate_stack on two GPUs. The [stack] tests under validation on this machine, then a
# 10^4-frame compressed Eiger 4M stack integrated with --devices 0 and --devices 0,1 (outputs compared).
B=/tmp/k/gpu-bundle
rm -rf /tmp/k; mkdir -p /tmp/k && tar xJf .gpu/bundle.tar.xz -C /tmp/k
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json LD_LIBRARY_PATH=$B/lib
export HDF5_PLUGIN_PATH=$B/plugins
nvidia-smi --query-gpu=index,name,driver_version --format=csv > $OUT/gpu.txt; date -u >> $OUT/gpu.txt
$B/bin/kiln devices > $OUT/devices.txt 2>&1
( export VK_LAYER_PATH=$B/layers KILN_TEST_DATA=$B/data KILN_CLI=$B/bin/kiln \
    GLIBC_TUNABLES=glibc.rtld.optional_static_tls=0x400000 KILN_VALIDATION=1 KILN_CACHE_DIR=$(mktemp -d)
  timeout 200 $B/bin/kiln_tests "[stack]" > $OUT/stack-tests.txt 2>&1; echo "exit $?" >> $OUT/stack-tests.txt )
tail -3 $OUT/stack-tests.txt
cd /tmp
start=$(date +%s)
KILN_BENCH_FILE_FRAMES=10000 KILN_BENCH_KEEP_STACK=1 $B/bin/kiln-bench --filter az-file --repeat 1 > $OUT/az-file.txt 2>&1
stack=/tmp/kiln_bench_stack_2162x2068_10000.h5
ls -la $stack >> $OUT/az-file.txt; echo "made in $(( $(date +%s) - start )) s" >> $OUT/az-file.txt
cat $stack > /dev/null
geo="--pixel 75e-6 --dist 0.1 --poni1 0.0826965 --poni2 0.074448 --wavelength 1e-10 --bins 1000 --solid-angle --polarization 0.99 --dummy 4294967295 --batch 32"
for r in 1 2; do
  for d in 0 0,1 1; do
    $B/bin/kiln --json integrate-azimuthal $stack $geo --devices $d -q -o /tmp/p_$d.npy >> $OUT/runs.txt 2>&1
    echo "  ^ devices $d run $r" >> $OUT/runs.txt
  done
  $B/bin/kiln --json integrate-azimuthal $stack $geo --devices 0,1 --readers 14 -q -o /tmp/p_r14.npy >> $OUT/runs.txt 2>&1
  echo "  ^ devices 0,1 readers 14 run $r" >> $OUT/runs.txt
done
cmp /tmp/p_0.npy /tmp/p_0,1.npy && echo "0 and 0,1: identical" >> $OUT/runs.txt
cmp /tmp/p_0.npy /tmp/p_1.npy && echo "0 and 1: identical" >> $OUT/runs.txt
cat $OUT/runs.txt
