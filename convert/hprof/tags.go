package hprof

import "fmt"

// Tag is a top-level record tag, as listed in the HPROF format document
// that ships with the JDK's hprof agent (manual "HPROF: A Heap/CPU
// Profiling Tool", section "Binary Dump Format").
type Tag uint8

// Top-level record tags.
const (
	TagUTF8            Tag = 0x01 // STRING IN UTF8: id, bytes
	TagLoadClass       Tag = 0x02 // LOAD CLASS: u4 class serial, id object, u4 trace serial, id name
	TagUnloadClass     Tag = 0x03 // UNLOAD CLASS: u4 class serial
	TagFrame           Tag = 0x04 // STACK FRAME: id frame, id method, id signature, id source file, u4 class serial, i4 line
	TagTrace           Tag = 0x05 // STACK TRACE: u4 serial, u4 thread serial, u4 n, n × id frame
	TagAllocSites      Tag = 0x06 // ALLOC SITES: u2 flags, u4 cutoff, u4 live bytes, u4 live objs, u8 bytes, u8 objs, u4 n, sites
	TagHeapSummary     Tag = 0x07 // HEAP SUMMARY: u4 live bytes, u4 live objs, u8 bytes, u8 objs
	TagStartThread     Tag = 0x0A // START THREAD: u4 serial, id object, u4 trace serial, id name, id group, id parent group
	TagEndThread       Tag = 0x0B // END THREAD: u4 serial
	TagHeapDump        Tag = 0x0C // HEAP DUMP: sub-records
	TagCPUSamples      Tag = 0x0D // CPU SAMPLES: u4 total, u4 n, n × (u4 count, u4 trace serial)
	TagControlSettings Tag = 0x0E // CONTROL SETTINGS: u4 flags, u2 depth
	TagHeapDumpSegment Tag = 0x1C // HEAP DUMP SEGMENT: sub-records
	TagHeapDumpEnd     Tag = 0x2C // HEAP DUMP END: empty
)

var tagNames = map[Tag]string{
	TagUTF8:            "STRING IN UTF8",
	TagLoadClass:       "LOAD CLASS",
	TagUnloadClass:     "UNLOAD CLASS",
	TagFrame:           "STACK FRAME",
	TagTrace:           "STACK TRACE",
	TagAllocSites:      "ALLOC SITES",
	TagHeapSummary:     "HEAP SUMMARY",
	TagStartThread:     "START THREAD",
	TagEndThread:       "END THREAD",
	TagHeapDump:        "HEAP DUMP",
	TagCPUSamples:      "CPU SAMPLES",
	TagControlSettings: "CONTROL SETTINGS",
	TagHeapDumpSegment: "HEAP DUMP SEGMENT",
	TagHeapDumpEnd:     "HEAP DUMP END",
}

func (t Tag) String() string {
	if s, ok := tagNames[t]; ok {
		return s
	}
	return fmt.Sprintf("unknown record 0x%02X", uint8(t))
}

// Known reports whether t is a tag of the format document.
func (t Tag) Known() bool { _, ok := tagNames[t]; return ok }

// SubTag is a heap dump sub-record tag.
type SubTag uint8

// Heap dump sub-record tags (format document, "HEAP DUMP"), plus the
// Android additions (ART's hprof writer, "JAVA PROFILE 1.0.3").
const (
	RootUnknown      SubTag = 0xFF // id
	RootJNIGlobal    SubTag = 0x01 // id, id jni ref
	RootJNILocal     SubTag = 0x02 // id, u4 thread serial, u4 frame
	RootJavaFrame    SubTag = 0x03 // id, u4 thread serial, u4 frame
	RootNativeStack  SubTag = 0x04 // id, u4 thread serial
	RootStickyClass  SubTag = 0x05 // id
	RootThreadBlock  SubTag = 0x06 // id, u4 thread serial
	RootMonitorUsed  SubTag = 0x07 // id
	RootThreadObject SubTag = 0x08 // id, u4 thread serial, u4 trace serial
	ClassDump        SubTag = 0x20
	InstanceDump     SubTag = 0x21 // id, u4 trace, id class, u4 n, n bytes
	ObjArrayDump     SubTag = 0x22 // id, u4 trace, u4 n, id class, n × id
	PrimArrayDump    SubTag = 0x23 // id, u4 trace, u4 n, u1 type, n × size

	// Android.
	RootInternedString   SubTag = 0x89 // id
	RootFinalizing       SubTag = 0x8A // id
	RootDebugger         SubTag = 0x8B // id
	RootReferenceCleanup SubTag = 0x8C // id
	RootVMInternal       SubTag = 0x8D // id
	RootJNIMonitor       SubTag = 0x8E // id, u4 thread serial, u4 depth
	Unreachable          SubTag = 0x90 // id
	PrimArrayNoData      SubTag = 0xC3 // id, u4 trace, u4 n, u1 type
	HeapDumpInfo         SubTag = 0xFE // u4 heap id, id name
)

