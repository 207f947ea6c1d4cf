struct Node {
    int starting;
    int no_of_edges;
};

extern "C" __global__ void rodinia_bfs(const Node *g_graph_nodes, const int *g_graph_edges, int *g_graph_mask,
                                       int *g_updating_graph_mask, const int *g_graph_visited, int *g_cost, int no_of_nodes) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < no_of_nodes && g_graph_mask[tid]) {
        g_graph_mask[tid] = 0;
        for (int i = g_graph_nodes[tid].starting; i < g_graph_nodes[tid].no_of_edges + g_graph_nodes[tid].starting; i++) {
            int id = g_graph_edges[i];
            if (!g_graph_visited[id]) {
                g_cost[id] = g_cost[tid] + 1;
                g_updating_graph_mask[id] = 1;
            }
        }
    }
}
