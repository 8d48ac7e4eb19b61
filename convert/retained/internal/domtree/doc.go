// Package domtree holds the graph algorithms of the retained view, on
// plain slices of dense node numbers: reachability (Reach, ReachShared,
// on one core or all), the depth-first numbering with its log of
// non-tree edges (DFS, EdgeLog), the reverse graph (Predecessors), the
// immediate dominators by semi-NCA (Dominators), and totals over the
// dominator tree (TopSums). It knows nothing of HPROF: node numbers,
// edges, classes as small integers. Its big arrays come from a
// mem.Arena (nil: the Go heap).
package domtree
