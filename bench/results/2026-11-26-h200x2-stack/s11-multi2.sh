#!/bin/bash
# Session 11: what limits the two-GPU stack rate. GPU-side rates (az-lz4: compressed frames from pinned
# memory), the page-cache read rate, and integrate-azimuthal across reader counts on 1 and 2 devices.
B=/tmp/k/gpu-bundle
rm -rf /tmp/k; mkdir -p /tmp/k && tar xJf .gpu/bundle.tar.xz -C /tmp/k
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json LD_LIBRARY_PATH=$B/lib
export HDF5_PLUGIN_PATH=$B/plugins
nproc > $OUT/machine.txt; nvidia-smi --query-gpu=index,name --format=csv >> $OUT/machine.txt
cd /tmp
stack=/tmp/kiln_bench_stack_2162x2068_10000.h5
[ -f $stack ] || KILN_BENCH_FILE_FRAMES=10000 KILN_BENCH_KEEP_STACK=1 $B/bin/kiln-bench --filter az-file --repeat 1 > $OUT/az-file.txt 2>&1
for d in 0 1; do $B/bin/kiln-bench --device $d --id az-lz4 --id az-raw --repeat 3 2>&1 | grep -E "^az" >> $OUT/az-gpu.txt; done
s=$(date +%s.%N); cat $stack > /dev/null; e=$(date +%s.%N); echo "cat (1 thread, page cache): $(python3 -c "print(round(18.454/($e-$s),2))") GB/s" >> $OUT/read.txt
s=$(date +%s.%N); for k in 0 1 2 3 4 5 6 7; do dd if=$stack of=/dev/null bs=4M skip=$((k*550)) count=550 status=none & done; wait; e=$(date +%s.%N)
echo "8 x dd (page cache): $(python3 -c "print(round(18.454/($e-$s),2))") GB/s" >> $OUT/read.txt
geo="--pixel 75e-6 --dist 0.1 --poni1 0.0826965 --poni2 0.074448 --wavelength 1e-10 --bins 1000 --solid-angle --polarization 0.99 --dummy 4294967295 --batch 32 --csr-cache /tmp/csr"
for d in 0 0,1; do for r in 1 2 4 8 16 28; do
  $B/bin/kiln --json integrate-azimuthal $stack $geo --devices $d --readers $r -q -o /tmp/p.npy 2>&1 | python3 -c "import json,sys; j=json.load(sys.stdin); print('devices $d readers $r:', round(j['frames_per_second']), 'frames/s')" >> $OUT/rates.txt
done; done
cat $OUT/az-gpu.txt $OUT/read.txt $OUT/rates.txt
