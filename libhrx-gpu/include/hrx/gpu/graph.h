/* Stream graphs: record work once, replay it many times.
 *
 * Every recorded node names its predecessors (an empty list starts a new
 * branch); join adds a node that depends on a set of nodes. Commands are
 * prepared when recorded (launch geometry evaluated, arguments packed) and
 * the graph retains every buffer and kernel it uses, so callers may drop
 * theirs after recording. Replay submits the nodes to a stream in an order
 * that respects every edge; independent nodes are submitted without
 * barriers between them.
 *
 * With HRX_GPU_GRAPH_INFER_ACCESS, each recorded node's declared accesses
 * (binding access modes; copy reads its source and writes its destination;
 * fill writes) add edges from byte-range hazards: read after write, write
 * after read, write after write. Only the minimal frontier is kept: no
 * edge between nodes whose ranges do not conflict, and no edge already
 * implied by another.
 *
 * A graph is not thread-safe while recording; replays of one graph must not
 * overlap on different streams.
 */
#ifndef HRX_GPU_GRAPH_H_
#define HRX_GPU_GRAPH_H_

#include "hrx/gpu/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_gpu_graph_s hrx_gpu_graph_t;
typedef uint32_t hrx_gpu_node_t;

typedef enum hrx_gpu_graph_flags_e {
  HRX_GPU_GRAPH_DEFAULT = 0,
  HRX_GPU_GRAPH_INFER_ACCESS = 1u << 0,
} hrx_gpu_graph_flags_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_graph_create(
    hrx_gpu_device_t* device, uint32_t flags, hrx_gpu_graph_t** out_graph);
HRX_API void hrx_gpu_graph_destroy(hrx_gpu_graph_t* graph);

/* |deps| name nodes of this graph (INVALID_ARGUMENT otherwise); duplicates
 * are collapsed. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_graph_dispatch(
    hrx_gpu_graph_t* graph, const hrx_gpu_kernel_t* kernel,
    const hrx_gpu_launch_t* launch, const hrx_gpu_node_t* deps,
    size_t dep_count, hrx_gpu_node_t* out_node);
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_graph_copy(
    hrx_gpu_graph_t* graph, hrx_gpu_view_t source, hrx_gpu_view_t destination,
    const hrx_gpu_node_t* deps, size_t dep_count, hrx_gpu_node_t* out_node);
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_graph_fill(
    hrx_gpu_graph_t* graph, hrx_gpu_view_t view, uint32_t pattern,
    const hrx_gpu_node_t* deps, size_t dep_count, hrx_gpu_node_t* out_node);
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_graph_join(
    hrx_gpu_graph_t* graph, const hrx_gpu_node_t* deps, size_t dep_count,
    hrx_gpu_node_t* out_node);

/* Queues every node on |stream| (in an order that respects all edges). */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_graph_replay(
    hrx_gpu_graph_t* graph, hrx_gpu_stream_t* stream);

HRX_API size_t hrx_gpu_graph_node_count(const hrx_gpu_graph_t* graph);
/* The predecessors of |node| (borrowed, sorted ascending). */
HRX_API const hrx_gpu_node_t* hrx_gpu_graph_node_deps(
    const hrx_gpu_graph_t* graph, hrx_gpu_node_t node, size_t* out_count);
/* Bytes of the distinct allocations the graph binds. */
HRX_API uint64_t hrx_gpu_graph_binding_bytes(const hrx_gpu_graph_t* graph);

#ifdef __cplusplus
}
#endif

#endif /* HRX_GPU_GRAPH_H_ */
