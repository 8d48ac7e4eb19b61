package graph

// The heap's objects as rows: a decoder that reads a heap dump hands each
// object, reference, string and GC root to an ObjectSink as it reads it,
// so an emitter writes them in bounded batches and nothing holds a whole
// table. The values a row carries are reused for the next row: copy what
// you keep.

// Object kinds (Object.Kind).
const (
	ObjectInstance  = "instance"
	ObjectArray     = "object array"
	ObjectPrimArray = "primitive array"
	ObjectClass     = "class" // a class object (CLASS DUMP): no instance, weighs 0 bytes as in the heap view
)

// Object is one object of a heap dump.
type Object struct {
	ID    uint64
	Class string // Java name: "java.util.HashMap", "int[]"; "java.lang.Class" for a class object
	Kind  string // ObjectInstance, …
	// Defines is the class a class object stands for, "" for others.
	Defines string
	// RawClass and RawDefines are Class and Defines as the dump wrote
	// them when those are their run-independent form (a hidden or lambda
	// class, see Frame.RawClass); empty otherwise.
	RawClass, RawDefines string
	// Shallow is the size in the heap view's model; HasShallow is false
	// for an object of a class with no CLASS DUMP (the heap view does not
	// count those).
	Shallow    int64
	HasShallow bool
	// Length is an array's element count (HasLength false for others).
	Length    int64
	HasLength bool
	// Size is the value of the instance's collection size field (see
	// SizeFields), when its class has one.
	Size    int64
	HasSize bool
	// Retained and Dominator (the immediate dominator's ID, 0 for the
	// virtual root above the GC roots) when the retained view was
	// computed in the same run and the object is reachable.
	Retained     int64
	Dominator    uint64
	HasRetained  bool
	HasDominator bool
}

// SizeFields are the int fields whose value an instance row carries as
// its collection size, first match in the class chain (own fields
// first): size (HashMap, ArrayList, LinkedList, TreeMap, …), elementCount
// (Vector), count (StringBuilder, Hashtable).
var SizeFields = []string{"size", "elementCount", "count"}

// Ref is one non-null reference between objects.
type Ref struct {
	From, To uint64
	// Field names the reference field (instance fields; a class object's
	// static fields), empty for an array element.
	Field string
	// Index is the array element's index, -1 for a field.
	Index int64
	// Static is set for a class object's static field.
	Static bool
}

// String is one java.lang.String with its value decoded.
type String struct {
	ID    uint64
	Value string
	// Length is the string's length in chars (UTF-16 units), as
	// String.length() says.
	Length int64
	// Bytes is the shallow size of its value array in the heap view's
	// model (the bytes a duplicate wastes, with the String itself).
	Bytes int64
	// Shallow is the String object's own shallow size.
	Shallow int64
	Array   uint64 // the value array's ID
	Coder   string // "latin1", "utf16" (JDK 9+ byte[]), "char[]" (before JDK 9)
}

// Root is one GC root sub-record.
type Root struct {
	ID     uint64
	Kind   string // "jni global", "java frame", "thread object", …
	Thread uint32 // thread serial, 0 when the root names none
	// ThreadName is the thread's name when the dump gives it.
	ThreadName string
	Frame      int64 // the frame number of a java frame / jni local root, -1 otherwise
}

// ObjectSink receives the rows of one heap dump. A nil function means
// that table is not wanted (and its work is skipped). Rows are reused
// between calls. An error stops the reading and is returned by the
// decoder.
type ObjectSink struct {
	Object func(*Object) error
	Ref    func(*Ref) error
	String func(*String) error
	Root   func(*Root) error
	// Done is called once after the last row (may be nil).
	Done func() error
}