var subTagNames = map[SubTag]string{
	RootUnknown:          "ROOT UNKNOWN",
	RootJNIGlobal:        "ROOT JNI GLOBAL",
	RootJNILocal:         "ROOT JNI LOCAL",
	RootJavaFrame:        "ROOT JAVA FRAME",
	RootNativeStack:      "ROOT NATIVE STACK",
	RootStickyClass:      "ROOT STICKY CLASS",
	RootThreadBlock:      "ROOT THREAD BLOCK",
	RootMonitorUsed:      "ROOT MONITOR USED",
	RootThreadObject:     "ROOT THREAD OBJECT",
	ClassDump:            "CLASS DUMP",
	InstanceDump:         "INSTANCE DUMP",
	ObjArrayDump:         "OBJECT ARRAY DUMP",
	PrimArrayDump:        "PRIMITIVE ARRAY DUMP",
	RootInternedString:   "ROOT INTERNED STRING",
	RootFinalizing:       "ROOT FINALIZING",
	RootDebugger:         "ROOT DEBUGGER",
	RootReferenceCleanup: "ROOT REFERENCE CLEANUP",
	RootVMInternal:       "ROOT VM INTERNAL",
	RootJNIMonitor:       "ROOT JNI MONITOR",
	Unreachable:          "UNREACHABLE",
	PrimArrayNoData:      "PRIMITIVE ARRAY NODATA",
	HeapDumpInfo:         "HEAP DUMP INFO",
}

func (t SubTag) String() string {
	if s, ok := subTagNames[t]; ok {
		return s
	}
	return fmt.Sprintf("unknown heap sub-record 0x%02X", uint8(t))
}

// IsObject reports whether t is an object of the heap: an instance, an
// array or a class object.
func (t SubTag) IsObject() bool {
	switch t {
	case InstanceDump, ObjArrayDump, PrimArrayDump, PrimArrayNoData, ClassDump:
		return true
	}
	return false
}

// IsRoot reports whether t is a GC root sub-record.
func (t SubTag) IsRoot() bool {
	switch t {
	case RootUnknown, RootJNIGlobal, RootJNILocal, RootJavaFrame, RootNativeStack,
		RootStickyClass, RootThreadBlock, RootMonitorUsed, RootThreadObject,
		RootInternedString, RootFinalizing, RootDebugger, RootReferenceCleanup,
		RootVMInternal, RootJNIMonitor:
		return true
	}
	return false
}

// BasicType is a field or array element type.
type BasicType uint8

// Basic types.
const (
	TypeObject  BasicType = 2
	TypeBoolean BasicType = 4
	TypeChar    BasicType = 5
	TypeFloat   BasicType = 6
	TypeDouble  BasicType = 7
	TypeByte    BasicType = 8
	TypeShort   BasicType = 9
	TypeInt     BasicType = 10
	TypeLong    BasicType = 11
)

// Size is the size of a value of type t in the file, with idSize for
// references; 0 for an invalid type.
func (t BasicType) Size(idSize int) int {
	switch t {
	case TypeObject:
		return idSize
	case TypeBoolean, TypeByte:
		return 1
	case TypeChar, TypeShort:
		return 2
	case TypeFloat, TypeInt:
		return 4
	case TypeDouble, TypeLong:
		return 8
	}
	return 0
}

// JavaName is the Java keyword of a primitive type ("int"); "" for
// objects and invalid types.
func (t BasicType) JavaName() string {
	switch t {
	case TypeBoolean:
		return "boolean"
	case TypeChar:
		return "char"
	case TypeFloat:
		return "float"
	case TypeDouble:
		return "double"
	case TypeByte:
		return "byte"
	case TypeShort:
		return "short"
	case TypeInt:
		return "int"
	case TypeLong:
		return "long"
	}
	return ""
}

func (t BasicType) String() string {
	if t == TypeObject {
		return "object"
	}
	if n := t.JavaName(); n != "" {
		return n
	}
	return fmt.Sprintf("type %d", uint8(t))
}
