B=/tmp/k/gpu-bundle; rm -rf /tmp/k; mkdir -p /tmp/k && tar xJf .gpu/bundle.tar.xz -C /tmp/k
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json LD_LIBRARY_PATH=$B/lib
ls -d ~/.cache/* ~/.nv 2>/dev/null
w() { echo "$1: $($B/bin/kiln-bench --id W85 --repeat 20 $2 2>&1 | grep -E '^W85' | awk '{print $7, $8, $9, $10}')"; }
w "run 1 (fresh)"; w "run 2"; w "run 3"
rm -rf ~/.cache/kiln; w "kiln cache removed"
rm -rf ~/.cache/nvidia ~/.nv; w "nvidia cache removed"; w "again"
rm -rf ~/.cache/nvidia ~/.nv ~/.cache/kiln; w "both removed, --profile" --profile
rm -rf ~/.cache/nvidia ~/.nv ~/.cache/kiln; w "both removed"
w "hold-clock 0" "--hold-clock-ms 0"
ls -d ~/.cache/* ~/.nv 2>/dev/null
