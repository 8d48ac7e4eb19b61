package retained

// csr is the object graph by dense object number: the references of
// object v are edges[start[v] : start[v]+degree]. A degree takes one byte
// per object, kept plus one, so that 0 says the second pass has not seen
// the object (yet: finishGraph counts the objects it never saw); 254 or
// more references (large object arrays) are counted in a map, one entry
// per such object.
type csr struct {
	start []uint32
	deg   []uint8           // references of each object plus one (0: not filled); wideDeg: see wide
	wide  map[uint32]uint32 // references of the objects with wideDeg
	edges []uint32
}

const wideDeg = 255

// end returns where object v's references end.
func (g *csr) end(v uint32) uint32 {
	d := uint32(g.deg[v]) - 1
	if d == wideDeg-1 {
		d = g.wide[v]
	}
	return g.start[v] + d
}

// out returns object v's references.
func (g *csr) out(v uint32) []uint32 {
	return g.edges[g.start[v]:g.end(v)]
}

// setEnd notes that object v's references end at end; a wide degree goes
// to *wide (a filler's own map, merged later).
func (g *csr) setEnd(v, end uint32, wide *map[uint32]uint32) {
	d := end - g.start[v]
	if d < wideDeg-1 {
		g.deg[v] = uint8(d + 1)
		return
	}
	g.deg[v] = wideDeg
	if *wide == nil {
		*wide = map[uint32]uint32{}
	}
	(*wide)[v] = d
}

// addDeg changes object v's degree by one (-1, then +1): hiding its last
// reference and showing it again.
func (g *csr) addDeg(v uint32, by int) {
	if g.deg[v] == wideDeg {
		g.wide[v] = uint32(int(g.wide[v]) + by)
		return
	}
	g.deg[v] = uint8(int(g.deg[v]) + by)
}
