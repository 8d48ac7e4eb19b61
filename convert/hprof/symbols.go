package hprof

import "fmt"

// Symbols are the symbol tables of a binary HPROF input: the records
// that name things other records refer to by ID or serial — STRING IN
// UTF8, LOAD CLASS, STACK FRAME, STACK TRACE, START THREAD, END THREAD —
// kept as they arrive so that consumers resolve a trace to frames, a
// frame to its class and method, or a class serial to its name without
// keeping records of their own. Memory grows with the number of
// symbols, never with the number of objects.
type Symbols struct {
	Strings     map[uint64]string
	ClassSerial map[uint32]uint64 // LOAD CLASS serial → class object ID
	ClassName   map[uint64]string // class object ID → the name NameClass gave
	Frames      map[uint64]Frame
	Traces      map[uint32]Trace
	Threads     map[uint32]*StartThread // by thread serial; the latest START THREAD
	Ended       map[uint32]bool         // thread serials an END THREAD named
	// RepeatedLoads counts LOAD CLASS records repeating a class ID and
	// name (HotSpot lists a class again per initiating loader).
	RepeatedLoads int64

	// NameClass turns the name a LOAD CLASS record gives (its string, or
	// a placeholder when the string is missing) into the name kept, e.g.
	// the Java source name; nil keeps it as written.
	NameClass func(objectID uint64, name string) string
	// SoftFail, when set, is told of every inconsistency the tables
	// survive (a duplicate ID, a name missing its string, …).
	SoftFail func(SymbolFault)

	frameBuf []uint64
}

// NewSymbols returns empty tables.
func NewSymbols() *Symbols {
	return &Symbols{
		Strings:     map[uint64]string{},
		ClassSerial: map[uint32]uint64{},
		ClassName:   map[uint64]string{},
		Frames:      map[uint64]Frame{},
		Traces:      map[uint32]Trace{},
		Threads:     map[uint32]*StartThread{},
		Ended:       map[uint32]bool{},
	}
}

func (s *Symbols) soft(f SymbolFault) {
	if s.SoftFail != nil {
		s.SoftFail(f)
	}
}

// SymbolFault is one kind of inconsistency the symbol tables survive;
// graph.SoftKind has one kind for each.
type SymbolFault uint8

// The symbol faults; the zero value is not one.
const (
	// SymDuplicateString: a second STRING IN UTF8 with an ID already seen.
	SymDuplicateString SymbolFault = iota + 1
	// SymClassMissingString: a LOAD CLASS whose name string is missing.
	SymClassMissingString
	// SymClassTwoNames: a LOAD CLASS giving a class ID a second name.
	SymClassTwoNames
	// SymDuplicateFrame: a second STACK FRAME with an ID already seen.
	SymDuplicateFrame
	// SymDuplicateTrace: a second STACK TRACE with a serial already seen.
	SymDuplicateTrace
	// SymThreadSerialReused: START THREAD with the serial of a thread not ended.
	SymThreadSerialReused
	// SymEndUnknownThread: END THREAD naming no started thread.
	SymEndUnknownThread
)

var symbolFaultText = [...]string{
	SymDuplicateString:    "duplicate string ID",
	SymClassMissingString: "class names missing string",
	SymClassTwoNames:      "class ID loaded under two names",
	SymDuplicateFrame:     "duplicate STACK FRAME ID",
	SymDuplicateTrace:     "duplicate STACK TRACE serial",
	SymThreadSerialReused: "START THREAD reuses the serial of a running thread",
	SymEndUnknownThread:   "END THREAD names unknown thread",
}

func (f SymbolFault) String() string {
	if int(f) < len(symbolFaultText) && f != 0 {
		return symbolFaultText[f]
	}
	return fmt.Sprintf("SymbolFault(%d)", uint8(f))
}

// IsSymbol reports whether records with tag t go to the symbol tables.
func IsSymbol(t Tag) bool {
	switch t {
	case TagUTF8, TagLoadClass, TagUnloadClass, TagFrame, TagTrace, TagStartThread, TagEndThread:
		return true
	}
	return false
}

// Add decodes a symbol record (IsSymbol(rec.Tag)) read by r and keeps
// what it names; other records are left alone. A malformed body is an
// error naming the record and offset; it changes no table.
func (s *Symbols) Add(r *Reader, rec Record, body []byte) error {
	switch rec.Tag {
	case TagUTF8:
		return s.addString(r, rec, body)
	case TagLoadClass:
		return s.addClass(r, rec, body)
	case TagUnloadClass:
		_, err := r.DecodeU4(rec, body)
		return err
	case TagFrame:
		return s.addFrame(r, rec, body)
	case TagTrace:
		return s.addTrace(r, rec, body)
	case TagStartThread:
		return s.startThread(r, rec, body)
	case TagEndThread:
		return s.endThread(r, rec, body)
	}
	return nil
}

func (s *Symbols) addString(r *Reader, rec Record, body []byte) error {
	v, err := r.DecodeUTF8(rec, body)
	if err != nil {
		return err
	}
	if _, dup := s.Strings[v.ID]; dup {
		s.soft(SymDuplicateString)
	}
	s.Strings[v.ID] = string(v.Text)
	return nil
}

func (s *Symbols) addClass(r *Reader, rec Record, body []byte) error {
	v, err := r.DecodeLoadClass(rec, body)
	if err != nil {
		return err
	}
	name, ok := s.Strings[v.NameID]
	if !ok {
		s.soft(SymClassMissingString)
		name = fmt.Sprintf("unknown-class-0x%x", v.ObjectID)
	}
	if s.NameClass != nil {
		name = s.NameClass(v.ObjectID, name)
	}
	if old, dup := s.ClassName[v.ObjectID]; dup {
		if old != name {
			s.soft(SymClassTwoNames)
		} else {
			s.RepeatedLoads++
		}
	}
	s.ClassSerial[v.ClassSerial] = v.ObjectID
	s.ClassName[v.ObjectID] = name
	return nil
}

func (s *Symbols) addFrame(r *Reader, rec Record, body []byte) error {
	v, err := r.DecodeFrame(rec, body)
	if err != nil {
		return err
	}
	if _, dup := s.Frames[v.ID]; dup {
		s.soft(SymDuplicateFrame)
	}
	s.Frames[v.ID] = v
	return nil
}

// addTrace keeps a STACK TRACE; ok is false for a serial seen before
// (the later trace replaces it).
func (s *Symbols) addTrace(r *Reader, rec Record, body []byte) error {
	v, err := r.DecodeTrace(rec, body, s.frameBuf)
	if err != nil {
		return err
	}
	s.frameBuf = v.Frames
	v.Frames = append([]uint64(nil), v.Frames...)
	if _, dup := s.Traces[v.Serial]; dup {
		s.soft(SymDuplicateTrace)
	}
	s.Traces[v.Serial] = v
	return nil
}

func (s *Symbols) startThread(r *Reader, rec Record, body []byte) error {
	v, err := r.DecodeStartThread(rec, body)
	if err != nil {
		return err
	}
	if _, live := s.Threads[v.Serial]; live && !s.Ended[v.Serial] {
		s.soft(SymThreadSerialReused)
	}
	s.Threads[v.Serial] = &v
	delete(s.Ended, v.Serial)
	return nil
}

func (s *Symbols) endThread(r *Reader, rec Record, body []byte) error {
	v, err := r.DecodeU4(rec, body)
	if err != nil {
		return err
	}
	if _, ok := s.Threads[v]; !ok {
		s.soft(SymEndUnknownThread)
	}
	s.Ended[v] = true
	return nil
}
