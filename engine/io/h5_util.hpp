#pragma once
// HDF5 helpers shared by the frame-stack reader (h5_reader.cpp) and writer
// (h5_writer.cpp): the guard every stretch of HDF5 calls runs under, the
// capture of HDF5's error stack for messages, an owner of HDF5 handles, the
// bitshuffle-LZ4 filter's identity, and the mapping between kiln dtypes and
// HDF5 datatypes.
#include <hdf5.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>

#include "io/fp_env.hpp"
#include "kiln/dtype.hpp"

namespace kiln::io {

static_assert(std::is_same_v<hid_t, int64_t>, "kiln/io.hpp stores HDF5 handles as int64_t");

inline constexpr H5Z_filter_t bslz4_filter = 32008;
inline constexpr unsigned bslz4_lz4 = 2;  // the plugin's "compression" option for LZ4

// The lock every stretch of HDF5 calls holds (HdfCall): Debian's HDF5 is the
// serial build, which must not be entered from two threads at once, and a
// stack integration reads index entries and writes profiles from different
// threads. Recursive: a guarded stretch may call another.
std::recursive_mutex& hdf5_mutex();

// Every stretch of HDF5 calls runs under this guard, holding hdf5_mutex().
// HDF5 prints its error
// stack to stderr by default; inside kiln its errors become exceptions
// instead, and the caller's setting is restored after. And HDF5 may load a
// filter plugin, which can change the process's floating-point environment
// (fp_env.hpp): the caller's is put back.
class HdfCall {
public:
    HdfCall() {
        H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~HdfCall() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
    HdfCall(const HdfCall&) = delete;
    HdfCall& operator=(const HdfCall&) = delete;

private:
    std::lock_guard<std::recursive_mutex> lock_{hdf5_mutex()};  // taken first, released last
    FloatEnvGuard fp_;
    H5E_auto2_t func_ = nullptr;
    void* data_ = nullptr;
};

// The innermost messages of HDF5's error stack, which say what went wrong,
// as " (HDF5: ...)" to append to a message ("" if there are none); clears
// the stack.
std::string h5_detail();

// Owns one HDF5 handle of any kind.
class Handle {
public:
    Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
    ~Handle() {
        if (id_ >= 0) close_(id_);
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    hid_t get() const { return id_; }

private:
    hid_t id_;
    herr_t (*close_)(hid_t);
};

// Closes a dataset, then its file, where either is open (>= 0), ignoring
// failures (for destructors and moves); both become -1.
void close_dataset_and_file(int64_t& dset, int64_t& file) noexcept;

// A dtype's HDF5 types: in memory (native) and in files (little-endian).
struct H5Types {
    hid_t native, file;
};

H5Types h5_types(DType t);

// The kiln dtype of an HDF5 datatype, or nothing if kiln has none for it.
std::optional<DType> dtype_of_h5(hid_t type);

}  // namespace kiln::io
