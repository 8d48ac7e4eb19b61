package otlp

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// OTLP-JSON is the protobuf JSON mapping with two differences that matter
// here: field names are lowerCamelCase (protojson's default) and the ids
// (profileId, traceId, spanId) are hex strings, not base64. protojson does
// the first; idFields below fixes up the second in both directions.

// idFields are the bytes fields OTLP-JSON writes as hex, by JSON name.
var idFields = map[string]int{"profileId": 16, "traceId": 16, "spanId": 8}

func marshalJSON(req *collectorpb.ExportProfilesServiceRequest) ([]byte, error) {
	b, err := protojson.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("otlp: encoding request as JSON: %w", err)
	}
	tree, err := decodeTree(b)
	if err != nil {
		return nil, fmt.Errorf("otlp: re-reading JSON: %w", err)
	}
	if err := recodeIDs(tree, func(s string, _ int) (string, error) {
		raw, err := base64.StdEncoding.DecodeString(s)
		return hex.EncodeToString(raw), err
	}); err != nil {
		return nil, err
	}
	return json.Marshal(tree)
}

// UnmarshalJSON decodes OTLP-JSON (hex ids) into m: a request, or the
// ProfilesData the Collector's file exporter writes.
func UnmarshalJSON(b []byte, m proto.Message) error {
	tree, err := decodeTree(b)
	if err != nil {
		return err
	}
	if err := recodeIDs(tree, func(s string, n int) (string, error) {
		if len(s) != 2*n {
			return s, nil // not hex-shaped: leave it to protojson (base64)
		}
		raw, err := hex.DecodeString(s)
		if err != nil {
			return s, nil
		}
		return base64.StdEncoding.EncodeToString(raw), nil
	}); err != nil {
		return err
	}
	b, err = json.Marshal(tree)
	if err != nil {
		return err
	}
	return protojson.Unmarshal(b, m)
}

// decodeTree decodes JSON keeping numbers exact.
func decodeTree(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var tree any
	if err := d.Decode(&tree); err != nil {
		return nil, err
	}
	return tree, nil
}

// recodeIDs rewrites every id field in a decoded JSON tree.
func recodeIDs(v any, f func(s string, size int) (string, error)) error {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if n, ok := idFields[k]; ok {
				if s, ok := x.(string); ok {
					out, err := f(s, n)
					if err != nil {
						return fmt.Errorf("otlp: field %s: %w", k, err)
					}
					v[k] = out
					continue
				}
			}
			if err := recodeIDs(x, f); err != nil {
				return err
			}
		}
	case []any:
		for _, x := range v {
			if err := recodeIDs(x, f); err != nil {
				return err
			}
		}
	}
	return nil
}
