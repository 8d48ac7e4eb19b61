// Package otlp writes graphs as OpenTelemetry profiles
// (opentelemetry.proto.profiles.v1development, proto-go profiles v0.4.0)
// and ships them to an OTLP receiver over gRPC or HTTP.
//
// Layout of one ExportProfilesServiceRequest built from several graphs:
//
//	dictionary                   one for the whole request, zero entry at index 0 of every table
//	resource_profiles[i]         one per input graph: service.name, the source file, HPROF version
//	  scope_profiles[j]          one per view (cpu, alloc, heap, …): pprof.scope.default_sample_type
//	    profiles[k]              one per sample type of the view (samples/count, cpu/nanoseconds, …)
//
// Frames become locations with profile.frame.type=jvm, each with one line
// naming a function ("java.util.HashMap.resize", system name with the JVM
// descriptor, source file). Sample labels become attributes: the thread
// label is thread.name, others keep their graph key under "jvm." or
// "hprof." (see AttributeKey). Samples whose value for a profile's type is
// zero are left out of that profile; totals are unchanged.
//
// That faithful form mirrors the pprof files. Options.Store shapes the
// profiles for backends that store them (Grafana Pyroscope): period types
// that name each view, a frame for empty stacks, only bounded sample
// attributes (StoreOptions). Split makes one request per view, cutting a
// view too large for a backend's Limits into parts that keep every sample;
// Ship sends them paced by a Pacer and says per part what was stored.
package otlp
