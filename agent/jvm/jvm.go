// Package jvm finds the HotSpot JVMs on this machine, containers
// included, and describes one: main class, JDK version, heap, user,
// container, service name. It reads /proc and the JVMs' performance data
// files (hsperfdata) and never attaches.
//
// A JVM in a container keeps its performance data in its own /tmp; it is
// read through /proc/PID/root, under the JVM's PID in its namespace.
package jvm

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent/attach"
	"github.com/hprof2pprof/hprof2pprof/agent/hsperf"
)

// Info describes one JVM.
type Info struct {
	PID   int    `json:"pid"`   // in our PID namespace
	NSPID int    `json:"nspid"` // in its own
	UID   int    `json:"uid"`
	User  string `json:"user,omitempty"`
	// MainClass is the main class, or the jar of java -jar.
	MainClass string `json:"main_class,omitempty"`
	Command   string `json:"command,omitempty"` // argv[0]
	// JavaCommand is the main class (or jar) and its arguments
	// (sun.rt.javaCommand); not listed, as arguments may hold secrets.
	JavaCommand string `json:"-"`
	JavaVersion string `json:"java_version,omitempty"`
	VMName      string `json:"vm_name,omitempty"`
	VMVersion   string `json:"vm_version,omitempty"`
	// RuntimeName and RuntimeVersion are java.runtime.name and
	// java.runtime.version, known once attached (system properties).
	RuntimeName    string `json:"runtime_name,omitempty"`
	RuntimeVersion string `json:"runtime_version,omitempty"`
	HeapUsed       int64  `json:"heap_used"`
	HeapMax        int64  `json:"heap_max"`
	// Attachable is false when the JVM runs with
	// -XX:+DisableAttachMechanism.
	Attachable  bool      `json:"attachable"`
	ContainerID string    `json:"container_id,omitempty"`
	ServiceName string    `json:"service_name,omitempty"` // from otel.service.name / OTEL_SERVICE_NAME; "" when neither
	Started     time.Time `json:"started,omitzero"`
	// PerfData is the performance data file as seen from here; "" when
	// the JVM runs with -XX:-UsePerfData.
	PerfData string `json:"perf_data,omitempty"`
}

// PerfDataPath finds the JVM's performance data file: hsperfdata_<user>/
// <nspid> in its /tmp. It returns "" when there is none, and when the
// process does not map it: a JVM killed (SIGKILL, a crash) leaves its
// file behind until another JVM of its user starts, and a later process
// of the same PID, a JVM with -XX:-UsePerfData or no JVM at all, must
// not be described by the dead one's counters.
func PerfDataPath(t *attach.Target) string {
	m, _ := filepath.Glob(t.Path("/tmp/hsperfdata_*/" + strconv.Itoa(t.NSPID)))
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && mapsPath(t.PID, strings.TrimPrefix(p, t.Root)) {
			return p
		}
	}
	return ""
}

// mapsPath reports whether process pid maps the file at path (as the
// process names it, inside its own mount namespace). The path, not the
// device and inode: on an overlay file system (a container's /tmp) the
// maps name the layer's inode, not the one stat sees.
func mapsPath(pid int, path string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return false
	}
	// "start-end perms offset dev inode   path"
	for line := range strings.Lines(string(b)) {
		if strings.HasSuffix(strings.TrimRight(line, "\n"), " "+path) {
			return true
		}
	}
	return false
}

