package heaprows

import (
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

func TestRootKind(t *testing.T) {
	for tag, want := range map[hprof.SubTag]string{
		hprof.RootJavaFrame:    "java frame",
		hprof.RootJNIGlobal:    "jni global",
		hprof.RootThreadObject: "thread object",
		hprof.RootStickyClass:  "sticky class",
	} {
		if got := RootKind(tag); got != want {
			t.Errorf("RootKind(%v) = %q, want %q", tag, got, want)
		}
	}
}
