package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// maxResponse bounds how much of a response body we read.
const maxResponse = 1 << 20

type httpExporter struct {
	url     string
	client  *http.Client
	headers map[string]string
	gzip    bool
	ua      string
}

var _ exporter = (*httpExporter)(nil)

func newHTTP(c *Client) *httpExporter {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = c.tls
	return &httpExporter{
		url:     c.target,
		client:  &http.Client{Transport: tr},
		headers: c.opts.Headers,
		gzip:    !c.opts.NoGzip,
		ua:      c.opts.UserAgent,
	}
}

func (e *httpExporter) export(ctx context.Context, req *collectorpb.ExportProfilesServiceRequest) (*collectorpb.ExportProfilesServiceResponse, error) {
	body, err := proto.Marshal(req)
	if err != nil {
		return nil, &attemptError{err: fmt.Errorf("encoding request: %w", err)}
	}
	if e.gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(body) // writes to a bytes.Buffer do not fail
		zw.Close()
		body = buf.Bytes()
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, &attemptError{err: err}
	}
	for k, v := range e.headers {
		hreq.Header.Set(k, v)
	}
	hreq.Header.Set("Content-Type", "application/x-protobuf")
	if e.gzip {
		hreq.Header.Set("Content-Encoding", "gzip")
	}
	if e.ua != "" {
		hreq.Header.Set("User-Agent", e.ua)
	}
	resp, err := e.client.Do(hreq)
	if err != nil {
		return nil, err // transport failure: retryable
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, fmt.Errorf("reading HTTP %d response: %w", resp.StatusCode, err)
	}
	if resp.StatusCode/100 == 2 {
		out := &collectorpb.ExportProfilesServiceResponse{}
		if len(data) > 0 {
			if err := unmarshalBody(resp.Header.Get("Content-Type"), data, out); err != nil {
				return nil, &attemptError{err: fmt.Errorf("HTTP %d with an unreadable response body: %w", resp.StatusCode, err)}
			}
		}
		return out, nil
	}
	return nil, httpError(resp, data)
}

func (e *httpExporter) close() error {
	e.client.CloseIdleConnections()
	return nil
}

// httpError classifies a non-2xx answer as the OTLP/HTTP specification
// says: 429, 502, 503 and 504 are retryable (honouring Retry-After),
// everything else is permanent.
func httpError(resp *http.Response, data []byte) *attemptError {
	msg := strings.TrimSpace(string(data))
	st := &status.Status{}
	if len(data) > 0 && unmarshalBody(resp.Header.Get("Content-Type"), data, st) == nil && st.Message != "" {
		msg = st.Message
	}
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	ae := &attemptError{err: fmt.Errorf("HTTP %s: %s", resp.Status, orNone(msg))}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		ae.retryable = true
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			ae.after = time.Duration(s) * time.Second
		}
	}
	return ae
}

// unmarshalBody decodes a protobuf or JSON body by its content type.
func unmarshalBody(contentType string, data []byte, m proto.Message) error {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/json" {
		return protojson.Unmarshal(data, m)
	}
	return proto.Unmarshal(data, m)
}
