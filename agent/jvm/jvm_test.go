package jvm

import "testing"

func TestContainerID(t *testing.T) {
	id := "3f4b8c1d2e9a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c"
	for in, want := range map[string]string{
		"0::/system.slice/docker-" + id + ".scope\n":                               id,
		"0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-" + id + ".scope\n": id,
		"12:memory:/docker/" + id + "\n11:cpu:/docker/" + id + "\n":                id,
		"0::/kubepods/besteffort/pod0a1b/crio-" + id + "\n":                        id,
		"0::/user.slice/user-0.slice/session-3.scope\n":                            "",
		"0::/system.slice/containerd.service\n":                                    "",
	} {
		if got := containerIDFrom([]byte(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestServiceName(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"PATH=/bin", "OTEL_SERVICE_NAME=cart"}, "cart"},
		{[]string{"OTEL_RESOURCE_ATTRIBUTES=deployment.environment=prod, service.name=shop"}, "shop"},
		{[]string{"OTEL_RESOURCE_ATTRIBUTES=service.name=shop", "OTEL_SERVICE_NAME=cart"}, "cart"},
		{nil, ""},
	} {
		if got := serviceFromEnv(tc.env); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.env, got, tc.want)
		}
	}
	for info, want := range map[Info]string{
		{MainClass: "com.example.Main"}:                          "com.example.Main",
		{MainClass: "/srv/app/shop-1.2.jar"}:                     "shop-1.2",
		{MainClass: "com.example.Main", ServiceName: "checkout"}: "checkout",
		{}: "unknown_service:java",
	} {
		if got := info.Service(); got != want {
			t.Errorf("%+v: %q, want %q", info, got, want)
		}
	}
}

func TestMainFromArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"java", "-Xmx1g", "-cp", "a.jar:b.jar", "com.example.Main", "arg"}, "com.example.Main"},
		{[]string{"/usr/bin/java", "-jar", "app.jar", "x"}, "app.jar"},
		{[]string{"java", "--module-path", "mods", "-m", "app/com.example.Main"}, "app/com.example.Main"},
		{[]string{"java", "-version"}, ""},
	} {
		if got := mainFromArgs(tc.args); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
}
