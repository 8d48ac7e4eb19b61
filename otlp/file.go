package otlp

import (
	"fmt"
	"os"
	"strings"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
	"google.golang.org/protobuf/proto"
)

// Marshal encodes req as protobuf, or as OTLP-JSON when json is true.
func Marshal(req *collectorpb.ExportProfilesServiceRequest, json bool) ([]byte, error) {
	if json {
		return marshalJSON(req)
	}
	b, err := proto.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("otlp: encoding request: %w", err)
	}
	return b, nil
}

// WriteFile writes req to path: protobuf, or OTLP-JSON when path ends in
// ".json".
func WriteFile(path string, req *collectorpb.ExportProfilesServiceRequest) error {
	b, err := Marshal(req, strings.HasSuffix(path, ".json"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	return nil
}

// ReadFile reads a request written by WriteFile.
func ReadFile(path string) (*collectorpb.ExportProfilesServiceRequest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	req := &collectorpb.ExportProfilesServiceRequest{}
	if strings.HasSuffix(path, ".json") {
		err = UnmarshalJSON(b, req)
	} else {
		err = proto.Unmarshal(b, req)
	}
	if err != nil {
		return nil, fmt.Errorf("otlp: %s: %w", path, err)
	}
	return req, nil
}
