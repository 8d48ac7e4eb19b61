package convert

// threadIndex holds lookups by thread serial that the views need once per
// thread or per trace. Built on first use, after every record is read, so
// that a file with many threads and many traces costs one pass over each
// rather than one pass per thread.
type threadIndex struct {
	longest map[uint32]uint32 // thread serial → its longest STACK TRACE serial
	names   map[uint32]string // thread serial → name from the heap dump's thread objects
}

// longestTrace is the serial of the longest non-empty STACK TRACE naming
// the thread serial (the lowest serial among equals).
func (x *threadIndex) longestTrace(d *binDecoder, thread uint32) (uint32, bool) {
	if x.longest == nil {
		x.longest = map[uint32]uint32{}
		for s, t := range d.sym.Traces {
			if len(t.Frames) == 0 {
				continue
			}
			best, ok := x.longest[t.ThreadSerial]
			if !ok {
				x.longest[t.ThreadSerial] = s
				continue
			}
			if n, bn := len(t.Frames), len(d.sym.Traces[best].Frames); n > bn || n == bn && s < best {
				x.longest[t.ThreadSerial] = s
			}
		}
	}
	s, ok := x.longest[thread]
	return s, ok
}

// rootName is the name of the first thread object of the heap dump
// rooted with the thread serial, "" when none has a name.
func (x *threadIndex) rootName(d *binDecoder, thread uint32) string {
	if d.lastHeap == nil {
		return ""
	}
	if x.names == nil {
		x.names = map[uint32]string{}
		for _, t := range d.lastHeap.ThreadRoots {
			if _, seen := x.names[t.ThreadSerial]; !seen && t.Name != "" {
				x.names[t.ThreadSerial] = t.Name
			}
		}
	}
	return x.names[thread]
}
