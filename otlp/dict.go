package otlp

import (
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	profilespb "go.opentelemetry.io/proto/otlp/profiles/v1development"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// dict interns the tables of one ProfilesDictionary. Every table starts
// with its zero value, so index 0 means "none" wherever an index is used.
type dict struct {
	d *profilespb.ProfilesDictionary

	strings   map[string]int32
	functions map[funcKey]int32
	locations map[locKey]int32
	stacks    map[string]int32
	attrs     map[attrKey]int32
}

type funcKey struct {
	name, system, file int32
}

type locKey struct {
	fn   int32
	line int64
	attr int32
}

// attrKey identifies an attribute by its key, unit and value. Only string
// and int values are interned; other values are never shared.
type attrKey struct {
	key, unit int32
	isInt     bool
	str       string
	num       int64
}

func newDict() *dict {
	return &dict{
		d: &profilespb.ProfilesDictionary{
			MappingTable:   []*profilespb.Mapping{{}},
			LocationTable:  []*profilespb.Location{{}},
			FunctionTable:  []*profilespb.Function{{}},
			LinkTable:      []*profilespb.Link{{}},
			StringTable:    []string{""},
			AttributeTable: []*profilespb.KeyValueAndUnit{{}},
			StackTable:     []*profilespb.Stack{{}},
		},
		strings:   map[string]int32{"": 0},
		functions: map[funcKey]int32{},
		locations: map[locKey]int32{},
		stacks:    map[string]int32{"": 0},
		attrs:     map[attrKey]int32{},
	}
}

// str interns s in the string table.
func (d *dict) str(s string) int32 {
	if i, ok := d.strings[s]; ok {
		return i
	}
	i := int32(len(d.d.StringTable))
	d.d.StringTable = append(d.d.StringTable, s)
	d.strings[s] = i
	return i
}

// attrStr interns a string attribute.
func (d *dict) attrStr(key, value string) int32 {
	k := attrKey{key: d.str(key), str: value}
	if i, ok := d.attrs[k]; ok {
		return i
	}
	i := int32(len(d.d.AttributeTable))
	d.d.AttributeTable = append(d.d.AttributeTable, &profilespb.KeyValueAndUnit{
		KeyStrindex: k.key,
		Value:       &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: value}},
	})
	d.attrs[k] = i
	return i
}

// attrInt interns an integer attribute with an optional unit.
func (d *dict) attrInt(key string, value int64, unit string) int32 {
	k := attrKey{key: d.str(key), unit: d.str(unit), isInt: true, num: value}
	if i, ok := d.attrs[k]; ok {
		return i
	}
	i := int32(len(d.d.AttributeTable))
	d.d.AttributeTable = append(d.d.AttributeTable, &profilespb.KeyValueAndUnit{
		KeyStrindex:  k.key,
		UnitStrindex: k.unit,
		Value:        &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: value}},
	})
	d.attrs[k] = i
	return i
}

// attrValue appends an attribute with an arbitrary value (not interned).
func (d *dict) attrValue(key string, v *commonpb.AnyValue) int32 {
	i := int32(len(d.d.AttributeTable))
	d.d.AttributeTable = append(d.d.AttributeTable, &profilespb.KeyValueAndUnit{KeyStrindex: d.str(key), Value: v})
	return i
}

// function interns the function a frame names.
func (d *dict) function(f graph.Frame) int32 {
	k := funcKey{name: d.str(f.Function()), system: d.str(f.SystemName()), file: d.str(f.File)}
	if i, ok := d.functions[k]; ok {
		return i
	}
	i := int32(len(d.d.FunctionTable))
	d.d.FunctionTable = append(d.d.FunctionTable, &profilespb.Function{
		NameStrindex:       k.name,
		SystemNameStrindex: k.system,
		FilenameStrindex:   k.file,
	})
	d.functions[k] = i
	return i
}

// location interns the location of a frame: no mapping, no address, one
// line naming the function, and the frame type attribute.
func (d *dict) location(f graph.Frame) int32 {
	k := locKey{fn: d.function(f), attr: d.attrStr(attrFrameType, frameTypeJVM)}
	if f.Line > 0 {
		k.line = int64(f.Line)
	}
	if i, ok := d.locations[k]; ok {
		return i
	}
	i := int32(len(d.d.LocationTable))
	d.d.LocationTable = append(d.d.LocationTable, &profilespb.Location{
		Lines:            []*profilespb.Line{{FunctionIndex: k.fn, Line: k.line}},
		AttributeIndices: []int32{k.attr},
	})
	d.locations[k] = i
	return i
}

// stack interns a stack given as location indices, leaf first.
func (d *dict) stack(locs []int32) int32 {
	if len(locs) == 0 {
		return 0
	}
	b := make([]byte, 0, 4*len(locs))
	for _, l := range locs {
		b = append(b, byte(l), byte(l>>8), byte(l>>16), byte(l>>24))
	}
	if i, ok := d.stacks[string(b)]; ok {
		return i
	}
	i := int32(len(d.d.StackTable))
	d.d.StackTable = append(d.d.StackTable, &profilespb.Stack{LocationIndices: append([]int32(nil), locs...)})
	d.stacks[string(b)] = i
	return i
}
