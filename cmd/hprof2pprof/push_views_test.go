package main

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
	"google.golang.org/protobuf/proto"
)

// storeLike is a loopback OTLP/HTTP receiver that answers as Grafana
// Pyroscope does (CI cannot run Pyroscope): a request whose profiles it
// refuses gets 400 and the reason, and refuse decides per view.
func storeLike(t *testing.T, refuse func(view string) string) (url string, views func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		data, _ := io.ReadAll(body)
		req := &collectorpb.ExportProfilesServiceRequest{}
		if err := proto.Unmarshal(data, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var view string
		for _, rp := range req.ResourceProfiles {
			for _, sp := range rp.ScopeProfiles {
				for _, kv := range sp.GetScope().GetAttributes() {
					if kv.Key == "hprof.view" {
						if view != "" {
							http.Error(w, "test receiver: several views in one request", http.StatusBadRequest)
							return
						}
						view = kv.GetValue().GetStringValue()
					}
				}
			}
		}
		mu.Lock()
		seen = append(seen, view)
		mu.Unlock()
		if msg := refuse(view); msg != "" {
			http.Error(w, msg, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestPushReportsViews: one request per view; a refused view is named,
// the stored ones too, and the exit status is 3 (stored in part).
func TestPushReportsViews(t *testing.T) {
	url, seen := storeLike(t, func(view string) string {
		if view == "heap" {
			return "the profile with labels '{…}' exceeds the size limit (max_profile_size_byte, actual: 5000000, limit: 4194304)"
		}
		return ""
	})
	in := otlpFixtures(t)[2] // heap and threads
	code, stderr := runOTLPCLI(t, "push", "--endpoint", url, in)
	if code != exitPartial {
		t.Errorf("exit %d, want %d:\n%s", code, exitPartial, stderr)
	}
	if got := strings.Join(seen(), ","); got != "heap,threads" {
		t.Errorf("requests for views %s, want heap,threads", got)
	}
	for _, want := range []string{"view heap: not stored", "exceeds the size limit", "view threads: stored", "stored views threads; not stored: heap"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	url, _ = storeLike(t, func(string) string { return "refused" })
	if code, stderr := runOTLPCLI(t, "push", "--endpoint", url, in); code != exitFailure {
		t.Errorf("nothing stored: exit %d, want %d:\n%s", code, exitFailure, stderr)
	}
}

// TestPushNamesNow: a refusal for age tells the user about --now.
func TestPushNamesNow(t *testing.T) {
	url, _ := storeLike(t, func(string) string {
		return "profile with labels '{…}' is outside of ingestion window (profile timestamp: 2026-11-21 22:43:00.000, the ingestion window starts at 2026-11-22 14:00:00.000)"
	})
	code, stderr := runOTLPCLI(t, "push", "--endpoint", url, otlpFixtures(t)[0])
	if code != exitFailure || !strings.Contains(stderr, "--now") || !strings.Contains(stderr, "ingestion window") {
		t.Errorf("exit %d, stderr:\n%s\nwant 1, the backend's reason and --now", code, stderr)
	}
}
