// Test runner: validation is on (KILN_VALIDATION=1 unless set otherwise) and
// any validation message seen by a test context fails the run.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <iostream>

#include "support.hpp"

int main(int argc, char* argv[]) {
    setenv("KILN_VALIDATION", "1", 0);
    int result = Catch::Session().run(argc, argv);
    auto messages = kiln::test::validation_messages();
    if (!messages.empty()) {
        std::cerr << messages.size() << " Vulkan validation message(s); failing the run:\n";
        for (auto& m : messages) std::cerr << "  " << m << "\n";
        return result ? result : 1;
    }
    return result;
}
