// join_job: whether mpirun started this process, from its environment, and
// the MPI job then (job_mpi.cpp, where kiln is built with MPI).
#include "job.hpp"

#include <cstdlib>
#include <optional>

namespace kiln::cli {

#ifdef KILN_HAVE_MPI
std::unique_ptr<Job> start_mpi_job(int& argc, char**& argv);  // job_mpi.cpp
#endif

namespace {

// The ranks Open MPI's launcher started (OMPI_COMM_WORLD_SIZE; PMIx's
// PMIX_RANK alone, as another PMIx launcher sets it: 0, a size unknown
// here); nothing for a process no launcher started.
std::optional<int> launched_ranks() {
    if (const char* size = std::getenv("OMPI_COMM_WORLD_SIZE"); size && *size) return std::atoi(size);
    if (const char* rank = std::getenv("PMIX_RANK"); rank && *rank) return 0;
    return std::nullopt;
}

}  // namespace

std::unique_ptr<Job> join_job(int& argc, char**& argv) {
    const std::optional<int> ranks = launched_ranks();
    if (!ranks) return nullptr;
#ifdef KILN_HAVE_MPI
    return start_mpi_job(argc, argv);
#else
    (void)argc;
    (void)argv;
    if (*ranks == 1) return nullptr;
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
    if (!rank) rank = std::getenv("PMIX_RANK");
    throw JobRefused("mpirun started this kiln as one of several processes, but it was built without MPI "
                     "(KILN_MPI=OFF, or no MPI found: apt-get install libopenmpi-dev openmpi-bin and build "
                     "again); run it as one process, or give it several GPUs with --devices",
                     !rank || std::atoi(rank) == 0);
#endif
}

}  // namespace kiln::cli
