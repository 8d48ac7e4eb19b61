package agent

import (
	"log/slog"
	"sync/atomic"
)

// Metrics are the server's counters. Read them with Snapshot; they only
// grow, except Active.
type Metrics struct {
	Connections atomic.Int64 // accepted
	Active      atomic.Int64 // open now
	Rejected    atomic.Int64 // refused by --max-conns
	Failed      atomic.Int64 // connections closed for a bad or hostile stream
	Bytes       atomic.Int64 // stream bytes received
	Windows     atomic.Int64 // windows cut
	Exported    atomic.Int64 // window exports that reached a backend (per exporter)
	ExportFail  atomic.Int64 // window exports lost (per exporter)
	Spilled     atomic.Int64 // window exports spilled to disk (per exporter)
	Respooled   atomic.Int64 // spilled windows delivered later
	Captures    atomic.Int64 // heap dumps taken through attach (partial ones too)
	CaptureFail atomic.Int64 // heap dumps that could not be taken
	PauseMillis atomic.Int64 // time the captured JVMs were stopped, summed
	Watched     atomic.Int64 // heap dumps picked up from --watch
}

// Snapshot is a copy of the counters.
type Snapshot struct {
	Connections, Active, Rejected, Failed, Bytes      int64
	Windows, Exported, ExportFail, Spilled, Respooled int64
	Captures, CaptureFail, PauseMillis, Watched       int64
}

// Snapshot reads every counter.
func (m *Metrics) Snapshot() Snapshot {
	return Snapshot{
		Connections: m.Connections.Load(), Active: m.Active.Load(), Rejected: m.Rejected.Load(),
		Failed: m.Failed.Load(), Bytes: m.Bytes.Load(), Windows: m.Windows.Load(),
		Exported: m.Exported.Load(), ExportFail: m.ExportFail.Load(), Spilled: m.Spilled.Load(),
		Respooled: m.Respooled.Load(), Captures: m.Captures.Load(), CaptureFail: m.CaptureFail.Load(),
		PauseMillis: m.PauseMillis.Load(), Watched: m.Watched.Load(),
	}
}

// LogValue logs the counters as a group.
func (s Snapshot) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Int64("connections", s.Connections), slog.Int64("active", s.Active),
		slog.Int64("rejected", s.Rejected), slog.Int64("failed", s.Failed), slog.Int64("bytes", s.Bytes),
		slog.Int64("windows", s.Windows), slog.Int64("exported", s.Exported),
		slog.Int64("export_failed", s.ExportFail), slog.Int64("spilled", s.Spilled),
		slog.Int64("respooled", s.Respooled), slog.Int64("captures", s.Captures),
		slog.Int64("captures_failed", s.CaptureFail), slog.Int64("capture_pause_ms", s.PauseMillis),
		slog.Int64("dumps_watched", s.Watched),
	)
}
