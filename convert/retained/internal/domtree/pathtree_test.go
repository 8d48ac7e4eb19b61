package domtree

import "testing"

// TestPathTree: a child is made once per parent and class, whatever the
// order of the questions; a node knows whether its class names a frame
// above it (below the root kind at depth 1).
func TestPathTree(t *testing.T) {
	tr := NewPathTree()
	root := tr.Node(0, 7) // a root kind
	a := tr.Node(root, 1)
	b := tr.Node(a, 2)
	a2 := tr.Node(b, 1) // class 1 again below itself
	if again := tr.Node(root, 1); again != a {
		t.Errorf("root's child of class 1: %d, then %d", a, again)
	}
	tr.Node(root, 3) // a sibling in between
	if again := tr.Node(a, 2); again != b {
		t.Errorf("a's child of class 2: %d, then %d", b, again)
	}
	for _, c := range []struct {
		node          int32
		parent, depth int32
		dup           bool
	}{{root, 0, 1, false}, {a, root, 2, false}, {b, a, 3, false}, {a2, b, 4, true}} {
		n := tr.Nodes[c.node]
		if n.Parent != c.parent || n.Depth != c.depth || tr.Dup[c.node] != c.dup || n.MaxRun != 1 {
			t.Errorf("node %d: %+v dup %v, want parent %d depth %d dup %v", c.node, n, tr.Dup[c.node], c.parent, c.depth, c.dup)
		}
	}
	if len(tr.Nodes) != 6 {
		t.Errorf("%d nodes, want 6", len(tr.Nodes))
	}
	if !tr.OnPath(b, 1) || tr.OnPath(b, 7) || tr.OnPath(b, 4) {
		t.Errorf("OnPath(b, ·): class 1 %v (want true), root kind 7 %v, class 4 %v (want false)", tr.OnPath(b, 1), tr.OnPath(b, 7), tr.OnPath(b, 4))
	}
}
