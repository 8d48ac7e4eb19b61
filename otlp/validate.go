package otlp

import (
	"errors"
	"fmt"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
	profilespb "go.opentelemetry.io/proto/otlp/profiles/v1development"
	"google.golang.org/protobuf/proto"
)

// ErrInvalid means a request breaks the profiles data model: an index out
// of range, a dictionary table whose entry 0 is not the zero value, a
// sample whose values and timestamps disagree. Receivers such as the
// Collector do not check these; Validate does.
var ErrInvalid = errors.New("otlp: invalid profiles request")

// Validate checks every index in req against the shared dictionary and
// the dictionary's zero entries. The error names the first bad field.
func Validate(req *collectorpb.ExportProfilesServiceRequest) error {
	d := req.GetDictionary()
	if d == nil {
		return fmt.Errorf("%w: no dictionary", ErrInvalid)
	}
	v := validator{d: d}
	v.zero()
	for i, f := range d.FunctionTable {
		v.str(f.NameStrindex, "function_table[%d].name_strindex", i)
		v.str(f.SystemNameStrindex, "function_table[%d].system_name_strindex", i)
		v.str(f.FilenameStrindex, "function_table[%d].filename_strindex", i)
	}
	for i, m := range d.MappingTable {
		v.str(m.FilenameStrindex, "mapping_table[%d].filename_strindex", i)
		v.attrs(m.AttributeIndices, "mapping_table[%d]", i)
	}
	for i, l := range d.LocationTable {
		v.index(l.MappingIndex, len(d.MappingTable), "location_table[%d].mapping_index", i)
		for j, ln := range l.Lines {
			v.index(ln.FunctionIndex, len(d.FunctionTable), "location_table[%d].lines[%d].function_index", i, j)
		}
		v.attrs(l.AttributeIndices, "location_table[%d]", i)
	}
	for i, s := range d.StackTable {
		for j, l := range s.LocationIndices {
			v.index(l, len(d.LocationTable), "stack_table[%d].location_indices[%d]", i, j)
		}
	}
	for i, a := range d.AttributeTable {
		v.str(a.KeyStrindex, "attribute_table[%d].key_strindex", i)
		v.str(a.UnitStrindex, "attribute_table[%d].unit_strindex", i)
	}
	for r, rp := range req.ResourceProfiles {
		for s, sp := range rp.ScopeProfiles {
			for p, prof := range sp.Profiles {
				v.profile(prof, r, s, p)
			}
		}
	}
	return v.err
}

type validator struct {
	d   *profilespb.ProfilesDictionary
	err error
}

func (v *validator) fail(format string, args ...any) {
	if v.err == nil {
		v.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
	}
}

func (v *validator) index(i int32, n int, what string, args ...any) {
	if i < 0 || int(i) >= n {
		v.fail(what+" = %d, table has %d entries", append(args, i, n)...)
	}
}

func (v *validator) str(i int32, what string, args ...any) {
	v.index(i, len(v.d.StringTable), what, args...)
}

func (v *validator) attrs(idx []int32, what string, args ...any) {
	for j, a := range idx {
		v.index(a, len(v.d.AttributeTable), what+".attribute_indices[%d]", append(args, j)...)
	}
}

// zero checks that every table exists and starts with its zero value.
func (v *validator) zero() {
	d := v.d
	if len(d.StringTable) == 0 || d.StringTable[0] != "" {
		v.fail("string_table[0] must be the empty string")
	}
	zeroFirst(v, "mapping_table", d.MappingTable)
	zeroFirst(v, "location_table", d.LocationTable)
	zeroFirst(v, "function_table", d.FunctionTable)
	zeroFirst(v, "link_table", d.LinkTable)
	zeroFirst(v, "attribute_table", d.AttributeTable)
	zeroFirst(v, "stack_table", d.StackTable)
}

// zeroFirst checks that table[0] exists and equals the message's zero
// value.
func zeroFirst[T proto.Message](v *validator, name string, table []T) {
	if len(table) == 0 {
		v.fail("%s is empty: entry 0 must be the zero value", name)
		return
	}
	if proto.Size(table[0]) != 0 {
		v.fail("%s[0] is not the zero value", name)
	}
}

func (v *validator) profile(p *profilespb.Profile, r, s, i int) {
	where := fmt.Sprintf("resource_profiles[%d].scope_profiles[%d].profiles[%d]", r, s, i)
	if p.SampleType == nil {
		v.fail("%s has no sample_type", where)
	} else {
		v.str(p.SampleType.TypeStrindex, where+".sample_type.type_strindex")
		v.str(p.SampleType.UnitStrindex, where+".sample_type.unit_strindex")
	}
	if p.PeriodType != nil {
		v.str(p.PeriodType.TypeStrindex, where+".period_type.type_strindex")
		v.str(p.PeriodType.UnitStrindex, where+".period_type.unit_strindex")
	}
	v.attrs(p.AttributeIndices, where)
	for j, smp := range p.Samples {
		sw := fmt.Sprintf("%s.samples[%d]", where, j)
		v.index(smp.StackIndex, len(v.d.StackTable), sw+".stack_index")
		v.index(smp.LinkIndex, len(v.d.LinkTable), sw+".link_index")
		v.attrs(smp.AttributeIndices, sw)
		if len(smp.Values) == 0 && len(smp.TimestampsUnixNano) == 0 {
			v.fail("%s has neither values nor timestamps", sw)
		}
		if len(smp.Values) > 0 && len(smp.TimestampsUnixNano) > 0 && len(smp.Values) != len(smp.TimestampsUnixNano) {
			v.fail("%s has %d values but %d timestamps", sw, len(smp.Values), len(smp.TimestampsUnixNano))
		}
	}
}
