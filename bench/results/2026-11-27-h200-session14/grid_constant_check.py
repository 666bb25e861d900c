import numpy as np, kiln, scipy.ndimage as ndi
rng = np.random.default_rng(1)
img = rng.uniform(-10, 10, (37, 53)).astype(np.float32)
n = 3000
c = rng.uniform(-3, 55, (2, n)).astype(np.float32)
ends = [-1.5, -1.0, -0.5, -0.25, 0.0, 0.5, 1.0]
for i in range(n // 2):
    e = ends[i % 7]
    if i % 3 != 1: c[0, i] = 36 - e if i & 8 else e
    if i % 3 != 0: c[1, i] = 52 - e if i & 16 else e
for mode in ["constant", "grid-constant", "nearest", "reflect", "grid-mirror", "mirror", "wrap", "grid-wrap"]:
    want = ndi.map_coordinates(img.astype(np.float64), c.astype(np.float64), order=1, mode=mode, cval=-2.5)
    got = np.asarray(kiln.map_coordinates(img, c, order=1, mode=mode, cval=-2.5))
    few = np.concatenate([np.asarray(kiln.map_coordinates(img, c[:, k:k + 200].copy(), order=1, mode=mode, cval=-2.5)) for k in range(0, n, 200)])
    bad = np.nonzero(np.abs(got - want) > 1e-4 * 10)[0]
    badf = np.nonzero(np.abs(few - want) > 1e-4 * 10)[0]
    print(f"{mode:14s} texture path: {len(bad)} wrong; buffer path: {len(badf)} wrong", flush=True)
    for k in bad[:6]:
        print(f"    [{k}] y {c[0,k]:.3f} x {c[1,k]:.3f} got {got[k]:.5f} buffer {few[k]:.5f} want {want[k]:.5f}")
# Every transform at every order in grid-constant mode.
for order in (0, 1, 3):
    for name, k, s in [
        ("map", lambda: kiln.map_coordinates(img, c, order=order, mode="grid-constant", cval=-2.5),
                lambda: ndi.map_coordinates(img.astype(np.float64), c.astype(np.float64), order=order, mode="grid-constant", cval=-2.5)),
        ("shift", lambda: kiln.shift(img, (2.3, -3.6), order=order, mode="grid-constant", cval=-2.5),
                  lambda: ndi.shift(img.astype(np.float64), (2.3, -3.6), order=order, mode="grid-constant", cval=-2.5)),
        ("rotate", lambda: kiln.rotate(img, 17, order=order, mode="grid-constant", cval=-2.5),
                   lambda: ndi.rotate(img.astype(np.float64), 17, order=order, mode="grid-constant", cval=-2.5)),
        ("zoom", lambda: kiln.zoom(img, 1.7, order=order, mode="grid-constant", cval=-2.5, grid_mode=True),
                 lambda: ndi.zoom(img.astype(np.float64), 1.7, order=order, mode="grid-constant", cval=-2.5, grid_mode=True))]:
        try:
            g, w = np.asarray(k()), s()
            print(f"grid-constant order {order} {name:7s}: {int(np.sum(np.abs(g - w) > 1e-3))} of {w.size} wrong", flush=True)
        except Exception as e:
            print(f"grid-constant order {order} {name}: {e}", flush=True)
