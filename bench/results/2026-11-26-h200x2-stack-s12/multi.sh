B=/tmp/k/gpu-bundle
rm -rf /tmp/k; mkdir -p /tmp/k && tar xJf .gpu/bundle.tar.xz -C /tmp/k
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json LD_LIBRARY_PATH=$B/lib HDF5_PLUGIN_PATH=$B/plugins
nproc; nvidia-smi --query-gpu=index,name --format=csv
cd /tmp
stack=/tmp/kiln_bench_stack_2162x2068_10000.h5
s=$(date +%s); KILN_BENCH_FILE_FRAMES=10000 KILN_BENCH_KEEP_STACK=1 timeout 200 $B/bin/kiln-bench --filter az-file --repeat 1 > $OUT/az-file.txt 2>&1; echo "make stack rc $? $(( $(date +%s) - s )) s"; ls -la /tmp/*.h5
geo="--pixel 75e-6 --dist 0.1 --poni1 0.0826965 --poni2 0.074448 --wavelength 1e-10 --bins 1000 --solid-angle --polarization 0.99 --dummy 4294967295 --batch 32 --csr-cache /tmp/csr"
for run in 1 2 3; do for d in 0 0,1; do
  timeout 30 $B/bin/kiln --json integrate-azimuthal $stack $geo --devices $d -q -o /tmp/p$d.npy > /tmp/j.txt 2>&1
  echo "devices $d run $run: $(cat /tmp/j.txt)" >> $OUT/one-file-rates.txt
done; done
cmp /tmp/p0.npy /tmp/p0,1.npy && echo "0 and 0,1: identical" >> $OUT/one-file-rates.txt
cat $OUT/one-file-rates.txt
