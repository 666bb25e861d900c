set -u
rm -rf /tmp/k; mkdir -p /tmp/k; tar xJf .gpu/bundle.tar.xz -C /tmp/k; B=/tmp/k/gpu-bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/machine.txt
export LD_LIBRARY_PATH=$B/pylib VK_LAYER_PATH=$B/layers HDF5_PLUGIN_PATH=$B/plugins PYTHONPATH=$B/python
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
python3 -c "import cupy; print('cupy', cupy.__version__)" >> $OUT/machine.txt
# The driver's shader cache warmed first (W85 is bimodal on a cold cache: bench/results/2026-11-26-h100-session11).
timeout 120 $B/bin/kiln-bench --filter W8 --repeat 3 > $OUT/warm-W8.txt 2>&1
for f in W7 W8 W6; do
  timeout 240 python3 $B/python/bench/compare.py --kiln-bench $B/bin/kiln-bench --kiln $B/bin/kiln --filter $f \
    --cpu-repeat 0 --out $OUT/cmp-$f > $OUT/cmp-$f.txt 2>&1; echo "$f rc $?"
  grep "^| W" $OUT/cmp-$f.md
done
