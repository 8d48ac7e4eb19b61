package graph

import (
	"fmt"
	"slices"
	"strings"
)

// SoftKind names one kind of soft failure: an inconsistency in the
// input that decoding survives. Code that reads a count back uses these
// constants (Graph.Soft.Count), never the text of a message; the text,
// from String, is what `info` and the Parquet summary print.
type SoftKind uint16

// The soft failure kinds. The zero value is reserved (not a kind).
// Kinds whose text has a %s take a detail (SoftFailure.Detail).
const (
	_ SoftKind = iota

	// Symbol tables (STRING IN UTF8, LOAD CLASS, STACK FRAME, STACK
	// TRACE, START/END THREAD), see hprof.Symbols.

	// SoftDuplicateString: a second STRING IN UTF8 with an ID already seen.
	SoftDuplicateString
	// SoftClassMissingString: a LOAD CLASS whose name string is missing.
	SoftClassMissingString
	// SoftClassTwoNames: a LOAD CLASS giving a class ID a second name.
	SoftClassTwoNames
	// SoftDuplicateFrame: a second STACK FRAME with an ID already seen.
	SoftDuplicateFrame
	// SoftDuplicateTrace: a second STACK TRACE with a serial already seen.
	SoftDuplicateTrace
	// SoftThreadSerialReused: START THREAD with the serial of a thread
	// that has not ended.
	SoftThreadSerialReused
	// SoftEndUnknownThread: END THREAD naming no started thread.
	SoftEndUnknownThread

	// Resolving traces and frames.

	// SoftTraceMissingFrame: a STACK TRACE naming a frame ID never defined.
	SoftTraceMissingFrame
	// SoftFrameMissingClass: a STACK FRAME naming an unknown class serial.
	SoftFrameMissingClass
	// SoftFrameMissingString: a STACK FRAME naming a missing string.
	SoftFrameMissingString
	// SoftMissingTrace: a record naming a STACK TRACE serial never
	// defined; the detail is the serial.
	SoftMissingTrace
	// SoftStackTruncated: a stack was cut because the stack table
	// reached Graph.StackBudget.
	SoftStackTruncated

	// Top-level records of a binary file.

	// SoftUnknownRecordTag: a top-level record with a tag the format
	// does not define, skipped by its length; the detail is the tag
	// ("0x2A").
	SoftUnknownRecordTag
	// SoftCPUSamplesTotal: CPU SAMPLES whose total is not the sum of
	// its traces' counts.
	SoftCPUSamplesTotal
	// SoftSiteInvalidArrayType: an ALLOC SITES entry with an array
	// type the format does not define.
	SoftSiteInvalidArrayType
	// SoftSiteMissingClass: an ALLOC SITES entry naming an unknown class.
	SoftSiteMissingClass
	// SoftSitesCounterBack: a live ALLOC SITES counter smaller than the
	// one before it.
	SoftSitesCounterBack

	// Heap dumps.

	// SoftZeroLengthSegment: a HEAP DUMP SEGMENT with no body (ART
	// writes them; harmless there).
	SoftZeroLengthSegment
	// SoftDuplicateClassDump: a second CLASS DUMP for a class ID.
	SoftDuplicateClassDump
	// SoftSuperMissingClassDump: a CLASS DUMP whose super class has none.
	SoftSuperMissingClassDump
	// SoftClassDumpWithoutLoadClass: a CLASS DUMP with no LOAD CLASS
	// naming its class.
	SoftClassDumpWithoutLoadClass
	// SoftObjectsMissingClassDump: objects of a class with no CLASS
	// DUMP; counted per object, the objects are left out.
	SoftObjectsMissingClassDump
	// SoftThreadSerialShared: two thread objects under one thread serial.
	SoftThreadSerialShared
	// SoftThreadWithoutName: a thread object with no name field.
	SoftThreadWithoutName
	// SoftThreadNamePassFailed: reading thread names from the heap
	// failed; the detail is the error.
	SoftThreadNamePassFailed
	// SoftThreadNamesUnresolved: threads whose name was not found;
	// counted per thread.
	SoftThreadNamesUnresolved
	// SoftRetainedNeedsFile: the retained view was asked for an input
	// that is not a file.
	SoftRetainedNeedsFile
	// SoftRetainedFailed: the retained analysis failed (its error is in
	// the notes).
	SoftRetainedFailed

	// Legacy hprof agent text output (convert/text).

	// SoftUnknownLine: a text line no section grammar accepts.
	SoftUnknownLine
	// SoftUnknownHeapDumpRecord: a text HEAP DUMP record of an unknown kind.
	SoftUnknownHeapDumpRecord
	// SoftUnknownMonitorLine: a MONITOR DUMP line of an unknown form.
	SoftUnknownMonitorLine
	// SoftRowMissingTrace: a SITES or CPU row naming a trace never given.
	SoftRowMissingTrace

	numSoftKinds
)

