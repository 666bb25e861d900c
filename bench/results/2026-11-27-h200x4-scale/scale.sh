# 1, 2 and 4 GPUs of one host: one process (--devices) and mpirun -np N, a 10^4-frame
# Eiger 4M file in the page cache; stage times in each --json line.
T0=$(date +%s)
left() { echo $(( 560 - ($(date +%s) - T0) )); }
B=/tmp/k/gpu-bundle
rm -rf /tmp/k; mkdir -p /tmp/k && tar xJf .gpu/bundle.tar.xz -C /tmp/k
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json LD_LIBRARY_PATH=$B/lib HDF5_PLUGIN_PATH=$B/plugins
export OPAL_PREFIX=$B/openmpi PATH=$B/openmpi/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT/rates.txt
{ date -u; cat $B/COMMIT; nproc; free -g | head -2; lscpu | grep -E "Model name|^Socket|NUMA node"; 
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv; nvidia-smi topo -m; } > $OUT/machine.txt 2>&1
cd /tmp
stack=/tmp/kiln_bench_stack_2162x2068_10000.h5
s=$(date +%s); KILN_BENCH_FILE_FRAMES=10000 KILN_BENCH_KEEP_STACK=1 timeout 200 $B/bin/kiln-bench --filter az-file --repeat 1 > $OUT/az-file.txt 2>&1
echo "make stack rc $? $(( $(date +%s) - s )) s; $(ls -la /tmp/*.h5)" >> $R
s=$(date +%s); cat $stack > /dev/null; echo "cat of the file (page cache): $(( $(date +%s) - s )) s" >> $R
geo="--pixel 75e-6 --dist 0.1 --poni1 0.0826965 --poni2 0.074448 --wavelength 1e-10 --bins 1000 --solid-angle --polarization 0.99 --dummy 4294967295 --batch 32 --csr-cache /tmp/csr"
timeout 60 $B/bin/kiln --json integrate-azimuthal $stack $geo --devices 0 -q -o /tmp/ref.npy > /tmp/j.txt 2>&1; echo "warm-up: $(cat /tmp/j.txt)" >> $R
one() {  # label, then the command
  local label=$1; shift
  [ $(left) -gt 20 ] || { echo "$label: skipped (time)" >> $R; return; }
  timeout 60 "$@" > /tmp/j.txt 2>&1; local rc=$?
  echo "$label rc=$rc: $(grep -h '^{' /tmp/j.txt || tail -3 /tmp/j.txt)" >> $R
}
for run in 1 2 3; do
  for d in 0 0,1 0,1,2,3; do for r in 0; do
    one "devices $d readers $r run $run" $B/bin/kiln --json integrate-azimuthal $stack $geo --devices $d --readers $r -q -o /tmp/p$d.npy
  done; cmp /tmp/ref.npy /tmp/p$d.npy && echo "devices $d: output identical to devices 0" >> $R; done
  for np in 1 2 4; do for r in 0; do
    one "mpirun -np $np readers $r run $run" mpirun -np $np --bind-to none --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
      $B/bin/kiln --json integrate-azimuthal $stack $geo --readers $r -q -o /tmp/m$np.npy
  done; cmp /tmp/ref.npy /tmp/m$np.npy && echo "mpirun -np $np: output identical to devices 0" >> $R; done
done
# The file ten times over (10^5 frames): a run where set-up weighs little, 1/2/4 GPUs.
for f in 0 1 2 3 4 5 6 7 8 9; do ln -sf $stack /tmp/link$f.h5; done
for d in 0 0,1 0,1,2,3; do
  one "same file 10 times (10^5 frames), devices $d" $B/bin/kiln --json integrate-azimuthal /tmp/link?.h5 $geo --devices $d -q -o /tmp/big$d.npy
done
echo "total $(( $(date +%s) - T0 )) s" >> $R
cat $R | cut -c1-600
