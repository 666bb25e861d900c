set -u
rm -rf /tmp/k; mkdir -p /tmp/k; tar xJf .gpu/bundle.tar.xz -C /tmp/k; B=/tmp/k/gpu-bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/machine.txt
export LD_LIBRARY_PATH=$B/pylib VK_LAYER_PATH=$B/layers HDF5_PLUGIN_PATH=$B/plugins PYTHONPATH=$B/python
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
python3 -c "import cupy; print('cupy', cupy.__version__)" >> $OUT/machine.txt
cat $OUT/machine.txt
timeout 60 $B/bin/kiln-bench --filter W7 --repeat 3 > /dev/null 2>&1
timeout 150 python3 $B/python/bench/compare.py --kiln-bench $B/bin/kiln-bench --kiln $B/bin/kiln --filter W7 \
    --cpu-repeat 0 --out $OUT/cmp-W7 > $OUT/cmp-W7.txt 2>&1; echo "W7 rc $?"
grep "^| W" $OUT/cmp-W7.md
for r in 2 3; do
  timeout 40 python3 $B/python/bench/compare.py --kiln-bench $B/bin/kiln-bench --kiln $B/bin/kiln --filter W74 \
    --cpu-repeat 0 --out /tmp/cmp-W74-$r > /tmp/cmp-W74-$r.txt 2>&1; grep "^| W74" /tmp/cmp-W74-$r.md
done | tee $OUT/cmp-W74-repeats.txt
timeout 60 $B/bin/kiln-bench --filter W74 --repeat 20 --profile > $OUT/profile-W74.txt 2>&1; tail -12 $OUT/profile-W74.txt
python3 .gpu/dbg.py > $OUT/grid-constant.txt 2>&1; grep -c " 0 wrong" $OUT/grid-constant.txt
