package hsperf

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// entry builds one PerfDataEntry (little-endian).
func entry(name string, typ byte, vlen int, data []byte) []byte {
	nameOff := 20
	dataOff := nameOff + len(name) + 1
	for dataOff%8 != 0 {
		dataOff++
	}
	length := dataOff + len(data)
	b := make([]byte, length)
	binary.LittleEndian.PutUint32(b[0:], uint32(length))
	binary.LittleEndian.PutUint32(b[4:], uint32(nameOff))
	binary.LittleEndian.PutUint32(b[8:], uint32(vlen))
	b[12] = typ
	binary.LittleEndian.PutUint32(b[16:], uint32(dataOff))
	copy(b[nameOff:], name)
	copy(b[dataOff:], data)
	return b
}

func long(name string, v int64) []byte {
	d := make([]byte, 8)
	binary.LittleEndian.PutUint64(d, uint64(v))
	return entry(name, 'J', 0, d)
}

func str(name, v string, size int) []byte {
	d := make([]byte, size)
	copy(d, v)
	return entry(name, 'B', size, d)
}

// file builds a performance data file from entries.
func file(entries ...[]byte) []byte {
	b := make([]byte, 32)
	binary.BigEndian.PutUint32(b, magic)
	b[4], b[5], b[6], b[7] = 1, 2, 0, 1
	binary.LittleEndian.PutUint32(b[24:], 32)
	binary.LittleEndian.PutUint32(b[28:], uint32(len(entries)))
	for _, e := range entries {
		b = append(b, e...)
	}
	return b
}

func TestParse(t *testing.T) {
	b := file(
		long("sun.os.hrt.frequency", 1_000_000_000),
		long("sun.rt.safepointTime", 250_000_000),
		str("sun.rt.javaCommand", "com.example.Main --port 8080", 64),
		str("sun.rt.jvmCapabilities", "1000000000000000000000000000000000000000000000000000000000000000", 64),
		str("java.rt.vmArgs", "-Xmx1g -Dotel.service.name=a -Dotel.service.name=checkout", 64),
		str("sun.gc.policy.name", "ParallelGC", 32),
		long("sun.gc.generation.0.capacity", 100), long("sun.gc.generation.0.maxCapacity", 300),
		long("sun.gc.generation.0.space.0.used", 10), long("sun.gc.generation.0.space.1.used", 5),
		long("sun.gc.generation.1.capacity", 200), long("sun.gc.generation.1.maxCapacity", 700),
		long("sun.gc.generation.1.space.0.used", 150),
		long("sun.gc.collector.0.invocations", 7), long("sun.gc.collector.1.invocations", 2),
	)
	c, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Ticks("sun.rt.safepointTime"); got != 250*time.Millisecond {
		t.Errorf("safepoint time %v", got)
	}
	if c.MainClass() != "com.example.Main" {
		t.Errorf("main %q", c.MainClass())
	}
	if v, ok := c.SystemProperty("otel.service.name"); !ok || v != "checkout" {
		t.Errorf("otel.service.name %q %v: the last -D wins", v, ok)
	}
	if ok, known := c.Attachable(); !ok || !known {
		t.Errorf("attachable %v %v", ok, known)
	}
	h := c.Heap()
	want := Heap{Used: 165, Capacity: 300, Max: 1000, OldUsed: 150, OldMax: 700, Collections: 9}
	if h != want {
		t.Errorf("heap %+v, want %+v", h, want)
	}
}

// TestParseMalformed: every broken file gives ErrFormat naming where.
func TestParseMalformed(t *testing.T) {
	good := file(long("a", 1))
	cases := map[string][]byte{
		"short":          good[:10],
		"magic":          append([]byte{0, 0, 0, 0}, good[4:]...),
		"byte order":     func() []byte { b := append([]byte{}, good...); b[4] = 7; return b }(),
		"version":        func() []byte { b := append([]byte{}, good...); b[5] = 1; return b }(),
		"too many":       func() []byte { b := append([]byte{}, good...); binary.LittleEndian.PutUint32(b[28:], 1<<30); return b }(),
		"entry offset":   func() []byte { b := append([]byte{}, good...); binary.LittleEndian.PutUint32(b[24:], 1<<31); return b }(),
		"entry length":   func() []byte { b := append([]byte{}, good...); binary.LittleEndian.PutUint32(b[32:], 1<<31); return b }(),
		"zero length":    func() []byte { b := append([]byte{}, good...); binary.LittleEndian.PutUint32(b[32:], 0); return b }(),
		"name offset":    func() []byte { b := append([]byte{}, good...); binary.LittleEndian.PutUint32(b[36:], 1<<20); return b }(),
		"no NUL in name": func() []byte { b := append([]byte{}, good...); b[52] = 'x'; b[53] = 'x'; return b[:54] }(),
	}
	for name, b := range cases {
		_, err := Parse(b)
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(file(long("a", 1), str("b", "x", 8)))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b)
		if err == nil {
			c.Heap()
			c.MainClass()
		}
	})
}

// TestRealJVM: the counters of a running JDK 17 JVM read as jcmd's
// VM.version and the JVM's -Xmx say.
func TestRealJVM(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "Park.java")
	os.WriteFile(src, []byte(`public class Park { public static void main(String[] a) throws Exception { System.out.println("READY"); System.out.flush(); Thread.sleep(60000); } }`), 0o644)
	cmd := exec.Command(java, "-Xmx40m", "-XX:+UseSerialGC", src)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	m, _ := filepath.Glob("/tmp/hsperfdata_*/" + strconv.Itoa(cmd.Process.Pid))
	if len(m) != 1 {
		t.Fatalf("no performance data file for pid %d", cmd.Process.Pid)
	}
	c, err := ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	if h := c.Heap(); h.Max != 40<<20 || h.Used <= 0 {
		t.Errorf("heap %+v, want max %d (-Xmx40m, SerialGC) and some use", h, 40<<20)
	}
	if !strings.HasPrefix(c.String("java.property.java.version"), "1") {
		t.Errorf("java.version %q", c.String("java.property.java.version"))
	}
}
