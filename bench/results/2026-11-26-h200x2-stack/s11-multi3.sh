#!/bin/bash
# Session 11: the 10^4-frame stack as 10 files of 1000 frames (as an Eiger writes its data files):
# integrate-azimuthal on 1 and 2 devices; and the one file again for the same machine.
B=/tmp/k/gpu-bundle
rm -rf /tmp/k; mkdir -p /tmp/k && tar xJf .gpu/bundle.tar.xz -C /tmp/k
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json LD_LIBRARY_PATH=$B/lib
export HDF5_PLUGIN_PATH=$B/plugins
nvidia-smi --query-gpu=index,name --format=csv > $OUT/machine.txt
cd /tmp
KILN_BENCH_FILE_PER=1000 KILN_BENCH_FILE_FRAMES=10000 KILN_BENCH_KEEP_STACK=1 $B/bin/kiln-bench --device 0 --id az-file --repeat 3 2>&1 | grep -E "^az" > $OUT/az-file-parts.txt
parts=$(ls /tmp/kiln_bench_stack_2162x2068_10000_part*.h5 | sort -V)
geo="--pixel 75e-6 --dist 0.1 --poni1 0.0826965 --poni2 0.074448 --wavelength 1e-10 --bins 1000 --solid-angle --polarization 0.99 --dummy 4294967295 --batch 32 --csr-cache /tmp/csr"
for rep in 1 2; do for d in 0 0,1; do for r in 4 8 16; do
  $B/bin/kiln --json integrate-azimuthal $parts $geo --devices $d --readers $r -q -o /tmp/p_$d.npy 2>&1 | python3 -c "import json,sys; j=json.load(sys.stdin); print('10 files, devices $d readers $r:', round(j['frames_per_second']), 'frames/s')" >> $OUT/rates.txt
done; done; done
cmp /tmp/p_0.npy /tmp/p_0,1.npy && echo "10 files: devices 0 and 0,1 identical" >> $OUT/rates.txt
cat $OUT/az-file-parts.txt $OUT/rates.txt
