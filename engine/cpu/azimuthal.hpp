#pragma once
// Azimuthal integration on the CPU: detector geometry, the pixel -> bin CSR
// matrix and the reference integration, in one include.
#include "cpu/csr.hpp"
#include "cpu/geometry.hpp"
#include "cpu/integrate.hpp"
