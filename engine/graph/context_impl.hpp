#pragma once
// Everything a Context owns, as a composition of its parts: configuration
// and device resources, the submission objects' pool, the deferred
// destruction queue, the profile, the scheduler and the op services. They
// share one recursive lock (every member that touches shared state takes
// it). Built in the order of declaration, destroyed in the reverse: the
// scheduler waits for the device to be idle before the objects and memory
// it used are released.
#include <mutex>

#include "graph/device_resources.hpp"
#include "graph/op_services.hpp"
#include "graph/profiler.hpp"
#include "graph/retire_queue.hpp"
#include "graph/scheduler.hpp"
#include "vk/submission_pool.hpp"

namespace kiln::detail {

struct ContextImpl {
    ContextImpl(const ContextOptions& options, const ExternalDevice* external)
        : resources(options, external),
          submissions(resources.device().handle(), resources.command_pool()),
          retired(mutex),
          profiler(resources.device(), options.profile_capacity),
          scheduler(resources, submissions, retired, profiler, mutex),
          services(resources, scheduler, profiler, retired, mutex) {}
    ContextImpl(const ContextImpl&) = delete;
    ContextImpl& operator=(const ContextImpl&) = delete;

    mutable std::recursive_mutex mutex;  ///< the context's one lock
    DeviceResources resources;
    vk::SubmissionPool submissions;
    RetireQueue retired;
    Profiler profiler;
    Scheduler scheduler;
    OpServices services;
};

} // namespace kiln::detail
