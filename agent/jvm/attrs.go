package jvm

import (
	"os"
	"strings"
	"time"

	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
)

// Attributes are the OTLP resource attributes that identify the JVM:
// process.pid, process.runtime.name/version/description,
// process.command, process.owner, process.creation.time, host.name,
// container.id (when the cgroup names one) and service.name (from the
// JVM's otel.service.name or OTEL_SERVICE_NAME, else its main class).
func (info *Info) Attributes() []*commonpb.KeyValue {
	attrs := []*commonpb.KeyValue{
		str(string(semconv.ServiceNameKey), info.Service()),
		num(string(semconv.ProcessPIDKey), int64(info.PID)),
	}
	rn, rv := info.RuntimeName, info.RuntimeVersion
	if rn == "" {
		rn = info.VMName
	}
	if rv == "" {
		rv = info.JavaVersion
	}
	add := func(k, v string) {
		if v != "" {
			attrs = append(attrs, str(k, v))
		}
	}
	add(string(semconv.ProcessRuntimeNameKey), rn)
	add(string(semconv.ProcessRuntimeVersionKey), rv)
	add(string(semconv.ProcessRuntimeDescriptionKey), strings.TrimSpace(info.VMName+" "+info.VMVersion))
	add(string(semconv.ProcessCommandKey), info.Command)
	add(string(semconv.ProcessOwnerKey), info.User)
	if !info.Started.IsZero() {
		add(string(semconv.ProcessCreationTimeKey), info.Started.UTC().Format(time.RFC3339Nano))
	}
	if h, err := os.Hostname(); err == nil {
		add(string(semconv.HostNameKey), h)
	}
	add(string(semconv.ContainerIDKey), info.ContainerID)
	return attrs
}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func num(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}
