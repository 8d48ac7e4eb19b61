package domtree

// PathNode is a node of a PathTree: a frame of the class-level paths.
type PathNode struct {
	Parent int32 // index in PathTree.Nodes; -1 for the virtual root
	Class  int32 // the frame's name: a class, or at depth 1 a root kind
	Depth  int32
	// MaxRun is the longest run of nodes of this class merged into
	// this one along one dominator chain (1 when none were merged).
	MaxRun int64
	// Capped marks a node past the depth limit that also holds nodes
	// whose class is on its stack already.
	Capped bool
}

// PathTree is the class-level dominator paths as they are built (node 0
// is the virtual root), and what finds a node's child of a class.
type PathTree struct {
	Nodes []PathNode
	Dup   []bool // Dup[i]: the class of node i names a frame above it too
	// The child of each node last asked for: siblings in DFS order are
	// mostly of one class, so this spares most lookups.
	lastClass, lastChild []int32
	child                map[uint64]int32
	// Behind that, a direct-mapped cache of child (small enough for the
	// processor's cache; the map's lookups were a fifth of paths).
	cache *[1 << 14]pathSlot
	// OnPath's answers, by node and class.
	seen map[uint64]bool
}

type pathSlot struct {
	k uint64
	i int32
}

// NewPathTree returns a tree of the virtual root alone.
func NewPathTree() *PathTree {
	return &PathTree{
		Nodes:     []PathNode{{Parent: -1, Class: -1}},
		Dup:       []bool{false},
		lastClass: []int32{-1},
		lastChild: []int32{0},
		child:     map[uint64]int32{},
		cache:     new([1 << 14]pathSlot),
		seen:      map[uint64]bool{},
	}
}

// Node returns the child of node parent of class class (a root kind at
// depth 1), adding it when there is none.
func (t *PathTree) Node(parent, class int32) int32 {
	if t.lastClass[parent] == class {
		return t.lastChild[parent]
	}
	return t.nodeSlow(parent, class)
}

func (t *PathTree) nodeSlow(parent, class int32) int32 {
	k := uint64(uint32(parent))<<32 | uint64(uint32(class))
	e := &t.cache[(k*0x9E3779B97F4A7C15)>>(64-14)]
	i := e.i
	if e.k != k || i == 0 {
		var ok bool
		if i, ok = t.child[k]; !ok {
			i = int32(len(t.Nodes))
			t.Nodes = append(t.Nodes, PathNode{Parent: parent, Class: class, Depth: t.Nodes[parent].Depth + 1, MaxRun: 1})
			t.Dup = append(t.Dup, t.onStack(parent, class))
			t.lastClass, t.lastChild = append(t.lastClass, -1), append(t.lastChild, 0)
			t.child[k] = i
		}
		e.k, e.i = k, i
	}
	t.lastClass[parent], t.lastChild[parent] = class, i
	return i
}

// onStack reports whether class c names a frame of node p's stack (below
// the root kind).
func (t *PathTree) onStack(p, c int32) bool {
	for j := p; t.Nodes[j].Depth > 1; j = t.Nodes[j].Parent {
		if t.Nodes[j].Class == c {
			return true
		}
	}
	return false
}

// OnPath is onStack for every node past the depth cap: its answers are
// kept per node.
func (t *PathTree) OnPath(p, c int32) bool {
	k := uint64(uint32(p))<<32 | uint64(uint32(c))
	if v, ok := t.seen[k]; ok {
		return v
	}
	found := t.onStack(p, c)
	t.seen[k] = found
	return found
}
