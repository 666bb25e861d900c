set -u
rm -rf /tmp/k; mkdir -p /tmp/k; tar xJf .gpu/bundle.tar.xz -C /tmp/k; B=/tmp/k/gpu-bundle
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/r/machine.txt
export LD_LIBRARY_PATH=$B/pylib VK_LAYER_PATH=$B/layers HDF5_PLUGIN_PATH=$B/plugins PYTHONPATH=$B/python
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
python3 -c "import cupy; print('cupy', cupy.__version__)" >> $OUT/r/machine.txt
# The driver's shader cache warmed first (W85 is bimodal on a cold cache).
timeout 60 $B/bin/kiln-bench --filter W8 --repeat 3 > /dev/null 2>&1
for f in W2 W3 W4 W5 W6 W7 W8 W13; do
  s=$(date +%s)
  timeout 75 python3 $B/python/bench/compare.py --kiln-bench $B/bin/kiln-bench --kiln $B/bin/kiln --filter $f \
    --cpu-repeat 0 --out $OUT/r/cmp-$f > $OUT/r/cmp-$f.txt 2>&1; rc=$?
  echo "$f rc=$rc $(( $(date +%s) - s ))s" | tee -a $OUT/r/times.txt
done
cat $OUT/r/cmp-*.md | grep "^| W" | cut -d'|' -f2,4,5,6
cd $OUT && tar czf all.tgz r && rm -rf r
