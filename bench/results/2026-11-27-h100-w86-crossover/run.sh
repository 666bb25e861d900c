set -u
rm -rf /tmp/k; mkdir -p /tmp/k; tar xJf .gpu/bundle.tar.xz -C /tmp/k; B=/tmp/k/gpu-bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/machine.txt
export LD_LIBRARY_PATH=$B/lib VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
timeout 60 $B/bin/kiln-bench --id W86 --repeat 3 > /dev/null 2>&1
for r in 1 2; do
  timeout 120 $B/bin/kiln-bench --id W86 --repeat 20 --json $OUT/w86-$r.json > $OUT/w86-$r.txt 2>&1; echo "rc $?"
  python3 -c "
import json,sys; d=json.load(open('$OUT/w86-$r.json'))
w=[x for x in d['results'] if x['id']=='W86'][0]; m=w['metrics']
for k in (7,15,19,23,25,27,29,31,35,63): print(k, k*k, 'direct', round(m['direct_ms_k%d'%k],4), 'fft', round(m['fft_ms_k%d'%k],4))
" || head -c 600 $OUT/w86-$r.json
done
