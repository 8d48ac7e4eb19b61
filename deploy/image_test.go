// Package deploy holds the container image recipe and the Kubernetes Job
// of docs/fleet.md; this test checks what the recipe builds.
package deploy

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestFleetImageBinary: the Dockerfile's build command gives a static
// binary (no interpreter, no shared libraries), which the distroless
// static image needs.
func TestFleetImageBinary(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^RUN (CGO_ENABLED=0 go build .*) -o /out/hprof2pprof (\./cmd/hprof2pprof)$`).FindStringSubmatch(string(data))
	if m == nil {
		t.Fatal("no static go build line in deploy/Dockerfile")
	}
	out := filepath.Join(t.TempDir(), "hprof2pprof")
	cmd := exec.Command("sh", "-c", m[1]+" -o "+out+" "+m[2])
	cmd.Dir = ".."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", m[1], err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary asks for a dynamic loader")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs %v", libs)
	}
	if b, err := exec.Command(out, "version").CombinedOutput(); err != nil {
		t.Errorf("%s version: %v\n%s", out, err, b)
	}
}
