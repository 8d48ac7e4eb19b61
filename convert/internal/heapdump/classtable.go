package heapdump

// classTable maps class object IDs to their counts: open addressing with
// linear probing over a power-of-two table. A heap dump has thousands of
// classes and millions of objects, and this lookup is the per-object
// cost, so it avoids the general map's hashing and indirection.
type classTable struct {
	keys  []uint64
	vals  []*Acc
	n     int
	zero  *Acc // class ID 0 (invalid, but a file may say it)
	shift uint
}

func newClassTable() *classTable {
	t := &classTable{}
	t.resize(1024)
	return t
}

func (t *classTable) resize(size int) {
	old, oldVals := t.keys, t.vals
	t.keys = make([]uint64, size)
	t.vals = make([]*Acc, size)
	t.shift = 64
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
	t.n = 0
	for i, k := range old {
		if oldVals[i] != nil {
			*t.slot(k) = oldVals[i]
			t.n++
		}
	}
}

// slot returns where id's value lives, claiming an empty slot for it.
func (t *classTable) slot(id uint64) **Acc {
	mask := uint64(len(t.keys) - 1)
	i := (id * 0x9E3779B97F4A7C15) >> t.shift
	for {
		if t.vals[i] == nil {
			t.keys[i] = id
			return &t.vals[i]
		}
		if t.keys[i] == id {
			return &t.vals[i]
		}
		i = (i + 1) & mask
	}
}

// get returns the counts of class id, creating them.
func (t *classTable) get(id uint64) *Acc {
	if id == 0 {
		if t.zero == nil {
			t.zero = &Acc{}
		}
		return t.zero
	}
	p := t.slot(id)
	if *p == nil {
		*p = &Acc{}
		t.n++
		if t.n*2 > len(t.keys) {
			acc := *p
			t.resize(2 * len(t.keys))
			return acc
		}
	}
	return *p
}

// each calls fn for every class with counts.
func (t *classTable) each(fn func(id uint64, acc *Acc)) {
	if t.zero != nil {
		fn(0, t.zero)
	}
	for i, v := range t.vals {
		if v != nil {
			fn(t.keys[i], v)
		}
	}
}
