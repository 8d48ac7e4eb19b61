package otlp_test

import (
	"context"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

// A lambda frame's function is named as the profile is (normalised) and
// keeps the JVM's exact name as its system name, one function per exact
// name.
func TestLambdaSystemNames(t *testing.T) {
	g, err := convert.ConvertFile(context.Background(), "../testdata/cpu-samples.cpuwork.jdk17.txt", convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	req, err := otlp.Build([]*graph.Graph{g}, otlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := req.Dictionary
	systems := map[string]bool{}
	for _, f := range d.FunctionTable[1:] {
		if d.StringTable[f.NameStrindex] == "CpuWork$$Lambda.run" {
			systems[d.StringTable[f.SystemNameStrindex]] = true
		}
	}
	for _, want := range []string{"CpuWork$$Lambda$42.0x00000007c00c1670.run", "CpuWork$$Lambda$43.0x00000007c00c1898.run"} {
		if !systems[want] {
			t.Errorf("no function CpuWork$$Lambda.run with system name %s (have %v)", want, systems)
		}
	}
}
