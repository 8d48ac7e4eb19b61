// Package hsperf reads HotSpot's performance data files
// (hsperfdata_<user>/<pid> in the JVM's temporary directory): the
// counters jstat and jps read, without attaching to the JVM.
//
// The file is a PerfDataPrologue followed by PerfDataEntry records
// (HotSpot's perfMemory.hpp and perfData.hpp):
//
//	prologue (32 bytes): magic 0xcafec0c0 (always big-endian), byte order
//	  (0 big, 1 little), major, minor, accessible, used, overflow,
//	  mod_time_stamp (8), entry_offset, num_entries
//	entry (20-byte header): entry_length, name_offset, vector_length,
//	  data_type ('J' long, 'B' byte vector), flags, data_units,
//	  data_variability, data_offset; the name is NUL-terminated
//
// Every offset and length is checked against the file before it is used.
package hsperf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// ErrFormat: the data is not a performance data file, or is damaged.
var ErrFormat = errors.New("hsperf: not a HotSpot performance data file")

const (
	magic        = 0xcafec0c0
	prologueSize = 32
	entryHeader  = 20
	// maxFile bounds what is read: HotSpot's default is 32 KiB
	// (-XX:PerfDataMemorySize), and nobody sets it past a few MiB.
	maxFile = 16 << 20
)

// Data types of an entry (HotSpot's BasicType signature characters).
const (
	typeLong = 'J'
	typeByte = 'B'
)

// Units of an entry (perfData.hpp PerfData::Units).
const (
	UnitNone   = 1
	UnitBytes  = 2
	UnitTicks  = 3
	UnitEvents = 4
	UnitString = 5
	UnitHertz  = 6
)

// Counters are the entries of one file: numbers (long scalars) and
// strings (byte vectors, up to their first NUL).
type Counters struct {
	Longs   map[string]int64
	Strings map[string]string
	// Accessible is the prologue's flag: the JVM has finished setting up
	// its counters.
	Accessible bool
}

// ReadFile reads and parses one hsperfdata file.
func ReadFile(path string) (*Counters, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrFormat, path, maxFile)
	}
	c, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse decodes a performance data file held in b.
func Parse(b []byte) (*Counters, error) {
	if len(b) < prologueSize {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte prologue", ErrFormat, len(b), prologueSize)
	}
	if binary.BigEndian.Uint32(b) != magic {
		return nil, fmt.Errorf("%w: magic %#x at byte 0, want %#x", ErrFormat, binary.BigEndian.Uint32(b), uint32(magic))
	}
	var bo binary.ByteOrder
	switch b[4] {
	case 0:
		bo = binary.BigEndian
	case 1:
		bo = binary.LittleEndian
	default:
		return nil, fmt.Errorf("%w: byte order %d at byte 4", ErrFormat, b[4])
	}
	if b[5] != 2 {
		return nil, fmt.Errorf("%w: version %d.%d at byte 5, only 2.x is known", ErrFormat, b[5], b[6])
	}
	c := &Counters{Longs: map[string]int64{}, Strings: map[string]string{}, Accessible: b[7] != 0}
	off := int64(bo.Uint32(b[24:]))
	n := int64(bo.Uint32(b[28:]))
	for i := int64(0); i < n; i++ {
		next, err := c.entry(b, off, bo)
		if err != nil {
			return nil, fmt.Errorf("%w: entry %d at byte %d: %v", ErrFormat, i, off, err)
		}
		off = next
	}
	return c, nil
}

// entry decodes the entry at off and returns the offset of the next.
func (c *Counters) entry(b []byte, off int64, bo binary.ByteOrder) (int64, error) {
	size := int64(len(b))
	if off < prologueSize || off > size-entryHeader {
		return 0, errors.New("entry header outside the file")
	}
	e := b[off:]
	length := int64(bo.Uint32(e))
	nameOff := int64(bo.Uint32(e[4:]))
	vlen := int64(bo.Uint32(e[8:]))
	typ := e[12]
	dataOff := int64(bo.Uint32(e[16:]))
	if length < entryHeader || length > size-off {
		return 0, fmt.Errorf("length %d does not fit the file", length)
	}
	ent := e[:length]
	if nameOff < entryHeader || nameOff >= length || dataOff > length {
		return 0, fmt.Errorf("name offset %d or data offset %d outside the entry of %d bytes", nameOff, dataOff, length)
	}
	nul := bytes.IndexByte(ent[nameOff:], 0)
	if nul < 0 {
		return 0, errors.New("name without a terminating NUL")
	}
	name := string(ent[nameOff : nameOff+int64(nul)])
	data := ent[dataOff:]
	switch {
	case typ == typeLong && vlen == 0:
		if len(data) < 8 {
			return 0, fmt.Errorf("%s: long value past the entry's end", name)
		}
		c.Longs[name] = int64(bo.Uint64(data))
	case typ == typeByte && vlen > 0:
		if vlen > int64(len(data)) {
			vlen = int64(len(data))
		}
		s := data[:vlen]
		if i := bytes.IndexByte(s, 0); i >= 0 {
			s = s[:i]
		}
		c.Strings[name] = string(s)
	}
	return off + length, nil
}

