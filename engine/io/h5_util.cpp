// The HDF5 helpers of h5_util.hpp that are not inline: error-stack capture
// and the dtype <-> HDF5 datatype mapping.
#include "io/h5_util.hpp"

namespace kiln::io {

std::string h5_detail() {
    std::string text;
    auto walk = [](unsigned n, const H5E_error2_t* err, void* out) -> herr_t {
        auto& s = *static_cast<std::string*>(out);
        if (n < 2 && err->desc && *err->desc) s += (s.empty() ? "" : "; ") + std::string(err->desc);
        return 0;
    };
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk, &text);
    H5Eclear2(H5E_DEFAULT);
    return text.empty() ? "" : " (HDF5: " + text + ")";
}

H5Types h5_types(DType t) {
    switch (t) {
        case DType::float32:
            return {H5T_NATIVE_FLOAT, H5T_IEEE_F32LE};
        case DType::float64:
            return {H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE};
        case DType::int8:
            return {H5T_NATIVE_INT8, H5T_STD_I8LE};
        case DType::uint8:
            return {H5T_NATIVE_UINT8, H5T_STD_U8LE};
        case DType::int16:
            return {H5T_NATIVE_INT16, H5T_STD_I16LE};
        case DType::uint16:
            return {H5T_NATIVE_UINT16, H5T_STD_U16LE};
        case DType::int32:
            return {H5T_NATIVE_INT32, H5T_STD_I32LE};
        case DType::uint32:
            return {H5T_NATIVE_UINT32, H5T_STD_U32LE};
        case DType::int64:
            return {H5T_NATIVE_INT64, H5T_STD_I64LE};
        case DType::uint64:
            return {H5T_NATIVE_UINT64, H5T_STD_U64LE};
        case DType::complex64:
        case DType::complex128:
            throw Unsupported("HDF5 files: kiln does not write or read " + std::string(dtype_name(t)) +
                              " datasets; save complex arrays as .npy");
    }
    return {-1, -1};
}

std::optional<DType> dtype_of_h5(hid_t type) {
    const size_t size = H5Tget_size(type);
    switch (H5Tget_class(type)) {
        case H5T_FLOAT:
            if (size == 4) return DType::float32;
            if (size == 8) return DType::float64;
            return std::nullopt;
        case H5T_INTEGER: {
            const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
            if (size == 1) return is_signed ? DType::int8 : DType::uint8;
            if (size == 2) return is_signed ? DType::int16 : DType::uint16;
            if (size == 4) return is_signed ? DType::int32 : DType::uint32;
            if (size == 8) return is_signed ? DType::int64 : DType::uint64;
            return std::nullopt;
        }
        default:
            return std::nullopt;
    }
}

std::recursive_mutex& hdf5_mutex() {
    static std::recursive_mutex m;
    return m;
}

void close_dataset_and_file(int64_t& dset, int64_t& file) noexcept {
    if (dset < 0 && file < 0) return;
    HdfCall guard;
    if (dset >= 0) H5Dclose(dset);
    if (file >= 0) H5Fclose(file);
    dset = file = -1;
}

}  // namespace kiln::io
