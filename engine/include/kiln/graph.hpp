#pragma once
// An explicit graph: record a pipeline of ops once, run it many times (frame
// stacks, benchmarks). Inputs are arrays pushed before run(); outputs are
// arrays pulled after it.
#include <cstdint>
#include <memory>
#include <string>

#include "kiln/context.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

namespace detail {
struct GraphIR;
struct RecordedGraph;
}

/// What compilation made of a graph.
struct GraphStats {
    uint64_t nodes = 0;
    uint64_t levels = 0;          ///< dependency levels (barriers = levels - 1)
    uint64_t transient_bytes = 0; ///< intermediates' memory without sharing
    uint64_t arena_bytes = 0;     ///< memory they take with sharing
};

class Graph {
public:
    explicit Graph(const Context& ctx);
    ~Graph();
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    /// While a Capture lives, ops called on the context are recorded into
    /// this graph instead of running. Push and pull are refused meanwhile.
    class Capture {
    public:
        ~Capture();
        Capture(Capture&& o) noexcept : graph_(o.graph_), exceptions_(o.exceptions_) { o.graph_ = nullptr; }
        Capture(const Capture&) = delete;
        Capture& operator=(const Capture&) = delete;
        /// Ends the capture early.
        void end();

    private:
        friend class Graph;
        explicit Capture(Graph* g);
        Graph* graph_;
        int exceptions_;  // uncaught exceptions when the capture began
    };
    [[nodiscard]] Capture capture();

    /// Submits the graph after any pending eager work and waits for it.
    /// Compiled on the first run; a capture after that recompiles. Throws
    /// InvalidArgument if the last capture ended by an exception (its
    /// nodes are incomplete): capture again first.
    void run();
    /// Submits without waiting; pulls of its outputs wait.
    void launch();
    GraphStats stats() const;

private:
    void compile();
    Context ctx_;
    std::unique_ptr<detail::GraphIR> ir_;
    std::unique_ptr<detail::RecordedGraph> recorded_;
    bool capturing_ = false;
    std::string broken_;  // why the last capture cannot run, if it cannot
};

} // namespace kiln
#pragma GCC visibility pop
