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
package otlp
