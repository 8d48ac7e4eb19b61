package heapsize

// ArraySums sums a group of arrays of one element type so that their
// bytes can be taken under any model once the dump has told which
// (Model.ArrayBytes): the evidence comes with the classes, which may
// follow the arrays. An array takes align8(base + n×elem); the base is a
// multiple of 4, so its padding is one of two values, summed for both.
type ArraySums struct {
	Count int64 // arrays
	Elems int64 // their lengths, summed
	pad0  int64 // padding after the elements when the base is a multiple of 8
	pad4  int64 // the same when it is 4 more than a multiple of 8
}

// Add counts an array of n elements of elem bytes each; reference
// arrays are added with elem 4 (ArrayBytes takes 8-byte references from
// the lengths alone).
func (s *ArraySums) Add(n, elem int64) {
	s.Count++
	s.Elems += n
	end := n * elem & 7
	s.pad0 += (8 - end) & 7
	s.pad4 += (4 - end) & 7
}

// Merge adds o's arrays to s.
func (s *ArraySums) Merge(o ArraySums) {
	s.Count += o.Count
	s.Elems += o.Elems
	s.pad0 += o.pad0
	s.pad4 += o.pad4
}

// ArrayBytes is the size of the arrays s sums, of elem bytes an element
// (0: references, at the model's reference size).
func (m Model) ArrayBytes(s ArraySums, elem int64) int64 {
	if elem == 0 {
		elem = int64(m.ref)
	}
	base := int64(m.base)
	total := s.Count*base + s.Elems*elem
	switch {
	case elem == 8 && base&7 != 0:
		return total + 4*s.Count
	case elem == 8:
		return total
	case base&7 == 0:
		return total + s.pad0
	}
	return total + s.pad4
}