// List returns the JVMs that publish performance data, by PID. Processes
// we may not look into are skipped. Each mount namespace's /tmp is read
// once, so a host with many processes costs a status read per process and
// a directory listing per namespace.
func List() ([]*Info, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	perf := map[string]map[int]string{} // mount namespace → nspid → file (as seen through the first process's root)
	var out []*Info
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", pid))
		if err != nil {
			continue
		}
		files, ok := perf[ns]
		if !ok {
			files = perfFiles(fmt.Sprintf("/proc/%d/root", pid))
			perf[ns] = files
		}
		if len(files) == 0 {
			continue
		}
		t, err := attach.Resolve(pid)
		if err != nil || files[t.NSPID] == "" {
			continue
		}
		// Read it through this process's own root: the first process
		// of the namespace may be gone by now.
		p := PerfDataPath(t)
		if p == "" {
			continue
		}
		if info, err := describe(t, p); err == nil {
			out = append(out, info)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out, nil
}

// perfFiles lists the performance data files under root's /tmp by PID.
func perfFiles(root string) map[int]string {
	m := map[int]string{}
	files, _ := filepath.Glob(filepath.Join(root, "tmp", "hsperfdata_*", "*"))
	for _, f := range files {
		if n, err := strconv.Atoi(filepath.Base(f)); err == nil {
			m[n] = f
		}
	}
	return m
}

// Describe describes the JVM with this PID; without performance data
// it says what /proc says.
func Describe(t *attach.Target) (*Info, error) {
	return describe(t, PerfDataPath(t))
}

func describe(t *attach.Target, perf string) (*Info, error) {
	info := &Info{PID: t.PID, NSPID: t.NSPID, UID: t.UID, Attachable: true, PerfData: perf}
	if u, err := user.LookupId(strconv.Itoa(t.UID)); err == nil {
		info.User = u.Username
	}
	args := cmdline(t.PID)
	if len(args) > 0 {
		info.Command = args[0]
	}
	info.ContainerID = ContainerID(t.PID)
	env := environ(t.PID)
	if perf != "" {
		c, err := hsperf.ReadFile(perf)
		if err != nil {
			return nil, err
		}
		info.fromCounters(c)
	} else {
		info.MainClass = mainFromArgs(args)
		info.JavaCommand = strings.Join(args, " ")
		for _, a := range args {
			if a == "-XX:+DisableAttachMechanism" {
				info.Attachable = false
			}
			if v, ok := strings.CutPrefix(a, "-Dotel.service.name="); ok {
				info.ServiceName = v
			}
		}
	}
	if info.ServiceName == "" {
		info.ServiceName = serviceFromEnv(env)
	}
	return info, nil
}

func (info *Info) fromCounters(c *hsperf.Counters) {
	info.MainClass = c.MainClass()
	info.JavaCommand = c.String("sun.rt.javaCommand")
	info.JavaVersion = c.String("java.property.java.version")
	info.VMName = c.String("java.property.java.vm.name")
	info.VMVersion = c.String("java.property.java.vm.version")
	h := c.Heap()
	info.HeapUsed, info.HeapMax = h.Used, h.Max
	if ok, known := c.Attachable(); known {
		info.Attachable = ok
	}
	if v, ok := c.SystemProperty("otel.service.name"); ok {
		info.ServiceName = v
	}
	info.Started = c.StartTime()
}

// Service is service.name for this JVM: otel.service.name or
// OTEL_SERVICE_NAME, else its main class (a jar's base name).
func (info *Info) Service() string {
	if info.ServiceName != "" {
		return info.ServiceName
	}
	m := info.MainClass
	if strings.HasSuffix(m, ".jar") {
		m = strings.TrimSuffix(filepath.Base(m), ".jar")
	}
	if m == "" {
		return "unknown_service:java"
	}
	return m
}

func cmdline(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

func environ(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// serviceFromEnv reads OTEL_SERVICE_NAME, else service.name in
// OTEL_RESOURCE_ATTRIBUTES, as the OpenTelemetry SDKs do.
func serviceFromEnv(env []string) string {
	var attrs string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "OTEL_SERVICE_NAME="); ok && v != "" {
			return v
		}
		if v, ok := strings.CutPrefix(kv, "OTEL_RESOURCE_ATTRIBUTES="); ok {
			attrs = v
		}
	}
	for _, p := range strings.Split(attrs, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(p), "service.name="); ok {
			return v
		}
	}
	return ""
}

// mainFromArgs finds the main class (or -jar FILE) in a java command
// line, for JVMs without performance data.
func mainFromArgs(args []string) string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-jar" && i+1 < len(args):
			return args[i+1]
		case a == "-cp" || a == "-classpath" || a == "--class-path" || a == "-p" || a == "--module-path" || a == "--add-opens" || a == "--add-exports":
			i++
		case a == "-m" || a == "--module":
			if i+1 < len(args) {
				return args[i+1]
			}
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

var containerIDRe = regexp.MustCompile(`[0-9a-f]{64}`)

// ContainerID is the container's ID when the process's cgroup names one
// (Docker, containerd, CRI-O, Podman write the 64-hex ID in the path);
// "" otherwise.
func ContainerID(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return ""
	}
	return containerIDFrom(b)
}

func containerIDFrom(cgroup []byte) string {
	var id string
	for _, line := range bytes.Split(cgroup, []byte("\n")) {
		if m := containerIDRe.FindAll(line, -1); len(m) > 0 {
			id = string(m[len(m)-1])
		}
	}
	return id
}

// Counters reads the JVM's performance data now.
func Counters(t *attach.Target) (*hsperf.Counters, error) {
	p := PerfDataPath(t)
	if p == "" {
		return nil, fmt.Errorf("pid %d: no performance data (-XX:-UsePerfData?): %w", t.PID, fs.ErrNotExist)
	}
	return hsperf.ReadFile(p)
}
