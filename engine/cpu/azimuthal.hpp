#pragma once
// Azimuthal integration on the CPU: detector geometry, the pixel -> bin CSR
// matrix and the reference integration, in one include.
#include "cpu/integrate.hpp"
#include "kiln/csr.hpp"
#include "kiln/geometry.hpp"
