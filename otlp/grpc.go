package otlp

import (
	"context"
	"fmt"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

type grpcExporter struct {
	conn    *grpc.ClientConn
	client  collectorpb.ProfilesServiceClient
	md      metadata.MD
	callOpt []grpc.CallOption
}

var _ exporter = (*grpcExporter)(nil)

func newGRPC(c *Client) (*grpcExporter, error) {
	creds := insecure.NewCredentials()
	if c.tls != nil {
		creds = credentials.NewTLS(c.tls)
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	if c.opts.UserAgent != "" {
		opts = append(opts, grpc.WithUserAgent(c.opts.UserAgent))
	}
	conn, err := grpc.NewClient(c.target, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: gRPC endpoint %s: %w", ErrUsage, c.target, err)
	}
	e := &grpcExporter{conn: conn, client: collectorpb.NewProfilesServiceClient(conn), md: metadata.New(c.opts.Headers)}
	if !c.opts.NoGzip {
		e.callOpt = append(e.callOpt, grpc.UseCompressor(gzip.Name))
	}
	return e, nil
}

func (e *grpcExporter) export(ctx context.Context, req *collectorpb.ExportProfilesServiceRequest) (*collectorpb.ExportProfilesServiceResponse, error) {
	if len(e.md) > 0 {
		ctx = metadata.NewOutgoingContext(ctx, e.md)
	}
	resp, err := e.client.Export(ctx, req, e.callOpt...)
	if err == nil {
		return resp, nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return nil, err
	}
	return nil, grpcError(st)
}

func (e *grpcExporter) close() error { return e.conn.Close() }

// grpcError classifies a status the way the OTLP specification says:
// these codes are retryable, RESOURCE_EXHAUSTED only when the server
// sent RetryInfo; everything else is permanent.
func grpcError(st *status.Status) *attemptError {
	ae := &attemptError{err: fmt.Errorf("gRPC status %s: %s", st.Code(), st.Message())}
	var info *errdetails.RetryInfo
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			info = ri
		}
	}
	if info != nil && info.RetryDelay != nil {
		ae.after = info.RetryDelay.AsDuration()
	}
	switch st.Code() {
	case codes.Canceled, codes.DeadlineExceeded, codes.Aborted, codes.OutOfRange, codes.Unavailable, codes.DataLoss:
		ae.retryable = true
		if st.Code() == codes.Unavailable && tlsProblem(st.Message()) {
			ae.retryable = false
			ae.err = fmt.Errorf("%w (TLS is the default: use --insecure for a plain-text receiver)", ae.err)
		}
	case codes.ResourceExhausted:
		ae.retryable = info != nil
	}
	if st.Code() == codes.DeadlineExceeded {
		ae.err = fmt.Errorf("no answer in time (gRPC %s): %s", st.Code(), st.Message())
	}
	return ae
}
