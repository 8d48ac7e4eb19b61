package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"
)

// Config configures a Server. Zero values take the defaults.
type Config struct {
	Addr        string        // listen address; default DefaultAddr
	MaxConns    int           // concurrent JVMs; default 64
	Interval    time.Duration // window length; default 10s
	CPUInterval time.Duration // the agent's sampling interval (cpu/nanoseconds); default 10ms
	RawNames    bool          // keep hidden and lambda class names as written (convert.Options.RawNames)
	Labels      map[string]string
	Exporters   []Exporter
	Logger      *slog.Logger
	Metrics     *Metrics

	MaxRecord    uint32        // per record body; default convert.DefaultMaxRecord
	MaxState     int64         // per connection; default convert.DefaultMaxState
	MaxTextBytes int64         // a text stream is parsed at its end; default 64 MiB
	Grace        time.Duration // on shutdown, how long to wait for the JVMs' last answers; default 2s
	ExportWait   time.Duration // bound on one window's exports; default 30s
	// HeaderTimeout bounds how long a new connection may take to send
	// its header; default 10s.
	HeaderTimeout time.Duration
	// StatsInterval is how often the counters are logged (one "stats"
	// line at Info); zero or less: only at exit.
	StatsInterval time.Duration
}

// DefaultAddr is the listen address when none is given: loopback only.
const DefaultAddr = "127.0.0.1:9931"

func (c *Config) defaults() {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.MaxConns <= 0 {
		c.MaxConns = 64
	}
	if c.Interval <= 0 {
		c.Interval = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Metrics == nil {
		c.Metrics = &Metrics{}
	}
	if c.MaxTextBytes <= 0 {
		c.MaxTextBytes = 64 << 20
	}
	if c.Grace <= 0 {
		c.Grace = 2 * time.Second
	}
	if c.HeaderTimeout <= 0 {
		c.HeaderTimeout = 10 * time.Second
	}
	if c.ExportWait <= 0 {
		c.ExportWait = 30 * time.Second
	}
}

// Server accepts JVM connections and exports their windows.
type Server struct {
	cfg Config
	log *slog.Logger
	m   *Metrics
	ln  net.Listener
	sem chan struct{}
	wg  sync.WaitGroup
}

// NewServer checks cfg; it does not listen yet.
func NewServer(cfg Config) (*Server, error) {
	cfg.defaults()
	if len(cfg.Exporters) == 0 {
		return nil, errors.New("agent: no exporter configured")
	}
	return &Server{cfg: cfg, log: cfg.Logger, m: cfg.Metrics, sem: make(chan struct{}, cfg.MaxConns)}, nil
}

// Metrics are the server's counters.
func (s *Server) Metrics() *Metrics { return s.m }

// Listen binds the address, warning loudly when it is not loopback: the
// protocol has no authentication.
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.ln = ln
	if !isLoopback(ln.Addr()) {
		s.log.Warn("LISTENING ON A NON-LOOPBACK ADDRESS: the hprof agent protocol has no authentication; anyone who can connect can feed data into your profiles",
			"addr", ln.Addr().String())
	}
	s.log.Info("listening", "addr", ln.Addr().String(), "interval", s.cfg.Interval, "max_conns", s.cfg.MaxConns)
	return nil
}

// Addr is the bound address (after Listen).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// Serve accepts connections until ctx ends, then asks every JVM for its
// last answers (for up to Grace), exports every pending window (for up
// to ExportWait) and returns.
func (s *Server) Serve(ctx context.Context) error {
	if s.ln == nil {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	stop := context.AfterFunc(ctx, func() { s.ln.Close() })
	defer stop()
	if s.cfg.StatsInterval > 0 {
		statsDone := make(chan struct{})
		defer close(statsDone)
		go s.logStats(s.cfg.StatsInterval, statsDone)
	}
	var err error
	for {
		conn, aerr := s.ln.Accept()
		if aerr != nil {
			if ctx.Err() == nil {
				err = aerr
			}
			break
		}
		s.m.Connections.Add(1)
		select {
		case s.sem <- struct{}{}:
		default:
			s.m.Rejected.Add(1)
			s.log.Warn("connection refused: --max-conns reached", "remote", conn.RemoteAddr().String(), "max_conns", s.cfg.MaxConns)
			conn.Close()
			continue
		}
		s.m.Active.Add(1)
		s.wg.Add(1)
		go func() {
			defer func() {
				<-s.sem
				s.m.Active.Add(-1)
				s.wg.Done()
			}()
			s.serveConn(ctx, conn)
		}()
	}
	s.wg.Wait()
	s.log.Info("stopped", "metrics", s.m.Snapshot())
	if err != nil {
		return fmt.Errorf("agent: accept: %w", err)
	}
	return nil
}

// logStats logs the counters, and the spill queues' lengths, every d
// until done closes.
func (s *Server) logStats(d time.Duration, done <-chan struct{}) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		args := []any{"metrics", s.m.Snapshot()}
		for _, e := range s.cfg.Exporters {
			if r, ok := e.(*Reliable); ok {
				args = append(args, "queued_"+r.Name(), r.Queued())
			}
		}
		s.log.Info("stats", args...)
	}
}
