#include "kiln/integration.hpp"

#include <string>

#include "kiln/error.hpp"

namespace kiln {

IntegrateParams::ErrorModel parse_error_model(std::string_view name) {
    using EM = IntegrateParams::ErrorModel;
    if (name == "none" || name.empty()) return EM::none;
    if (name == "poisson") return EM::poisson;
    if (name == "variance") return EM::variance;
    if (name == "azimuthal") return EM::azimuthal;
    throw InvalidArgument("error_model '" + std::string(name) +
                          "' is unknown; accepted: poisson, azimuthal, variance, none (pyFAI's names)");
}

}  // namespace kiln