// softText is each kind's text as printed; %s is the detail.
var softText = [numSoftKinds]string{
	SoftDuplicateString:    "duplicate string ID",
	SoftClassMissingString: "class names missing string",
	SoftClassTwoNames:      "class ID loaded under two names",
	SoftDuplicateFrame:     "duplicate STACK FRAME ID",
	SoftDuplicateTrace:     "duplicate STACK TRACE serial",
	SoftThreadSerialReused: "START THREAD reuses the serial of a running thread",
	SoftEndUnknownThread:   "END THREAD names unknown thread",

	SoftTraceMissingFrame:  "trace names missing frame",
	SoftFrameMissingClass:  "frame names missing class",
	SoftFrameMissingString: "frame names missing string",
	SoftMissingTrace:       "reference to missing STACK TRACE (serial %s)",
	SoftStackTruncated:     "stack truncated: the stack table reached its size limit",

	SoftUnknownRecordTag:     "unknown record tag %s skipped",
	SoftCPUSamplesTotal:      "CPU SAMPLES total differs from the sum of its traces",
	SoftSiteInvalidArrayType: "site has invalid array type",
	SoftSiteMissingClass:     "site names missing class",
	SoftSitesCounterBack:     "ALLOC SITES counter went back; delta taken from zero",

	SoftZeroLengthSegment:         "zero-length heap dump segment",
	SoftDuplicateClassDump:        "duplicate CLASS DUMP",
	SoftSuperMissingClassDump:     "super class with no CLASS DUMP",
	SoftClassDumpWithoutLoadClass: "CLASS DUMP without LOAD CLASS",
	SoftObjectsMissingClassDump:   "objects of a class with no CLASS DUMP (not counted)",
	SoftThreadSerialShared:        "thread serial shared by two thread objects",
	SoftThreadWithoutName:         "thread object without a name field",
	SoftThreadNamePassFailed:      "thread name pass failed: %s",
	SoftThreadNamesUnresolved:     "thread names not resolved",
	SoftRetainedNeedsFile:         "retained view needs a file input",
	SoftRetainedFailed:            "retained view failed",

	SoftUnknownLine:           "unknown line",
	SoftUnknownHeapDumpRecord: "unknown heap dump record",
	SoftUnknownMonitorLine:    "unknown monitor dump line",
	SoftRowMissingTrace:       "row names missing trace",
}

// SoftKinds lists every kind, in the order of the constants.
func SoftKinds() []SoftKind {
	ks := make([]SoftKind, 0, numSoftKinds-1)
	for k := SoftKind(1); k < numSoftKinds; k++ {
		ks = append(ks, k)
	}
	return ks
}

// String is the kind's text; for a kind that takes a detail, the text
// with the %s left in.
func (k SoftKind) String() string {
	if k == 0 || k >= numSoftKinds {
		return fmt.Sprintf("SoftKind(%d)", uint16(k))
	}
	return softText[k]
}

// TakesDetail reports whether the kind's text has a place for a detail.
func (k SoftKind) TakesDetail() bool {
	return strings.Contains(k.String(), "%s")
}

// SoftFailure is one soft failure as counted: its kind and, for the
// kinds that take one, the detail (a tag, a serial, an error's text).
type SoftFailure struct {
	Kind   SoftKind
	Detail string
}

// String is the failure's text as `info` prints it.
func (f SoftFailure) String() string {
	if !f.Kind.TakesDetail() {
		return f.Kind.String()
	}
	return fmt.Sprintf(f.Kind.String(), f.Detail)
}

// SoftCounts counts soft failures by kind and detail: the typed
// metrics of what decoding survived. The zero value is empty and ready
// to read; Add on a nil SoftCounts panics, as on a nil map.
type SoftCounts map[SoftFailure]int64

// Add counts n failures of kind with detail (empty for kinds without).
func (c SoftCounts) Add(kind SoftKind, detail string, n int64) {
	if n != 0 {
		c[SoftFailure{kind, detail}] += n
	}
}

// Count is the number of failures of kind, over all details.
func (c SoftCounts) Count(kind SoftKind) int64 {
	var n int64
	for f, v := range c {
		if f.Kind == kind {
			n += v
		}
	}
	return n
}

// Total is the number of failures of every kind.
func (c SoftCounts) Total() int64 {
	var n int64
	for _, v := range c {
		n += v
	}
	return n
}

// Texts is the counts keyed by each failure's text: what `info` and
// the Parquet summary print.
func (c SoftCounts) Texts() map[string]int64 {
	if c == nil {
		return nil
	}
	m := make(map[string]int64, len(c))
	for f, v := range c {
		m[f.String()] += v
	}
	return m
}

// Sorted is the failures in the order of their texts.
func (c SoftCounts) Sorted() []SoftFailure {
	fs := make([]SoftFailure, 0, len(c))
	for f := range c {
		fs = append(fs, f)
	}
	slices.SortFunc(fs, func(a, b SoftFailure) int { return strings.Compare(a.String(), b.String()) })
	return fs
}
