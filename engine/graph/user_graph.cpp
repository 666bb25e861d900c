#include "kiln/graph.hpp"

#include "graph/context_impl.hpp"

#include <exception>
#include <string>

namespace kiln {

Graph::Graph(const Context& ctx) : ctx_(ctx), ir_(std::make_unique<detail::GraphIR>()) {}

Graph::~Graph() {
    if (capturing_) ctx_.state().scheduler.end_capture();
    if (recorded_) ctx_.state().scheduler.release_recorded(*recorded_);
}

Graph::Capture Graph::capture() {
    ctx_.state().scheduler.begin_capture(ir_.get());
    capturing_ = true;
    if (recorded_) {
        ctx_.state().scheduler.release_recorded(*recorded_);
        recorded_.reset();
    }
    if (!broken_.empty()) {
        // The failed capture's nodes are incomplete: start over.
        ir_->nodes.clear();
        broken_.clear();
    }
    return Capture(this);
}

Graph::Capture::Capture(Graph* g) : graph_(g), exceptions_(std::uncaught_exceptions()) {}

Graph::Capture::~Capture() {
    // Ended by an exception thrown inside its scope: the ops before the
    // throw were recorded, the rest not, so the graph must not run as is.
    if (graph_ && std::uncaught_exceptions() > exceptions_)
        graph_->broken_ = "its capture ended with an exception, after recording " +
                          std::to_string(graph_->ir_->nodes.size()) + " node(s) of an incomplete pipeline";
    end();
}

void Graph::Capture::end() {
    if (!graph_) return;
    graph_->ctx_.state().scheduler.end_capture();
    graph_->capturing_ = false;
    graph_ = nullptr;
}

void Graph::compile() {
    if (capturing_) throw InvalidArgument("Graph::run during its own capture; end the capture first");
    if (!broken_.empty())
        throw InvalidArgument("Graph::run: " + broken_ + "; capture the graph again (Graph::capture) before running it");
    if (!recorded_) {
        if (ir_->empty()) throw InvalidArgument("Graph::run: nothing was captured into this graph");
        // The recorded graph keeps the nodes; a copy stays for recompiles.
        recorded_ = ctx_.state().scheduler.record_graph(*ir_);
    }
}

void Graph::run() {
    launch();
    ctx_.state().scheduler.wait(recorded_->sub.serial);
}

void Graph::launch() {
    compile();
    ctx_.state().scheduler.submit_recorded(*recorded_);
}

GraphStats Graph::stats() const {
    GraphStats s;
    s.nodes = ir_->nodes.size();
    if (recorded_) {
        s.levels = recorded_->plan.levels;
        s.transient_bytes = recorded_->plan.transient_bytes;
        s.arena_bytes = recorded_->plan.arena_size;
    }
    return s;
}

} // namespace kiln
