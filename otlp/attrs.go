package otlp

import (
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Attribute keys. Semantic-convention keys come from otel's semconv
// package; the rest are ours, under "hprof.".
const (
	attrFrameType   = string(semconv.ProfileFrameTypeKey)   // on every location
	attrServiceName = string(semconv.ServiceNameKey)        // resource
	attrFilePath    = string(semconv.FilePathKey)           // resource: the input as given
	attrFileName    = string(semconv.FileNameKey)           // resource: its base name
	attrRuntimeName = string(semconv.ProcessRuntimeNameKey) // resource: "java"
	attrThreadName  = string(semconv.ThreadNameKey)         // sample
	attrComment     = string(semconv.PprofProfileCommentKey)
	attrDefaultType = string(semconv.PprofScopeDefaultSampleTypeKey)

	// AttrThreadState is the JVM thread state; the name is the one the
	// JVM runtime metrics conventions use (semconv v1.26 jvm.thread.state).
	AttrThreadState = "jvm.thread.state"

	AttrFormat  = "hprof.format"  // resource: hprof-binary, hprof-text, …
	AttrVersion = "hprof.version" // resource: "JAVA PROFILE 1.0.2"
	AttrWriter  = "hprof.writer"  // resource: best guess at the writer
	AttrView    = "hprof.view"    // scope and profile: the view name
	AttrDamage  = "hprof.damage"  // resource: why decoding stopped early
	AttrLost    = "hprof.lost"    // resource: what was not read

	frameTypeJVM = "jvm"

	// PayloadFormat is the original_payload_format of every profile.
	PayloadFormat = "hprof"
)

// AttributeKey returns the attribute key a graph label key becomes on
// samples: thread → thread.name, state → jvm.thread.state, anything else
// k → hprof.k.
func AttributeKey(label string) string {
	switch label {
	case graph.LabelThread:
		return attrThreadName
	case graph.LabelState:
		return AttrThreadState
	}
	return "hprof." + label
}