// Long returns a number counter, 0 when absent.
func (c *Counters) Long(name string) int64 { return c.Longs[name] }

// String returns a string counter, "" when absent.
func (c *Counters) String(name string) string { return c.Strings[name] }

// Ticks converts a counter in high-resolution ticks to a duration.
func (c *Counters) Ticks(name string) time.Duration {
	f := c.Long("sun.os.hrt.frequency")
	if f <= 0 {
		return 0
	}
	t := c.Long(name)
	return time.Duration(float64(t) / float64(f) * float64(time.Second))
}

// Heap is the heap's size from the GC's generation counters.
type Heap struct {
	Used, Capacity, Max int64 // bytes, over every generation
	// OldUsed and OldMax are the old generation's (generation 1): what
	// is left after a collection there is the live set.
	OldUsed, OldMax int64
	// Collections counts collections of every collector; it changes
	// exactly when a GC ran.
	Collections int64
}

// Heap sums the generations' spaces. HotSpot numbers them 0 (young) and
// 1 (old); ZGC and Shenandoah publish their heap as generation 0 or 1
// with one space.
func (c *Counters) Heap() Heap {
	var h Heap
	for g := 0; g < 4; g++ {
		p := "sun.gc.generation." + strconv.Itoa(g) + "."
		if _, ok := c.Longs[p+"capacity"]; !ok {
			continue
		}
		h.Capacity += c.Long(p + "capacity")
		if c.String("sun.gc.policy.name") == "GarbageFirst" {
			// G1's generations share the heap: each may grow to all of it.
			h.Max = max(h.Max, c.Long(p+"maxCapacity"))
		} else {
			h.Max += c.Long(p + "maxCapacity")
		}
		var used int64
		for s := 0; s < 8; s++ {
			u, ok := c.Longs[p+"space."+strconv.Itoa(s)+".used"]
			if !ok {
				break
			}
			used += u
		}
		h.Used += used
		if g == 1 {
			h.OldUsed, h.OldMax = used, c.Long(p+"maxCapacity")
		}
	}
	if c.String("sun.gc.policy.name") == "GarbageFirst" {
		// G1 pads each size by a few bytes so none reads 0; the heap is
		// page-aligned.
		h.Max &^= 4095
	}
	for k := 0; k < 8; k++ {
		v, ok := c.Longs["sun.gc.collector."+strconv.Itoa(k)+".invocations"]
		if !ok {
			continue
		}
		h.Collections += v
	}
	return h
}

// Attachable is the JVM's own answer to "does it accept attach": the
// first character of sun.rt.jvmCapabilities, '0' when the JVM runs
// with -XX:+DisableAttachMechanism. known is false when the counter
// is missing.
func (c *Counters) Attachable() (ok, known bool) {
	s, present := c.Strings["sun.rt.jvmCapabilities"]
	if !present || s == "" {
		return false, false
	}
	return s[0] == '1', true
}

// MainClass is the first word of sun.rt.javaCommand: the main class, or
// the jar for java -jar (then its base name without .jar).
func (c *Counters) MainClass() string {
	cmd := strings.TrimSpace(c.String("sun.rt.javaCommand"))
	first, _, _ := strings.Cut(cmd, " ")
	return first
}

// StartTime is when the JVM was created (sun.rt.createVmBeginTime, ms
// since the epoch); zero when unknown.
func (c *Counters) StartTime() time.Time {
	ms := c.Long("sun.rt.createVmBeginTime")
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// SystemProperty finds -Dname=value among the JVM's arguments
// (java.rt.vmArgs); the last one wins, as in the JVM.
func (c *Counters) SystemProperty(name string) (string, bool) {
	var v string
	var found bool
	for _, a := range strings.Fields(c.String("java.rt.vmArgs")) {
		if val, ok := strings.CutPrefix(a, "-D"+name+"="); ok {
			v, found = val, true
		}
	}
	return v, found
}
