#!/usr/bin/env python3
"""Writes the fixtures in tests/data/formats/ for tests/io/test_formats.cpp:
64-bit integer and float16 .npy files (NumPy), 64-bit integer and OME-TIFF
files (tifffile, Debian's python3-tifffile, which lays files out without
libtiff) and HDF5 datasets (h5py). Each readable file has beside it, where
its values are not in the file name, a .npy of the array it holds, written
by NumPy: the test reads both and compares them exactly.

    /usr/bin/python3 tests/data/make_formats.py
"""
import os

import h5py
import numpy as np
import tifffile

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "formats")


def path(name):
    return os.path.join(OUT, name)


def values(shape, dtype, seed):
    """Values spanning the dtype's whole range, ends included."""
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    if info is None:
        a = (rng.standard_normal(shape) * 1e3).astype(dtype)
    else:
        a = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        a.flat[0], a.flat[-1] = info.min, info.max
    return a


def npy():
    a = values((5, 3), "<i8", 1)
    np.save(path("le_i8_5x3.npy"), a)
    np.save(path("be_i8_5x3.npy"), a.astype(">i8"))
    b = values((7,), "<u8", 2)
    np.save(path("le_u8_7.npy"), b)
    np.save(path("be_u8_7.npy"), b.astype(">u8"))
    # float16 bit patterns of both signs: zero and every subnormal, the
    # smallest and largest normals, infinities and NaNs (quiet, signalling,
    # payloads), and a stride through the rest; NumPy's float32 of each
    # beside them.
    low = np.arange(0, 0x402, dtype=np.uint16)
    high = np.concatenate([np.arange(0x7bfe, 0x7c03, dtype=np.uint16), np.arange(0x7c03, 0x8000, 29, dtype=np.uint16)])
    bits = np.concatenate([low, high, np.arange(0, 0x8000, 257, dtype=np.uint16)])
    bits = np.concatenate([bits, bits[::5] | 0x8000])
    bits = bits[: len(bits) // 4 * 4].reshape(4, -1)
    half = bits.view("<f2")
    np.save(path("le_f2_sample.npy"), half)
    np.save(path("be_f2_sample.npy"), half.astype(">f2"))
    with np.errstate(invalid="ignore"):
        np.save(path("f2_sample_as_f4.npy"), half.astype("<f4"))


def tiff():
    # 64-bit integers: stripped, tiled with deflate, and a BigTIFF stack.
    for code in ("i8", "u8"):
        a = values((13, 17), code, 3)
        np.save(path(f"{code}_13x17.npy"), a)
        tifffile.imwrite(path(f"{code}_13x17.tif"), a, photometric="minisblack")
        tifffile.imwrite(path(f"tiled_deflate_{code}_13x17.tif"), a, photometric="minisblack",
                         tile=(16, 16), compression="zlib")
        s = values((3, 9, 11), code, 4)
        np.save(path(f"stack_{code}_3x9x11.npy"), s)
        tifffile.imwrite(path(f"stack_bigtiff_{code}_3x9x11.tif"), s, photometric="minisblack",
                         bigtiff=True, byteorder=">")
    # OME-TIFF: one non-singleton axis of Z, C or T reads as (planes, Y, X).
    z = values((5, 9, 11), "u2", 5)
    np.save(path("ome_z_u2_5x9x11.npy"), z)
    tifffile.imwrite(path("ome_z_u2_5x9x11.ome.tif"), z, ome=True, metadata={"axes": "ZYX"})
    t = values((4, 9, 11), "f4", 6)
    np.save(path("ome_t_f4_4x9x11.npy"), t)
    tifffile.imwrite(path("ome_t_f4_4x9x11.ome.tif"), t, ome=True, metadata={"axes": "TYX"},
                     tile=(16, 16), compression="zlib")
    one = values((9, 11), "i2", 7)
    np.save(path("ome_i2_9x11.npy"), one)
    tifffile.imwrite(path("ome_i2_9x11.ome.tif"), one, ome=True, metadata={"axes": "YX"})
    # Refused: Z and C both longer than 1 (4-D), and two images (series).
    tifffile.imwrite(path("ome_zc_u1_2x3x5x7.ome.tif"), np.zeros((2, 3, 5, 7), np.uint8), ome=True,
                     metadata={"axes": "CZYX"})
    with tifffile.TiffWriter(path("ome_two_series.ome.tif"), ome=True) as w:
        w.write(np.zeros((5, 7), np.uint8))
        w.write(np.ones((5, 7), np.uint8))


def hdf5():
    with h5py.File(path("datasets.h5"), "w") as f:
        f.create_dataset("/entry/data/data", data=values((3, 9, 11), "<i8", 8), compression="gzip",
                         chunks=(1, 9, 11))
        f.create_dataset("/entry/data/image", data=values((13, 17), ">f4", 9))
        f.create_dataset("/entry/instrument/vector", data=values((19,), "<u8", 10))
        f.create_dataset("/entry/data/single", data=values((1, 5, 7), "<u2", 11))
        f.create_dataset("/entry/data/tiled", data=values((13, 17), "<i2", 12), chunks=(4, 8),
                         compression="gzip")
        f.create_dataset("/entry/data/four_d", data=np.zeros((2, 2, 3, 4), np.uint8))
        f["/entry/data/c64"] = np.zeros(3, np.complex64)
        f.create_group("/entry/empty_group")
        f.attrs["note"] = "kiln test fixture"
    with h5py.File(path("datasets.h5"), "r") as f:
        for name in ("/entry/data/data", "/entry/data/image", "/entry/instrument/vector",
                     "/entry/data/single", "/entry/data/tiled"):
            np.save(path("h5" + name.replace("/", "_") + ".npy"), f[name][()].astype(f[name].dtype.newbyteorder("<")))


def main():
    os.makedirs(OUT, exist_ok=True)
    npy()
    tiff()
    hdf5()


if __name__ == "__main__":
    main()
