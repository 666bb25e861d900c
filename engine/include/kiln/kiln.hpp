#pragma once
// Everything an embedding application needs: #include <kiln/kiln.hpp>.
#include "kiln/array.hpp"
#include "kiln/context.hpp"
#include "kiln/device.hpp"
#include "kiln/dtype.hpp"
#include "kiln/elementwise.hpp"
#include "kiln/error.hpp"
#include "kiln/graph.hpp"
#include "kiln/host_array.hpp"
#include "kiln/pinned.hpp"
#include "kiln/profile.hpp"
#include "kiln/shape.hpp"
