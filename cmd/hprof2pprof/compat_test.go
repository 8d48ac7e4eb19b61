package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestForeignInputs: files that are not HPROF exit 1 with a message that
// says what they look like; an HPROF file with nothing to convert too.
func TestForeignInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for _, c := range []struct {
		file string
		says string
	}{
		// The first bytes of an IBM J9 PHD file (eclipse-mat test dump).
		{write("x.phd", append([]byte("\x00\x12portable heap dump\x00\x00\x00\x05\x00\x00\x00\x06\x01\x04\x00\x17J2RE 6.0 Windows"), make([]byte, 64)...)), "IBM Portable Heap Dump"},
		{write("x.jfr", []byte("FLR\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x10\x00")), "Flight Recorder"},
		{write("x.bin", random), "not an HPROF file (looks like binary data"},
		{write("histo.txt", []byte("   171       44312  [C\r\n    16       43536  [B\r\n    33       10032  <objArrayKlassKlass>\r\n   211        8272  [Ljava.lang.Object;\r\n")), "class histogram"},
		// jcmd PID GC.class_histogram (JDK 25): the PID line first, a
		// module after each class name, a Total row last.
		{write("histo3.txt", []byte("9945:\n num     #instances         #bytes  class name (module)\n-------------------------------------------------------\n   1:         13178         684256  [B (java.base@25.0.3)\n   2:             4         420448  [Ljdk.internal.vm.FillerElement; (java.base@25.0.3)\n   3:         12890         309360  java.lang.String (java.base@25.0.3)\nTotal         26072        1414064\n")), "class histogram"},
		{write("histo2.txt", []byte(" num     #instances         #bytes  class name\n----------------------------------------------\n   1:          4764         653024  <methodKlass>\n   2:          4764         587360  <constMethodKlass>\n   3:           330         367144  <constantPoolKlass>\n")), "class histogram"},
		// py-hprof's basic_reads test file: a 1.0.3 header and one record
		// with the unknown tag 0xFF.
		{write("basic.hprof", []byte("JAVA PROFILE 1.0.3\x00\x00\x00\x00\x04\x00\x00\x01\x68\x63\x54\x8c\x45\xff\x00\x00\x00\x00\x00\x00\x00\x0aabcdefghij")), "no record in this input makes a view"},
	} {
		code, stderr := runCLI(t, "convert", "-q", "-d", dir, c.file)
		if code != exitFailure || !strings.Contains(stderr, c.says) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 saying %q", filepath.Base(c.file), code, stderr, c.says)
		}
	}
}

// TestBzip2: a bzip2-compressed file converts to the same views as the
// file itself.
func TestBzip2(t *testing.T) {
	dir := t.TempDir()
	for _, in := range []string{"../../testdata/cpu-samples.cpuwork.jdk17.hprof", "../../testdata/cpu-samples.cpuwork.jdk17.hprof.bz2"} {
		out := filepath.Join(dir, filepath.Base(in)+".pb.gz")
		if code, stderr := runCLI(t, "convert", "-q", "--view", "cpu", "-o", out, in); code != exitOK {
			t.Fatalf("%s: exit %d: %s", in, code, stderr)
		}
	}
	top := func(p string) string {
		b, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=20", p).Output()
		if err != nil {
			t.Skipf("go tool pprof: %v", err)
		}
		// Drop the File: line, which names the input.
		var keep []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "File:") && !strings.HasPrefix(l, "source:") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	a, b := top(filepath.Join(dir, "cpu-samples.cpuwork.jdk17.hprof.pb.gz")), top(filepath.Join(dir, "cpu-samples.cpuwork.jdk17.hprof.bz2.pb.gz"))
	if a != b {
		t.Errorf("bzip2 input differs:\n%s\n---\n%s", a, b)
	}
}

// TestMappingFlag: --mapping renames obfuscated classes; a bad mapping
// file is a usage error.
func TestMappingFlag(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.map")
	os.WriteFile(bad, []byte("    void orphan() -> a\n"), 0o644)
	if code, stderr := runCLI(t, "convert", "-q", "--mapping", bad, "-d", dir, "../../testdata/ahat-test-dump.hprof.gz"); code != exitUsage || !strings.Contains(stderr, "line 1") {
		t.Errorf("bad mapping: exit %d, %q", code, stderr)
	}
	if code, stderr := runCLI(t, "convert", "-q", "--mapping", filepath.Join(dir, "missing.map"), "-d", dir, "../../testdata/ahat-test-dump.hprof.gz"); code != exitUsage || !strings.Contains(stderr, "missing.map") {
		t.Errorf("missing mapping: exit %d, %q", code, stderr)
	}
	out := filepath.Join(dir, "heap.pb.gz")
	if code, stderr := runCLI(t, "convert", "-q", "--mapping", "../../testdata/mappings/ahat-test-dump.map", "--view", "heap", "-o", out, "../../testdata/ahat-test-dump.hprof.gz"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=3", out).Output()
	if err != nil {
		t.Skipf("go tool pprof: %v", err)
	}
	// The map's line "DumpedStuff$StackSmasher -> o:" names the second
	// largest class of the dump (the oracle calls it o).
	if !strings.Contains(string(b), "DumpedStuff$StackSmasher") {
		t.Errorf("pprof -top lacks DumpedStuff$StackSmasher:\n%s", b)
	}
}
