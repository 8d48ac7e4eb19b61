module github.com/hprof2pprof/hprof2pprof

go 1.26

require (
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/klauspost/compress v1.18.0
	go.opentelemetry.io/otel v1.43.0
	go.opentelemetry.io/proto/otlp v1.11.0
	go.opentelemetry.io/proto/otlp/collector/profiles/v1development v0.4.0
	go.opentelemetry.io/proto/otlp/profiles/v1development v0.4.0
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260720211330-0afa2a65878a
	google.golang.org/grpc v1.82.1
	google.golang.org/protobuf v1.36.11
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/grpc-ecosystem/grpc-gateway/v2 v2.29.0 // indirect
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.40.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20260720211330-0afa2a65878a // indirect
)
