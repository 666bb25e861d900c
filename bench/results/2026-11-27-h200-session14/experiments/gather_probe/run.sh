set -u
rm -rf /tmp/k; mkdir -p /tmp/k; tar xJf .gpu/bundle.tar.xz -C /tmp/k; B=/tmp/k/gpu-bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/machine.txt
export LD_LIBRARY_PATH=$B/lib VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
.gpu/probe/gather_probe .gpu/probe 2048 > $OUT/probe.txt 2>&1; echo "probe rc $?"
cat $OUT/probe.txt

cat $OUT/cu.txt
